/** What every phase of a verify run shares. */
import type { CheckRecorder } from './checks.js';
import type { Probe } from './http.js';
import type { VerifySpec } from './spec.js';

export interface VerifyContext {
  spec: VerifySpec;
  probe: Probe;
  checks: CheckRecorder;
  /** Items per page when walking lists. */
  perPage: number;
  /** Most pages read per list. */
  maxPages: number;
  /** Most listed items fetched by uuid per list. */
  maxItems: number;
  /** Progress lines (stderr in the CLI); never a token or a secret. */
  log: (line: string) => void;
  /** Aborted when the run passes its deadline: every wait and request of the run ends then. */
  signal: AbortSignal;
}

export type Json = Record<string, any>;

/** Why a run ended before its checks did: the server at the transport level, or what the run needs to start. */
export type StopReason = 'unreachable' | 'timeout' | 'too-large' | 'too-deep' | 'rate-limited' | 'deadline' | 'aborted' | 'spec' | 'receiver' | 'error';

/**
 * The run cannot go on: no answer, an answer verify will not read (too large, too deep, endless), a wait it will
 * not make, or a start it cannot make. Not a failed check: the report names it and the CLI exits 2, not 1.
 */
export class VerifyStopped extends Error {
  override readonly name = 'VerifyStopped';
  constructor(
    readonly reason: StopReason,
    message: string,
  ) {
    super(message);
  }
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts (the run's deadline). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Whether JSON text nests objects and arrays deeper than `max`, found by one pass over the text (strings skipped)
 * before anything parses it: what the checks do with a body (compare, canonicalise, validate) recurses per level.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Deep equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => jsonEqual(v, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as Json)[k], (b as Json)[k]));
}

/** JSON with object keys sorted, for comparing content regardless of key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Json)[k])}`).join(',')}}`;
  return JSON.stringify(value);
}
