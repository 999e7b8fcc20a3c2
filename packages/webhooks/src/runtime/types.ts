// Copied by gen-card-api from templates/webhooks/types.ts. Do not edit: change the template and run the generator.
/**
 * The envelope every event shares (contract section 6.1). Generated code narrows it to the
 * `CardApiEvent` union; the runtime only relies on these fields. `event_id` and `occurred_at` may be absent:
 * the contract leaves them unconfirmed on `card.issued.secrets` (D13), which is then deduplicated by its
 * business uuid (D38).
 */
export type WebhookEvent = {
  event: string;
  event_id?: number;
  occurred_at?: string;
  workspace_id: number;
  data: unknown;
};

/** Raw request bodies accepted by the verifiers. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** Options shared by `constructEvent` and `constructEventAsync`. */
export interface ConstructEventOptions {
  /** Largest accepted |now - t| in seconds, in both directions. Default 300 (contract section 8). */
  toleranceSec?: number;
  /** Current time as a `Date` or in epoch milliseconds (like `Date.now()`); for tests and replays. */
  now?: Date | number;
}

/** One secret, or several while a secret is being rotated (any match is accepted). */
export type WebhookSecrets = string | readonly string[];

type Prefixes<N extends string> = N extends `${infer Head}.${infer Tail}` ? Head | `${Head}.${Prefixes<Tail>}` : never;

/**
 * `'<prefix>.*'` patterns that match at least one event name of `E`,
 * e.g. `'card.*'` and `'card.transaction.*'` for `'card.transaction.captured'`.
 */
export type WildcardPattern<E extends WebhookEvent> = `${Prefixes<E['event']>}.*`;

/** What `.on()` accepts: an exact event name or a wildcard pattern. */
export type EventPattern<E extends WebhookEvent> = E['event'] | WildcardPattern<E>;

/**
 * The events a pattern selects: `Extract<E, { event: N }>` for a name, the union of every
 * event under the prefix for `'<prefix>.*'`. With the untyped default `WebhookEvent`, every pattern gives `E`.
 */
export type EventForPattern<E extends WebhookEvent, P extends string> = string extends E['event']
  ? E
  : P extends `${infer Prefix}.*`
    ? Extract<E, { event: `${Prefix}.${string}` }>
    : Extract<E, { event: P }>;

/**
 * WebCrypto's `CryptoKey`, named through the `crypto` global: the DOM lib's type where the DOM lib is loaded,
 * `node:crypto`'s `webcrypto.CryptoKey` (from `@types/node`) in a Node project without it.
 */
export type WebCryptoKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
