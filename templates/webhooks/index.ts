/**
 * Node.js main entry of the webhook runtime: verification with `node:crypto`, signing, the typed
 * dispatcher and its dedupe store. Separate entries keep this one small (3 kB gzip budget):
 * `adapters.ts` (node:http, Express, Fastify), `web.ts` (the WebCrypto flavour of this entry, with a
 * fetch adapter), `secrets.ts` (card-secret JWE, the only one that needs `jose`) and `lifeline.ts`
 * (the transaction lifeline reducer, already an entry file).
 */
export { constructEvent, signPayload } from './signature.js';
export { parseSignatureHeader, type ParsedSignatureHeader } from './header.js';
export { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
export type {
  ConstructEventOptions,
  EventForPattern,
  EventPattern,
  RawBody,
  WebhookEvent,
  WebhookSecrets,
  WildcardPattern,
} from './types.js';
export { createWebhookHandler } from './handler.js';
export type { OrderEvent, OrderEventSource, WebhookHandler, WebhookHandlerOptions, WebhookResult } from './dispatcher.js';
export {
  createMemoryDedupeStore,
  DEDUPE_MAX_ENTRIES,
  DEDUPE_WINDOW_MS,
  dedupeKey,
  type DedupeClaim,
  type DedupeKey,
  type DedupeStore,
  type MemoryDedupeOptions,
} from './dedupe.js';
