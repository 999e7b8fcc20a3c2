// Copied by gen-card-api from templates/webhooks/dedupe.ts. Do not edit: change the template and run the generator.
/**
 * Outcome of claiming an `event_id`:
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
  /** Atomically claims `eventId`; an unfinished claim should lapse after `leaseMs` (the worker may have died). */
  claim(eventId: number, leaseMs: number): DedupeClaim | Promise<DedupeClaim>;
  /** Marks `eventId` as handled. */
  commit(eventId: number): void | Promise<void>;
  /** Forgets a claim whose handling failed. */
  release(eventId: number): void | Promise<void>;
}

/** Options of the default in-memory store. */
export interface MemoryDedupeOptions {
  /** How long a handled id is remembered. Default 24 h, longer than the service's whole retry schedule. */
  ttlMs?: number;
  /** Most ids kept; the oldest are forgotten first. Default 10 000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds, for tests. */
  now?: () => number;
}

/**
 * The default store: a bounded map in this process, with a TTL. It does not survive restarts and is
 * not shared between instances; handlers should stay idempotent anyway (contract section 6.3).
 *
 * @example
 * createWebhookHandler({ secrets, dedupe: createMemoryDedupeStore({ ttlMs: 3_600_000 }), onUnknownEvent });
 */
export function createMemoryDedupeStore(options: MemoryDedupeOptions = {}): DedupeStore {
  const { ttlMs = 86_400_000, maxEntries = 10_000, now = Date.now } = options;
  // Value: expiry time; negative while in flight (the lease expiry, negated). Map order is insertion order,
  // and every write re-inserts, so the first key is always the oldest.
  const seen = new Map<number, number>();
  const put = (id: number, value: number) => {
    seen.delete(id);
    seen.set(id, value);
    while (seen.size > maxEntries) seen.delete(seen.keys().next().value as number);
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
