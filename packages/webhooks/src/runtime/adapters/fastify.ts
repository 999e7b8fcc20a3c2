// Copied by gen-card-api from templates/webhooks/adapters/fastify.ts. Do not edit: change the template and run the generator.
import type { WebhookHandler } from '../dispatcher.js';
import type { WebhookEvent } from '../types.js';
import { headerValue, resultBody } from './http.js';

/** The subset of a Fastify reply the route writes. */
export interface FastifyReplyLike {
  code(statusCode: number): FastifyReplyLike;
  header(key: string, value: string): FastifyReplyLike;
  send(payload?: string): FastifyReplyLike;
}

/** The subset of a Fastify instance the plugin uses; structural so that the runtime does not depend on fastify. */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: unknown, body: Uint8Array, done: (error: Error | null, body?: Uint8Array) => void) => void,
  ): void;
  post(
    path: string,
    handler: (request: { body: unknown; headers: Record<string, string | string[] | undefined> }, reply: FastifyReplyLike) => Promise<unknown>,
  ): unknown;
}

/** Options of `fastifyWebhookPlugin`. */
export interface FastifyWebhookOptions {
  /** Route path, relative to the plugin's prefix. Default `'/'`, so `register(plugin, { prefix: '/webhooks' })` works. */
  path?: string;
  /** Largest body in bytes; Fastify answers 413 above it. Default 1 MiB. */
  bodyLimit?: number;
}

/**
 * A Fastify plugin that serves the webhook route. Inside its own encapsulated context it replaces every
 * content-type parser with one that keeps the body as a Buffer (`parseAs: 'buffer'`), so the signature is
 * checked over the exact bytes while the rest of the app keeps Fastify's JSON parsing.
 * Do not wrap it with `fastify-plugin`: that would leak the raw parser to the whole app.
 *
 * @example
 * await app.register(fastifyWebhookPlugin(webhooks), { prefix: '/webhooks' });
 */
export function fastifyWebhookPlugin<E extends WebhookEvent>(
  handler: WebhookHandler<E>,
  options: FastifyWebhookOptions = {},
): (instance: FastifyInstanceLike) => Promise<void> {
  const { path = '/', bodyLimit = 1_048_576 } = options;
  return async (instance) => {
    // Every media type, not just application/json: a charset parameter or a missing header must still verify.
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_request, body, done) => done(null, body));
    instance.post(path, async (request, reply) => {
      // Without any body Fastify leaves `body` undefined; an empty body then fails the signature, not as "not raw".
      const body = request.body === undefined ? '' : (request.body as Uint8Array);
      const result = await handler.handle(body, headerValue(request.headers['x-service-signature']));
      return reply.code(result.status).header('content-type', 'application/json').send(resultBody(result));
    });
  };
}
