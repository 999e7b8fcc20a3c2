// Copied by gen-card-api from templates/webhooks/signature.ts. Do not edit: change the template and run the generator.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { normalizeRawBody, parseEvent, secretList } from './envelope.js';
import { noMatchingSignature } from './errors.js';
import { checkTimestamp, parseSignatureHeader, timestampString } from './header.js';
import type { ConstructEventOptions, RawBody, WebhookEvent, WebhookSecrets } from './types.js';

function mac(secret: string, t: string, body: string | Uint8Array): Buffer {
  const h = createHmac('sha256', secret);
  // One update for strings (one UTF-8 encode); two for bytes so they are hashed in place, never re-encoded.
  return typeof body === 'string' ? h.update(`${t}.${body}`).digest() : h.update(`${t}.`).update(body).digest();
}

function text(body: string | Uint8Array): string {
  if (typeof body === 'string') return body;
  return (Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength)).toString('utf8');
}

/**
 * Verifies a delivery and returns its parsed event (Node.js, synchronous).
 *
 * Checks, in order: the body is raw, the header parses, |now - t| <= `toleranceSec`, and some `v1`
 * equals HMAC-SHA256(secret, `<t>.<raw body bytes>`) for some secret (constant-time comparison).
 *
 * @param rawBody the exact request body: string, Buffer/Uint8Array or ArrayBuffer.
 * @param signatureHeader the `X-Service-Signature` header value.
 * @param secrets the endpoint signing secret, or several during a rotation.
 * @throws {WebhookVerificationError} with a `reason` when the delivery must be rejected (answer 400).
 * @example
 * app.post('/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = constructEvent<CardApiEvent>(req.body, req.get('x-service-signature'), process.env.WEBHOOK_SECRET!);
 *   res.sendStatus(204);
 * });
 */
export function constructEvent<E extends WebhookEvent = WebhookEvent>(
  rawBody: RawBody,
  signatureHeader: string | null | undefined,
  secrets: WebhookSecrets,
  options: ConstructEventOptions = {},
): E {
  const body = normalizeRawBody(rawBody);
  const keys = secretList(secrets);
  const { t, timestamp, signatures } = parseSignatureHeader(signatureHeader);
  checkTimestamp(timestamp, options.toleranceSec, options.now);
  const given = signatures.map((s) => Buffer.from(s, 'hex'));
  for (const secret of keys) {
    const expected = mac(secret, t, body);
    for (const sig of given) if (timingSafeEqual(expected, sig)) return parseEvent<E>(text(body));
  }
  throw noMatchingSignature();
}

/**
 * Signs a body the way the service does and returns the `X-Service-Signature` value
 * (Node.js, synchronous). For tests, local tools and the sandbox.
 *
 * @param timestamp unix seconds; defaults to now.
 * @example
 * const header = signPayload(JSON.stringify(event), secret);
 * await fetch(url, { method: 'POST', body, headers: { 'x-service-signature': header } });
 */
export function signPayload(rawBody: RawBody, secret: string, options: { timestamp?: number } = {}): string {
  const t = timestampString(options.timestamp);
  const body = normalizeRawBody(rawBody);
  secretList(secret);
  return `t=${t},v1=${mac(secret, t, body).toString('hex')}`;
}
