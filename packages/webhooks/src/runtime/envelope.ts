// Copied by gen-card-api from templates/webhooks/envelope.ts. Do not edit: change the template and run the generator.
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

/** The secrets to try, in order, as a non-empty list. A blank secret is a configuration error, not a bad delivery. */
export function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0 || list.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new TypeError('Webhook signing secret is missing: pass the endpoint secret (or a non-empty list of them)');
  }
  return list;
}
