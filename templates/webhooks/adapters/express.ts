import type { WebhookHandler } from '../dispatcher.js';
import type { WebhookEvent } from '../types.js';
import { headerValue } from './http.js';
import { type NodeAdapterOptions, type NodeRequestLike, type NodeResponseLike, readRawBody, send, streamConsumed, tooLarge, writeResult } from './node.js';

/** The subset of an Express request the middleware reads: a Node request plus the `body` a parser may have set. */
export interface ExpressRequestLike extends NodeRequestLike {
  body?: unknown;
}

/**
 * Express middleware (Express 4 and 5) that verifies and dispatches deliveries and answers them.
 *
 * It works with or without `express.raw()`: a Buffer or string `req.body` is used as is; when no body
 * parser ran it reads the stream itself. When `express.json()` already parsed the body the signature
 * cannot be checked any more, so it answers 400 `payload_not_raw` with the fix.
 *
 * @example
 * app.post('/webhooks', toExpressMiddleware(webhooks));
 * // or, next to other routes that use express.json():
 * app.post('/webhooks', express.raw({ type: 'application/json' }), toExpressMiddleware(webhooks));
 */
export function toExpressMiddleware<E extends WebhookEvent>(
  handler: WebhookHandler<E>,
  options: NodeAdapterOptions = {},
): (req: ExpressRequestLike, res: NodeResponseLike, next: (error?: unknown) => void) => Promise<void> {
  const limit = options.maxBodyBytes ?? 1_048_576;
  return async (req, res, next) => {
    try {
      let body: unknown = req.body;
      // Express 5 leaves `body` undefined without a parser; Express 4 and some parsers leave `{}` on an unread stream.
      const unread = body === undefined || (req.readableEnded === false && isEmptyObject(body));
      if (unread) {
        if (req.readableEnded) return send(res, 400, streamConsumed());
        body = await readRawBody(req, limit);
        if (body === undefined) return send(res, 413, tooLarge(limit));
      }
      // A parsed object goes through on purpose: verification refuses it with the payload_not_raw explanation.
      writeResult(res, await handler.handle(body as Uint8Array, headerValue(req.headers['x-service-signature'])));
    } catch (error) {
      next(error);
    }
  };
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return false;
  for (const _ in value) return false;
  return true;
}
