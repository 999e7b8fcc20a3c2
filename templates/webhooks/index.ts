/**
 * Node.js entry of the webhook runtime: verification with `node:crypto`, the typed dispatcher,
 * the node:http / Express / Fastify adapters and the transaction lifeline.
 * Card-secret decryption lives in `secrets.ts` (its own entry, the only one that needs `jose`);
 * the WebCrypto flavour of this entry is `web.ts`.
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
export { createMemoryDedupeStore, type DedupeClaim, type DedupeStore, type MemoryDedupeOptions } from './dedupe.js';
export { toNodeHandler, type NodeAdapterOptions, type NodeRequestLike, type NodeResponseLike } from './adapters/node.js';
export { toExpressMiddleware, type ExpressRequestLike } from './adapters/express.js';
export { fastifyWebhookPlugin, type FastifyInstanceLike, type FastifyReplyLike, type FastifyWebhookOptions } from './adapters/fastify.js';
export { toFetchHandler } from './adapters/fetch.js';
export {
  emptyLifeline,
  purchases,
  reduceLifeline,
  upsertTransaction,
  type LifelineEntry,
  type LifelineState,
  type Purchase,
  type PurchaseState,
  type TransactionRowLike,
} from './lifeline.js';
