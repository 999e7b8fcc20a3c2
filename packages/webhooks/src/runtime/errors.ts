// Copied by gen-card-api from templates/webhooks/errors.ts. Do not edit: change the template and run the generator.
/**
 * Why a delivery was rejected. Stable strings: adapters put them in the 400 body
 * and callers may branch on them.
 */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'payload_not_raw'
  | 'invalid_json';

/**
 * Thrown by `constructEvent` / `constructEventAsync` when a delivery cannot be trusted or read.
 * The message never contains the signing secret, and never the body.
 *
 * @example
 * try { constructEvent(body, header, secret) } catch (e) {
 *   if (e instanceof WebhookVerificationError) res.status(400).send(e.reason)
 * }
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  /** Machine-readable cause of the rejection. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** Explains how to hand over the raw body in each runtime; shared by every path that refuses a parsed body. */
export const RAW_BODY_HELP =
  'The signature covers the exact request bytes, so pass the raw body (string, Buffer/Uint8Array or ArrayBuffer), not a parsed object. ' +
  "Express: express.raw({ type: 'application/json' }) on the webhook route, before any express.json(). " +
  "Fastify: a content-type parser with parseAs: 'buffer'. " +
  'Fetch-style runtimes (Deno, Bun, workers): await request.text() or request.arrayBuffer().';

/** The one rejection both verification paths share when no signature matches. */
export const noMatchingSignature = () =>
  new WebhookVerificationError(
    'no_matching_signature',
    'No v1 signature matches the body: check the endpoint secret, and pass the body exactly as received (not re-serialised JSON)',
  );
