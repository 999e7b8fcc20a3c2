import type { Store } from './store/index.js';
import type { Clock } from './clock.js';
import type { SandboxEvent } from './types.js';

/** Options after defaults, shared by every service. */
export interface ResolvedOptions {
  /** Delay of each order step (pending -> processing -> outcome). */
  orderLatencyMs: number;
  /** Delay between a close order's completion and close stage 2; `null` = only `admin.finishClose`. */
  closeDelayMs: number | null;
  /** Per-minute ceiling of a token without its own rate limit. */
  defaultTokenRateLimitPerMinute: number;
  /** Per-minute ceiling of one caller IP, over all tokens. */
  ipRateLimitPerMinute: number;
  /** Source of randomness for fake card data (PAN digits, CVV, expiry); never for token secrets. */
  random: () => number;
  /** Waits before each redelivery (D19), on the sandbox clock; the last value repeats if attempts outnumber it. */
  webhookRetryScheduleMs: readonly number[];
  /** Failed attempts of one delivery after which its endpoint is disabled (D19: 8). */
  webhookMaxAttempts: number;
  /** Real-time limit of one delivery attempt (connect, headers and body). */
  webhookTimeoutMs: number;
  /** Age (sandbox clock) after which a zero-amount probe's bill shows `expired`. */
  probeExpiryMs: number;
  /** The envelope of delivered `card.issued.secrets` bodies (D13): every field, or the contract example's three. */
  cardSecretsEnvelope: 'full' | 'example';
}

/**
 * What every service module receives: the database, the clock, the options and the two
 * transaction helpers. Keeping this in one object means each module is a plain function of
 * its context and can be tested against a real database.
 */
export interface Context {
  readonly db: Store;
  readonly clock: Clock;
  readonly options: ResolvedOptions;
  /** Runs `fn` in one IMMEDIATE write transaction (nested calls join the outer one); events recorded in it are published after the commit. */
  write<T>(fn: () => T): T;
  /** Runs `fn` in one read transaction, so that a count and a page come from the same snapshot. */
  read<T>(fn: () => T): T;
  /** Queues an inserted event for the `onEvent` listeners, published when the write commits. */
  queueEvent(event: SandboxEvent): void;
  nowMs(): number;
  nowIso(): string;
  /**
   * Changes whenever a reference table (workspaces, their subscriptions, API tokens, card products, queued forced
   * failures, webhook endpoints, RSA public keys) may have changed: a write to one of them on this connection, a
   * rolled-back write transaction, or (file databases) another connection's commit. The key of caches of those
   * rows, which every request reads and almost none writes, so that they survive the card and order writes that
   * change `generation` all the time.
   */
  referenceGeneration(): number;
  /**
   * False from a reference-table write inside a transaction until that transaction is over and seen to be (a call of
   * `referenceGeneration`, `write` or `read` outside any transaction): what is read meanwhile may yet be rolled back,
   * so caches neither keep nor serve anything then.
   */
  referenceCacheable(): boolean;
  /**
   * Changes whenever this connection or another one (a second process on the same file) has committed a write
   * since the last call: the key of caches over the database (card details), which any write invalidates.
   */
  generation(): number;
}

/** The tables {@link Context.referenceGeneration} watches. */
const REFERENCE_TABLES = ['workspaces', 'workspace_subscriptions', 'api_tokens', 'card_products', 'forced_failures', 'webhook_endpoints', 'workspace_public_keys'] as const;

/**
 * `load`, cached per context and key until {@link Context.referenceGeneration} moves (or `limit` keys are held): for
 * reads of the reference tables only. Cached values are shared between callers, so they must be treated as
 * read-only (the loaders' return types say so).
 */
export function referenceCached<K, V>(load: (ctx: Context, key: K) => V, limit = 1000): (ctx: Context, key: K) => V {
  const caches = new WeakMap<Context, { generation: number; entries: Map<K, V> }>();
  return (ctx, key) => {
    const generation = ctx.referenceGeneration();
    // Inside (or just after, not yet settled) a transaction that wrote a reference table: straight to the database.
    if (!ctx.referenceCacheable()) return load(ctx, key);
    let cache = caches.get(ctx);
    if (cache === undefined) {
      cache = { generation, entries: new Map() };
      caches.set(ctx, cache);
    } else if (cache.generation !== generation || cache.entries.size >= limit) {
      cache.generation = generation;
      cache.entries = new Map();
    }
    if (cache.entries.has(key)) return cache.entries.get(key) as V;
    const value = load(ctx, key);
    cache.entries.set(key, value);
    return value;
  };
}

/** Builds the context; `afterCommit` runs after every committed top-level write (the scheduler re-arms there). */
export function createContext(
  db: Store,
  clock: Clock,
  options: ResolvedOptions,
  publish: (events: SandboxEvent[]) => void,
  afterCommit: () => void,
): Context {
  let pending: SandboxEvent[] = [];
  let commits = 0;
  // Writes to the reference tables, counted by the store's watch (whatever code path made them). A rolled-back
  // transaction counts too (see `write`): a cache may have read its uncommitted rows.
  let referenceChanges = 0;
  // Set by a reference write inside a transaction; cleared, with one more change counted, once that transaction is
  // over, committed or not.
  let referenceWriteInTransaction = false;
  db.watch(REFERENCE_TABLES, () => {
    referenceChanges++;
    if (db.inTransaction) referenceWriteInTransaction = true;
  });
  const settleReferenceWrites = (): void => {
    if (referenceWriteInTransaction && !db.inTransaction) {
      referenceWriteInTransaction = false;
      referenceChanges++;
    }
  };
  return {
    db,
    clock,
    options,
    write<T>(fn: () => T): T {
      // A nested write is part of the outer transaction; only the outermost one publishes.
      if (db.inTransaction) return fn();
      settleReferenceWrites();
      pending = [];
      let result: T;
      try {
        // The write lock is taken up front: a lookup-then-insert (idempotency keys, balance checks) cannot
        // interleave with another connection's write.
        result = db.transaction('write', fn);
      } catch (error) {
        pending = [];
        referenceWriteInTransaction = false;
        referenceChanges++;
        throw error;
      }
      commits++;
      const committed = pending;
      pending = [];
      if (committed.length > 0) publish(committed);
      afterCommit();
      return result;
    },
    read<T>(fn: () => T): T {
      if (db.inTransaction) return fn();
      settleReferenceWrites();
      return db.transaction('read', fn);
    },
    queueEvent(event) {
      pending.push(event);
    },
    // An in-memory database has no other connection, so only our own commits can change it: no statement on every
    // cached read (a statement in the request path costs several microseconds, more than the cache saves).
    generation: db.memory ? () => commits : () => commits * 2 ** 21 + db.externalVersion(),
    referenceGeneration: db.memory
      ? () => {
          settleReferenceWrites();
          return referenceChanges;
        }
      : () => {
          settleReferenceWrites();
          return referenceChanges * 2 ** 21 + db.externalVersion();
        },
    referenceCacheable: () => !referenceWriteInTransaction,
    nowMs: () => clock.now().getTime(),
    nowIso: () => clock.now().toISOString(),
  };
}
