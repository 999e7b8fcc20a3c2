// Copied by gen-card-api from templates/webhooks/adapters/node.ts. Do not edit: change the template and run the generator.
import type { WebhookHandler } from '../dispatcher.js';
import { RAW_BODY_HELP } from '../errors.js';
import type { WebhookEvent } from '../types.js';
import { errorBody, HANDLER_FAILED, headerValue, resultBody } from './http.js';

/** The subset of `http.IncomingMessage` (and of an Express request, with `body`) the adapters read. */
export interface NodeRequestLike {
  headers: Record<string, string | string[] | undefined>;
  readableEnded?: boolean;
  /** Set by Express body parsers, if any ran. */
  body?: unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  resume?(): unknown;
}

/** The subset of `http.ServerResponse` the adapters write. */
export interface NodeResponseLike {
  statusCode: number;
  headersSent?: boolean;
  setHeader(name: string, value: string | number): unknown;
  end(body?: string): unknown;
}

/** Options of the Node and Express adapters. */
export interface NodeAdapterOptions {
  /** Largest body read, in bytes; a bigger one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
}

/** A `node:http` request listener that is also an Express middleware. */
export type NodeWebhookListener = (req: NodeRequestLike, res: NodeResponseLike, next?: (error?: unknown) => void) => Promise<void>;

/** Reads the whole request as bytes, untouched; `undefined` when it exceeds the limit. */
function readRawBody(req: NodeRequestLike, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    // Chunks are Buffers: nothing here calls setEncoding, and a stream that did would already have broken the bytes.
    req.on('data', (bytes: Uint8Array) => {
      if (done) return;
      size += bytes.byteLength;
      if (size > limit) {
        done = true;
        resolve(undefined);
        // Keep draining so the 413 can be written on a healthy socket.
        req.resume?.();
      } else chunks.push(bytes);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks, size));
      done = true;
    });
    req.on('error', (error: unknown) => {
      if (!done) reject(error);
      done = true;
    });
  });
}

function send(res: NodeResponseLike, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(body);
}

/**
 * Wraps a handler as a `node:http` request listener that is also an Express (4 and 5) middleware:
 * reads the exact body bytes, verifies, dispatches and answers (2xx, 400 with the reason, 409, 413 or 500).
 *
 * Under Express it works with or without `express.raw()`: a Buffer or string `req.body` is used as is, and
 * when no parser ran it reads the stream itself. When `express.json()` already parsed the body the
 * signature cannot be checked any more, so it answers 400 `payload_not_raw` with the fix.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(webhooks)).listen(3000);
 * app.post('/webhooks', toExpressMiddleware(webhooks)); // Express: the same function
 */
export function toNodeHandler<E extends WebhookEvent>(handler: WebhookHandler<E>, options: NodeAdapterOptions = {}): NodeWebhookListener {
  const limit = options.maxBodyBytes ?? 1_048_576;
  return async (req, res, next) => {
    try {
      let body = req.body;
      // Express 5 leaves `body` undefined without a parser; Express 4's parsers leave `{}` on a stream they skipped.
      if (body === undefined || (req.readableEnded === false && isEmptyObject(body))) {
        if (req.readableEnded) {
          return send(res, 400, errorBody('payload_not_raw', `The request body was already read by another middleware. ${RAW_BODY_HELP}`));
        }
        body = await readRawBody(req, limit);
        if (body === undefined) return send(res, 413, errorBody('payload_too_large', `Webhook body exceeds ${limit} bytes`));
      }
      // A parsed object goes through on purpose: verification refuses it with the payload_not_raw explanation.
      const result = await handler.handle(body as Uint8Array, headerValue(req.headers['x-service-signature']));
      send(res, result.status, resultBody(result));
    } catch (error) {
      // Only a broken stream or a broken dedupe store gets here; any non-2xx makes the service retry.
      if (next) next(error);
      else if (!res.headersSent) send(res, 500, HANDLER_FAILED);
    }
  };
}

/**
 * Express middleware for the webhook route: the same function as `toNodeHandler`, named for discoverability.
 *
 * @example
 * app.post('/webhooks', toExpressMiddleware(webhooks));
 * // next to routes that use express.json(), either mount it first or give it express.raw():
 * app.post('/webhooks', express.raw({ type: 'application/json' }), toExpressMiddleware(webhooks));
 */
export const toExpressMiddleware: <E extends WebhookEvent>(handler: WebhookHandler<E>, options?: NodeAdapterOptions) => NodeWebhookListener = toNodeHandler;

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return false;
  for (const _ in value) return false;
  return true;
}
