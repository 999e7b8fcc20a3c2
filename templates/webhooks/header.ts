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
  new WebhookVerificationError('malformed_header', `X-Service-Signature is malformed: ${detail}; expected "t=<unix seconds>,v1=<hex>"`);

// Space and tab: the only whitespace a header value can carry.
const isWs = (c: number) => c === 32 || c === 9;

function isHex64(s: string): boolean {
  if (s.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = s.charCodeAt(i) | 32; // folds A-F onto a-f; digits are unchanged
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/**
 * Parses `t=<unix_ts>,v1=<hex>[,v1=<hex>...]` (contract section 6.2). Unknown schemes are ignored
 * so that a future `v2` can be sent next to `v1`; spaces around items and `=` are tolerated.
 * Hand-rolled instead of split/regex because it runs on every delivery.
 *
 * @throws {WebhookVerificationError} `missing_header` or `malformed_header`.
 */
export function parseSignatureHeader(header: string | null | undefined): ParsedSignatureHeader {
  if (header == null || header === '') {
    throw new WebhookVerificationError('missing_header', 'The X-Service-Signature header is missing or empty');
  }
  if (typeof header !== 'string') throw malformed('not a string');
  let t: string | undefined;
  const signatures: string[] = [];
  let sawV1 = false;
  const len = header.length;
  let start = 0;
  while (start <= len) {
    let end = header.indexOf(',', start);
    if (end === -1) end = len;
    let a = start;
    let b = end;
    while (a < b && isWs(header.charCodeAt(a))) a++;
    while (b > a && isWs(header.charCodeAt(b - 1))) b--;
    if (a < b) {
      const eq = header.indexOf('=', a);
      if (eq === -1 || eq >= b) throw malformed('every item must be key=value');
      let keyEnd = eq;
      while (keyEnd > a && isWs(header.charCodeAt(keyEnd - 1))) keyEnd--;
      let v = eq + 1;
      while (v < b && isWs(header.charCodeAt(v))) v++;
      const key = header.slice(a, keyEnd);
      if (key === 't') {
        if (t !== undefined) throw malformed('t appears twice');
        t = header.slice(v, b);
      } else if (key === 'v1') {
        sawV1 = true;
        const sig = header.slice(v, b);
        if (isHex64(sig)) signatures.push(sig);
      }
    }
    start = end + 1;
  }
  if (t === undefined) throw malformed('no t= timestamp');
  if (t.length === 0 || t.length > 15) throw malformed('t is not a unix timestamp');
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 48 || c > 57) throw malformed('t is not a unix timestamp');
  }
  if (!sawV1) throw malformed('no v1= signature');
  if (signatures.length === 0) throw malformed('v1 signatures must be 64 hex characters');
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
