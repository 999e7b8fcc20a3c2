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
}

export type Json = Record<string, any>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
