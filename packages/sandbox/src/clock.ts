/**
 * Time source of the sandbox. Every timestamp the sandbox writes and every due time of its
 * scheduled work (order steps, close stage 2, idempotency expiry, rate-limit windows) comes
 * from `now()`, so a test or the future "advance the sandbox clock" control can move time.
 */
export interface Clock {
  now(): Date;
  /** Moves the clock forward by `ms` (not backwards: a negative value is rejected). */
  advance?(ms: number): void;
  /**
   * The real time (epoch ms) of what leaves the simulation: the `t=` of each webhook signature, which a
   * receiver checks against its own clock (300 s tolerance) however far the sandbox clock was advanced.
   * Absent (the manual clock), signatures use `now()`.
   */
  wallNow?(): number;
}

/** A clock that can be moved, the shape both built-in clocks have. */
export interface AdjustableClock extends Clock {
  advance(ms: number): void;
}

function checkStep(ms: number): void {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`clock.advance expects a finite, non-negative number of milliseconds, got ${ms}`);
}

/**
 * Real time plus an offset: the default clock. `advance` shifts the offset, so a running
 * sandbox can jump forward (for example to trigger a close stage 2 that is days away).
 * `offsetMs` starts it ahead (a restored offset); `onAdvance` hears each new offset (the sandbox stores it).
 */
export function createSystemClock(options: { offsetMs?: number; onAdvance?: (offsetMs: number) => void } = {}): AdjustableClock {
  let offsetMs = options.offsetMs ?? 0;
  checkStep(offsetMs);
  return {
    now: () => new Date(Date.now() + offsetMs),
    wallNow: () => Date.now(),
    advance(ms) {
      checkStep(ms);
      offsetMs += ms;
      options.onAdvance?.(offsetMs);
    },
  };
}

/**
 * A clock that only moves when told to: for tests. It starts at `start`
 * (default 2026-01-01T00:00:00.000Z) and never reads the real time.
 *
 * @example
 * const clock = createManualClock('2026-03-01T12:00:00Z');
 * clock.advance(60_000);
 * clock.now().toISOString(); // '2026-03-01T12:01:00.000Z'
 */
export function createManualClock(start: Date | string | number = '2026-01-01T00:00:00.000Z'): AdjustableClock & { set(to: Date | string | number): void } {
  let nowMs = new Date(start).getTime();
  if (Number.isNaN(nowMs)) throw new RangeError(`createManualClock: invalid start time ${String(start)}`);
  return {
    now: () => new Date(nowMs),
    advance(ms) {
      checkStep(ms);
      nowMs += ms;
    },
    set(to) {
      const ms = new Date(to).getTime();
      if (Number.isNaN(ms) || ms < nowMs) throw new RangeError('clock.set only moves forward, to a valid time');
      nowMs = ms;
    },
  };
}

/** ISO 8601 UTC with milliseconds, the one timestamp format the sandbox stores and returns. */
export function iso(date: Date): string {
  return date.toISOString();
}
