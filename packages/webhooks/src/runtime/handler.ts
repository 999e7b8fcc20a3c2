// Copied by gen-card-api from templates/webhooks/handler.ts. Do not edit: change the template and run the generator.
import { createDispatcher, type WebhookHandler, type WebhookHandlerOptions } from './dispatcher.js';
import { constructEvent } from './signature.js';
import type { WebhookEvent } from './types.js';

/**
 * Creates a typed webhook dispatcher (Node.js verification path): verifies each delivery,
 * drops redeliveries by `event_id`, runs the handlers registered with `.on()` and tells the
 * adapter which status to answer (2xx handled or duplicate, 400 rejected, 500 handler failed).
 *
 * @example
 * const webhooks = createWebhookHandler<CardApiEvent>({
 *   secrets: process.env.WEBHOOK_SECRET!,
 *   onUnknownEvent: (event) => log.info('unhandled webhook', event.event),
 * })
 *   .on('order.completed', (e) => markDone(e.data.order_uuid))
 *   .on('card.transaction.*', (e) => upsert(e.data.transaction));
 * http.createServer(toNodeHandler(webhooks)).listen(3000);
 */
export function createWebhookHandler<E extends WebhookEvent = WebhookEvent>(options: WebhookHandlerOptions<E>): WebhookHandler<E> {
  return createDispatcher<E>(constructEvent, options);
}
