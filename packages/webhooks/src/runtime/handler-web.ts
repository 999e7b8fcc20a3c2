// Copied by gen-card-api from templates/webhooks/handler-web.ts. Do not edit: change the template and run the generator.
import { createDispatcher, type WebhookHandler, type WebhookHandlerOptions } from './dispatcher.js';
import { constructEventAsync } from './signature-web.js';
import type { WebhookEvent } from './types.js';

/**
 * `createWebhookHandler` on the WebCrypto verification path, for runtimes without `node:crypto`.
 * Same options, same results; pair it with `toFetchHandler`.
 *
 * @example
 * const webhooks = createWebhookHandler<CardApiEvent>({ secrets: env.WEBHOOK_SECRET, onUnknownEvent: () => {} })
 *   .on('card.frozen', (e) => notify(e.data.card_uuid));
 * Deno.serve(toFetchHandler(webhooks));
 */
export function createWebhookHandler<E extends WebhookEvent = WebhookEvent>(options: WebhookHandlerOptions<E>): WebhookHandler<E> {
  return createDispatcher<E>(constructEventAsync, options);
}
