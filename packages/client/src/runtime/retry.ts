// Copied by gen-card-api from templates/client/retry.ts. Do not edit: change the template and run the generator.
/**
 * Retry policy: which failures are worth another attempt and how long to wait before it.
 *
 * @module
 */

/** First back-off window, in milliseconds. */
export const BACKOFF_BASE_MS = 500;
/** Largest back-off window, in milliseconds. */
export const BACKOFF_CAP_MS = 8_000;
/** Longest `Retry-After` the client waits for; a longer one ends the retries. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retry` (0 for the first retry): "full jitter", a uniform draw in
 * `[0, min(cap, base * 2^retry))`. Full jitter spreads a burst of failing clients over the whole
 * window instead of making them hit the server again in lock-step.
 *
 * @param random - A source of uniform numbers in `[0, 1)`, injectable for tests.
 * @example
 * ```ts
 * backoffDelay(0, () => 0.5); // 250
 * backoffDelay(10, () => 0.999); // just under 8000 (capped)
 * ```
 */
export function backoffDelay(
  retry: number,
  random: () => number = Math.random,
  baseMs: number = BACKOFF_BASE_MS,
  capMs: number = BACKOFF_CAP_MS,
): number {
  const window = Math.min(capMs, baseMs * 2 ** retry);
  return Math.floor(random() * window);
}

/**
 * Parses `Retry-After` (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date.
 *
 * @returns Milliseconds to wait (never negative), or `null` when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // All three HTTP-date forms start with a day name; without this check Date.parse would read
  // "1.5" or "-5" as dates.
  if (!/^[A-Za-z]{3,9},? /.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/**
 * Whether a status is transient: 408 and 429 ask the client to come back, and a 5xx is the
 * server's fault. Every other 4xx would fail again the same way.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** Signature of the injectable sleep: resolves after `ms`, rejects with the signal's reason on abort. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The reason of an aborted signal, or a standard `AbortError` when the signal carries none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** {@link Sleep} on `setTimeout` that stops at once, and clears its timer, when the signal aborts. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
