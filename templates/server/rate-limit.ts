/**
 * Per-minute ceilings for every token and every IP (contract section 8), reported with the headers of D5.
 * The default store is an in-memory fixed window with an injectable clock; a service with several processes
 * passes its own `RateLimiter` (the sandbox keeps its counters in SQLite).
 */
import { normaliseIp } from './auth.js';

/** The state of the binding counter after one request. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Ceiling of the counter that binds: the token's or the IP's, whichever has less left. */
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends (`X-RateLimit-Reset`). */
  reset: number;
  /** Seconds to wait (`Retry-After`), null when allowed. */
  retryAfter: number | null;
  scope: 'token' | 'ip';
}

export interface RateLimitRequest {
  /**
   * Identifies the token (its `rateLimitKey`, else a hash of it); never the raw token. Null for a request that
   * is refused (no token, an unknown one, a denied one): it counts against the IP only (D37).
   */
  tokenKey: string | null;
  /** The token's ceiling; ignored when `tokenKey` is null. */
  tokenLimit: number;
  ip: string;
}

/** Counts one request against the IP's window and, when `tokenKey` is set, the token's. */
export interface RateLimiter {
  consume(request: RateLimitRequest): RateLimitDecision | Promise<RateLimitDecision>;
}

export interface MemoryRateLimiterOptions {
  /** Ceiling per IP per minute, whatever the token; 0 for none. Default 600. */
  ipPerMinute?: number;
  /** Milliseconds since the epoch; inject a fake clock in tests. */
  now?: () => number;
}

const WINDOW_MS = 60_000;

/**
 * What `limit` and `remaining` report when neither the token nor the IP has a ceiling (both 0). No header carries
 * it: {@link rateLimitHeaders} sends none for such a decision (D5).
 */
export const UNLIMITED = 2_147_483_647;

/** The in-memory limiter answers at once. */
export interface MemoryRateLimiter extends RateLimiter {
  consume(request: RateLimitRequest): RateLimitDecision;
}

/**
 * A fixed one-minute window per token and per IP, in memory. A request over either ceiling is refused and not
 * counted, so a client that backs off as told by `Retry-After` gets its full ceiling in the next window.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): MemoryRateLimiter {
  const ipLimit = options.ipPerMinute ?? 600;
  const now = options.now ?? Date.now;
  let window = -1;
  // Only the current window's counts are kept: the map is dropped when the window turns, so memory is bounded
  // by the number of distinct tokens and IPs seen in one minute.
  let counts = new Map<string, number>();

  return {
    consume({ tokenKey, tokenLimit, ip }) {
      const nowMs = now();
      const current = Math.floor(nowMs / WINDOW_MS);
      if (current !== window) {
        window = current;
        counts = new Map();
      }
      // Plain locals rather than small objects and closures: this runs on every request.
      const tokenCounter = tokenKey === null ? null : `t:${tokenKey}`;
      const ipCounter = `i:${normaliseIp(ip)}`;
      // Without a token only the IP's ceiling binds; a ceiling of 0 is none.
      const tokenCeiling = tokenCounter === null || tokenLimit <= 0 ? Number.POSITIVE_INFINITY : tokenLimit;
      const ipCeiling = ipLimit > 0 ? ipLimit : Number.POSITIVE_INFINITY;
      let tokenUsed = tokenCounter === null ? 0 : (counts.get(tokenCounter) ?? 0);
      let ipUsed = counts.get(ipCounter) ?? 0;
      const allowed = tokenUsed < tokenCeiling && ipUsed < ipCeiling;
      if (allowed) {
        tokenUsed += 1;
        ipUsed += 1;
        if (tokenCounter !== null) counts.set(tokenCounter, tokenUsed);
        counts.set(ipCounter, ipUsed);
      }
      const windowEnd = (current + 1) * WINDOW_MS;
      const reset = Math.ceil(windowEnd / 1000);
      if (tokenCeiling === Number.POSITIVE_INFINITY && ipCeiling === Number.POSITIVE_INFINITY) {
        return { allowed: true, limit: UNLIMITED, remaining: UNLIMITED, reset, retryAfter: null, scope: 'token' };
      }
      const tokenLeft = Math.max(0, tokenCeiling - tokenUsed);
      const ipLeft = Math.max(0, ipCeiling - ipUsed);
      // The IP binds when it has less left, or when it is the ceiling that refused this request.
      const ipBinds = ipLeft < tokenLeft || (!allowed && ipUsed >= ipCeiling && tokenUsed < tokenCeiling);
      return {
        allowed,
        limit: ipBinds ? ipCeiling : tokenCeiling,
        remaining: ipBinds ? ipLeft : tokenLeft,
        reset,
        retryAfter: allowed ? null : Math.max(1, Math.ceil((windowEnd - nowMs) / 1000)),
        scope: ipBinds ? 'ip' : 'token',
      };
    },
  };
}

/**
 * The D5 headers for a decision: limit and remaining, reset and Retry-After on a refusal; none at all when no
 * ceiling applies (an {@link UNLIMITED} limit), since a number there would promise a ceiling that does not exist.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  if (decision.allowed && decision.limit === UNLIMITED) return {};
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
  };
  if (!decision.allowed) {
    headers['x-ratelimit-reset'] = String(decision.reset);
    headers['retry-after'] = String(decision.retryAfter ?? 1);
  }
  return headers;
}
