import { RAW_BODY_HELP, WebhookVerificationError } from './errors.js';
import type { RawBody, WebhookEvent } from './types.js';

/**
 * Brings an accepted raw body to a string or a byte view without copying.
 * Anything else (a parsed object, `undefined` because no body was read) is refused,
 * before the header is even looked at, because that mistake is the most common one.
 */
export function normalizeRawBody(rawBody: unknown): string | Uint8Array {
  if (typeof rawBody === 'string' || rawBody instanceof Uint8Array) return rawBody;
  if (ArrayBuffer.isView(rawBody)) return new Uint8Array(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  // toString tag instead of instanceof: ArrayBuffers from another realm (workers, vm) must pass too.
  if (Object.prototype.toString.call(rawBody) === '[object ArrayBuffer]') return new Uint8Array(rawBody as ArrayBuffer);
  const got = rawBody === null ? 'null' : typeof rawBody === 'object' ? 'an already-parsed object' : typeof rawBody;
  throw new WebhookVerificationError('payload_not_raw', `Webhook body is ${got}. ${RAW_BODY_HELP}`);
}

/**
 * Parses verified JSON text into an event. Only the shape the runtime relies on is checked
 * (an object with a string `event`); payload types are the generated union's business.
 * The JSON error text is not forwarded because V8 quotes the offending input in it.
 */
export function parseEvent<E extends WebhookEvent>(text: string): E {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WebhookVerificationError('invalid_json', 'Webhook body is correctly signed but is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || typeof (value as { event?: unknown }).event !== 'string') {
    throw new WebhookVerificationError('invalid_json', 'Webhook body is not an event envelope (an object with a string "event")');
  }
  return value as E;
}

/** How a value that is not a secret is named in an error: never its content, which may be a secret gone astray. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined (an unset environment variable reads as undefined)';
  if (value === null) return 'null';
  if (value === '') return 'an empty string (an environment variable set to nothing?)';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/**
 * The secrets to try, in order, as a non-empty list. A missing or blank secret is a configuration error, not a bad
 * delivery: a `TypeError` naming `name` (what the caller passed it as) and what it got, never a 400.
 */
export function secretList(secrets: unknown, name = 'The webhook signing secret'): readonly string[] {
  const fix = "pass the endpoint's signing secret (whsec_...), or a non-empty list of them during a rotation";
  if (Array.isArray(secrets)) {
    if (secrets.length === 0) throw new TypeError(`${name} is an empty list: ${fix}`);
    const bad = secrets.findIndex((s) => typeof s !== 'string' || s.length === 0);
    if (bad !== -1) throw new TypeError(`${name} has no secret at index ${bad}: it is ${kindOf(secrets[bad])}; ${fix}`);
    return secrets as readonly string[];
  }
  if (typeof secrets !== 'string' || secrets.length === 0) throw new TypeError(`${name} is missing: it is ${kindOf(secrets)}; ${fix}`);
  return [secrets];
}
