// Copied by gen-card-api from templates/webhooks/web.ts. Do not edit: change the template and run the generator.
/**
 * WebCrypto entry of the webhook runtime, free of `node:` imports: for Deno, Bun, Cloudflare Workers
 * and other fetch-style runtimes. Same dispatcher as the Node entry; verification is async.
 */
export { constructEventAsync, signPayloadAsync } from './signature-web.js';
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
export { createWebhookHandler } from './handler-web.js';
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
export { toFetchHandler, type FetchAdapterOptions } from './adapters/fetch.js';
