/**
 * What a delivery is deduplicated by: its numeric `event_id`, or, for an event without one, a string built
 * from its business uuid (see `dedupeKey`).
 */
export type DedupeKey = number | string;

/** The default window: 24 h, the idempotency window of the API (contract section 4), longer than any retry schedule. */
export const DEDUPE_WINDOW_MS = 86_400_000;

/** The default memory bound of the in-memory store, in keys (about 10 MB). */
export const DEDUPE_MAX_ENTRIES = 100_000;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The key a delivery is deduplicated by. The numeric `event_id` when present (stable across redeliveries,
 * contract section 6.1); otherwise the nested business uuid the section suggests (D38):
 * - `card.transaction.*`: `transaction.uuid` (one row, one event; receivers upsert by it, section 6.5);
 * - `order.completed` / `order.failed`: `order_uuid` (an order ends once);
 * - `card.issued.secrets`: `card_uuid` (a card is issued once);
 * - other `card.*` events: `card_uuid` with the event's own timestamp (`frozen_at`, `unfrozen_at`,
 *   `close_initiated_at`, `closed_at`), else the envelope's `occurred_at` (a card may be frozen twice);
 * - anything else (an event code added later, or a payload without these fields): null, not deduplicated.
 * The event code is part of every string key, so two events about one uuid never collide.
 */
export function dedupeKey(event: { event?: unknown; event_id?: unknown; occurred_at?: unknown; data?: unknown }): DedupeKey | null {
  if (typeof event.event_id === 'number' && Number.isFinite(event.event_id)) return event.event_id;
  const name = text(event.event);
  const data = typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>) : undefined;
  if (name === undefined || data === undefined) return null;
  if (name.startsWith('card.transaction.')) {
    const transaction = data.transaction;
    const uuid = typeof transaction === 'object' && transaction !== null ? text((transaction as Record<string, unknown>).uuid) : undefined;
    return uuid === undefined ? null : `${name}:${uuid}`;
  }
  if (name === 'order.completed' || name === 'order.failed') {
    const uuid = text(data.order_uuid);
    return uuid === undefined ? null : `${name}:${uuid}`;
  }
  const card = text(data.card_uuid);
  if (card === undefined || !name.startsWith('card.')) return null;
  if (name === 'card.issued.secrets') return `${name}:${card}`;
  const at = text(data.frozen_at) ?? text(data.unfrozen_at) ?? text(data.close_initiated_at) ?? text(data.closed_at) ?? text(event.occurred_at);
  return at === undefined ? null : `${name}:${card}:${at}`;
}

/**
 * Outcome of claiming a key:
 * `claimed` (first delivery, go ahead), `duplicate` (already handled), `in_flight` (another worker is handling it now).
 */
export type DedupeClaim = 'claimed' | 'duplicate' | 'in_flight';

/**
 * Where the dispatcher records which events it has handled. Implement it over Redis, SQL, etc.
 * to share it between processes; every method may be sync or async.
 *
 * The protocol: `claim` before running handlers; then `commit` after success (the id is seen)
 * or `release` after a failure (the id is forgotten, so the service's retry runs the handlers again).
 *
 * @example
 * // Redis: SET NX with a lease, then a long TTL once handled.
 * const store: DedupeStore = {
 *   async claim(id, leaseMs) {
 *     if (await redis.set(`wh:${id}`, 'run', { NX: true, PX: leaseMs })) return 'claimed';
 *     return (await redis.get(`wh:${id}`)) === 'done' ? 'duplicate' : 'in_flight';
 *   },
 *   commit: (id) => redis.set(`wh:${id}`, 'done', { EX: 86_400 }),
 *   release: (id) => redis.del(`wh:${id}`),
 * };
 */
export interface DedupeStore {
  /** Atomically claims `key`; an unfinished claim should lapse after `leaseMs` (the worker may have died). */
  claim(key: DedupeKey, leaseMs: number): DedupeClaim | Promise<DedupeClaim>;
  /** Marks `key` as handled; remember it for the window (24 h, {@link DEDUPE_WINDOW_MS}). */
  commit(key: DedupeKey): void | Promise<void>;
  /** Forgets a claim whose handling failed. */
  release(key: DedupeKey): void | Promise<void>;
}

/** Options of the default in-memory store. */
export interface MemoryDedupeOptions {
  /** How long a handled key is remembered. Default 24 h ({@link DEDUPE_WINDOW_MS}), longer than the service's whole retry schedule. */
  ttlMs?: number;
  /**
   * Memory bound: most keys kept (default 100 000, about 10 MB). Expired keys go first; only when more than
   * this many deliveries arrive within one window are the oldest forgotten early. A receiver with more
   * traffic than that should pass a shared store (Redis, SQL).
   */
  maxEntries?: number;
  /** Clock in epoch milliseconds, for tests. */
  now?: () => number;
}

/**
 * The default store: a map in this process that remembers a handled key for 24 h, within a memory bound
 * (`maxEntries`). It does not survive restarts and is not shared between instances; handlers should stay
 * idempotent anyway (contract section 6.3).
 *
 * @example
 * createWebhookHandler({ secrets, dedupe: createMemoryDedupeStore({ ttlMs: 3_600_000 }), onUnknownEvent });
 */
export function createMemoryDedupeStore(options: MemoryDedupeOptions = {}): DedupeStore {
  const { ttlMs = DEDUPE_WINDOW_MS, maxEntries = DEDUPE_MAX_ENTRIES, now = Date.now } = options;
  // Value: expiry time; negative while in flight (the lease expiry, negated). Map order is insertion order,
  // and every write re-inserts, so the first key is always the oldest write.
  const seen = new Map<DedupeKey, number>();
  const put = (id: DedupeKey, value: number) => {
    seen.delete(id);
    seen.set(id, value);
    // Expired keys at the front go first (a few per write, amortised), then the bound.
    const t = now();
    for (const [key, expiry] of seen) {
      if (Math.abs(expiry) > t) break;
      seen.delete(key);
    }
    while (seen.size > maxEntries) seen.delete(seen.keys().next().value as DedupeKey);
  };
  return {
    claim(id, leaseMs) {
      const t = now();
      const v = seen.get(id);
      if (v !== undefined) {
        if (v > 0 && v > t) return 'duplicate';
        if (v < 0 && -v > t) return 'in_flight';
      }
      put(id, -(t + leaseMs));
      return 'claimed';
    },
    commit(id) {
      put(id, now() + ttlMs);
    },
    release(id) {
      seen.delete(id);
    },
  };
}
