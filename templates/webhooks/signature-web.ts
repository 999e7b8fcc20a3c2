import { normalizeRawBody, parseEvent, secretList } from './envelope.js';
import { noMatchingSignature } from './errors.js';
import { checkTimestamp, parseSignatureHeader, timestampString } from './header.js';
import type { ConstructEventOptions, RawBody, WebCryptoKey, WebhookEvent, WebhookSecrets } from './types.js';

// Importing a key is the slow part of WebCrypto HMAC; secrets are few and long-lived, so keep them.
// Bounded so that a caller cycling through secrets cannot grow it without limit.
const keyCache = new Map<string, Promise<WebCryptoKey>>();
const KEY_CACHE_MAX = 64;
const encoder = new TextEncoder();
// ignoreBOM keeps a BOM in the text, so JSON.parse rejects it exactly as on the Node path.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function hmacKey(secret: string): Promise<WebCryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.delete(keyCache.keys().next().value as string);
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    // A rejected import must not poison the cache for later calls.
    key.catch(() => keyCache.delete(secret));
    keyCache.set(secret, key);
  }
  return key;
}

/** `<t>.` followed by the body bytes, in one buffer, encoding the prefix in place. */
function signedBytes(t: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(`${t}.${body}`);
  const out = new Uint8Array(t.length + 1 + body.byteLength);
  encoder.encodeInto(`${t}.`, out);
  out.set(body, t.length + 1);
  return out;
}

function hexToBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Constant-time equality of two 32-byte MACs: every byte is compared, whatever differs first. */
function sameMac(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * Verifies a delivery with WebCrypto (`globalThis.crypto.subtle`) and returns its parsed event.
 * Same checks and errors as `constructEvent`, for Deno, Bun, Cloudflare Workers and other edge
 * runtimes. One HMAC per secret over the body, compared in constant time with every `v1` of the header
 * (at most 16, see `parseSignatureHeader`), so the work does not grow with the number of entries.
 *
 * @example
 * export default {
 *   async fetch(request: Request, env: Env) {
 *     const event = await constructEventAsync<CardApiEvent>(await request.arrayBuffer(),
 *       request.headers.get('x-service-signature'), env.WEBHOOK_SECRET);
 *     return new Response(null, { status: 204 });
 *   },
 * };
 */
export async function constructEventAsync<E extends WebhookEvent = WebhookEvent>(
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secrets: WebhookSecrets,
  options: ConstructEventOptions = {},
): Promise<E> {
  const body = normalizeRawBody(rawBody);
  const keys = secretList(secrets);
  const { t, timestamp, signatures } = parseSignatureHeader(signatureHeader);
  checkTimestamp(timestamp, options.toleranceSec, options.now);
  const data = signedBytes(t, body);
  const given = signatures.map(hexToBytes);
  for (const secret of keys) {
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), data));
    let match = false;
    for (const sig of given) match = sameMac(expected, sig) || match;
    if (match) return parseEvent<E>(typeof body === 'string' ? body : decoder.decode(body));
  }
  throw noMatchingSignature();
}

/**
 * Signs a body with WebCrypto and returns the `X-Service-Signature` value; the async twin of `signPayload`.
 *
 * @param timestamp unix seconds; defaults to now.
 */
export async function signPayloadAsync(rawBody: RawBody, secret: string, options: { timestamp?: number } = {}): Promise<string> {
  const t = timestampString(options.timestamp);
  const body = normalizeRawBody(rawBody);
  secretList(secret);
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), signedBytes(t, body)));
  let hex = '';
  for (const b of sig) hex += HEX[b];
  return `t=${t},v1=${hex}`;
}
