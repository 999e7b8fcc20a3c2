import { WebhookVerificationError } from './errors.js';

/** The parts of an `X-Service-Signature` header that verification needs. */
export interface ParsedSignatureHeader {
  /** `t` exactly as sent: the signed string starts with these characters, leading zeros included. */
  t: string;
  /** `t` as unix seconds. */
  timestamp: number;
  /** Every well-formed `v1` value (64 hex characters), in header order. */
  signatures: string[];
}

const malformed = (detail: string) =>
  new WebhookVerificationError('malformed_header', `X-Service-Signature is malformed (${detail}); expected "t=<unix seconds>,v1=<hex>"`);

const HEX64 = /^[0-9a-f]{64}$/i;

/**
 * Longest `X-Service-Signature` accepted, in characters, checked before the header is split. A real one is short:
 * `t=` and ten digits, then `,v1=` and 64 hex characters per signature, so the most this parser accepts
 * ({@link MAX_SIGNATURES} of them, one per secret during a rotation) is 1,105 characters. 4,096 leaves room for a
 * few entries of a future scheme (`v2=...`, which is skipped) and whitespace around items. Without a cap, parsing
 * costs time in proportion to the header: a 10 MB header took 3.2 s of CPU before any HMAC, and the fetch adapter
 * has no platform limit on header size to lean on (node:http stops at 16 KiB for all headers together).
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 4096;

/**
 * Most `v1` entries accepted in one header. The service sends one, a few during a secret rotation; more is
 * not a delivery but an attempt to make the receiver compare many candidates.
 */
export const MAX_SIGNATURES = 16;
const DIGITS = /^\d{1,15}$/;

/**
 * Parses `t=<unix_ts>,v1=<hex>[,v1=<hex>...]` (contract section 6.2). Unknown schemes are ignored
 * so that a future `v2` can be sent next to `v1`; whitespace around items and `=` is tolerated.
 * A header longer than {@link MAX_SIGNATURE_HEADER_LENGTH} is refused before it is split; then one split and two
 * anchored, non-backtracking regex tests.
 *
 * @throws {WebhookVerificationError} `missing_header` or `malformed_header`.
 */
export function parseSignatureHeader(header: string | null | undefined): ParsedSignatureHeader {
  if (header == null || header === '') {
    throw new WebhookVerificationError('missing_header', 'The X-Service-Signature header is missing or empty');
  }
  if (typeof header !== 'string') throw malformed('not a string');
  if (header.length > MAX_SIGNATURE_HEADER_LENGTH) throw malformed(`${header.length} characters, more than the ${MAX_SIGNATURE_HEADER_LENGTH} a header of ${MAX_SIGNATURES} signatures fits in`);
  let t: string | undefined;
  let sawV1 = false;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    if (eq === -1) {
      if (item.trim()) throw malformed('an item is not key=value');
      continue;
    }
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') {
      if (t !== undefined) throw malformed('t appears twice');
      t = value;
    } else if (key === 'v1') {
      sawV1 = true;
      if (HEX64.test(value)) {
        if (signatures.length === MAX_SIGNATURES) throw malformed(`more than ${MAX_SIGNATURES} v1 signatures`);
        signatures.push(value);
      }
    }
  }
  if (t === undefined || !DIGITS.test(t)) throw malformed('no unix timestamp t');
  if (!sawV1) throw malformed('no v1 signature');
  if (signatures.length === 0) throw malformed('v1 is not 64 hex characters');
  return { t, timestamp: Number(t), signatures };
}

/**
 * Rejects a timestamp further than `toleranceSec` from now, in the past (replay) or the future (clock skew).
 * Checked before any HMAC work so that replayed floods stay cheap.
 */
export function checkTimestamp(timestamp: number, toleranceSec = 300, now?: Date | number): void {
  const nowMs = now === undefined ? Date.now() : typeof now === 'number' ? now : now.getTime();
  const nowSec = Math.floor(nowMs / 1000);
  // Negated so that NaN (a bad `now` or tolerance) rejects instead of accepting.
  if (!(Math.abs(nowSec - timestamp) <= toleranceSec)) {
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `Signature timestamp ${timestamp} is more than ${toleranceSec} s away from now (${nowSec}); check the server clock, or this is a replay`,
    );
  }
}

/** The `t` to sign with: the given unix seconds or now, refusing values the header grammar cannot carry. */
export function timestampString(timestamp?: number): string {
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(t) || t < 0) throw new TypeError('timestamp must be a non-negative integer of unix seconds');
  return String(t);
}
