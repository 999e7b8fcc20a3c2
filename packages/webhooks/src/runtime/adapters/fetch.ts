// Copied by gen-card-api from templates/webhooks/adapters/fetch.ts. Do not edit: change the template and run the generator.
import type { WebhookHandler } from '../dispatcher.js';
import type { WebhookEvent } from '../types.js';
import { resultBody } from './http.js';

/**
 * Wraps a handler as a fetch-style `(request) => Response` for Deno, Bun, Cloudflare Workers, Next.js
 * route handlers and the like. The body is read with `request.arrayBuffer()`, so it is never re-encoded.
 *
 * @example
 * Deno.serve(toFetchHandler(webhooks));
 * export const POST = toFetchHandler(webhooks); // Next.js app router
 */
export function toFetchHandler<E extends WebhookEvent>(handler: WebhookHandler<E>): (request: Request) => Promise<Response> {
  return async (request) => {
    const result = await handler.handle(await request.arrayBuffer(), request.headers.get('x-service-signature'));
    return new Response(resultBody(result), { status: result.status, headers: { 'content-type': 'application/json' } });
  };
}
