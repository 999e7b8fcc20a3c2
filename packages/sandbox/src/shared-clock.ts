import type { AdjustableClock } from './clock.js';
import type { Store } from './store/index.js';

/**
 * The default clock of a sandbox whose database other processes share (PostgreSQL replicas): real time plus the
 * offset stored in the database, so that every replica runs on one sandbox clock. The offset is read again whenever
 * the database changed since it was last read (the store's external version, read at most once per synchronous
 * run), and `advance` adds to the stored offset under the write lock, so that two replicas advancing at once add
 * both steps.
 */
export function createSharedClock(db: Store, offset: { read(): number; write(offsetMs: number): void }): AdjustableClock {
  let offsetMs = offset.read();
  let seen = db.externalVersion();
  const current = (): number => {
    if (!db.open) return offsetMs;
    const version = db.externalVersion();
    if (version !== seen) {
      seen = version;
      offsetMs = offset.read();
    }
    return offsetMs;
  };
  const add = (ms: number): void => {
    offsetMs = offset.read() + ms;
    offset.write(offsetMs);
  };
  return {
    now: () => new Date(Date.now() + current()),
    wallNow: () => Date.now(),
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`clock.advance expects a finite, non-negative number of milliseconds, got ${ms}`);
      if (db.inTransaction) add(ms);
      else db.transaction('write', () => add(ms));
    },
  };
}
