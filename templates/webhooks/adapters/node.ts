import type { WebhookHandler, WebhookResult } from '../dispatcher.js';
import { RAW_BODY_HELP } from '../errors.js';
import type { WebhookEvent } from '../types.js';
import { HANDLER_FAILED, headerValue, resultBody } from './http.js';

/** The subset of `http.IncomingMessage` the adapters read. */
export interface NodeRequestLike {
  headers: Record<string, string | string[] | undefined>;
  readableEnded?: boolean;
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

/** Reads the whole request as bytes, untouched; `undefined` when it exceeds the limit. */
export function readRawBody(req: NodeRequestLike, maxBodyBytes: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Uint8Array | string) => {
      if (done) return;
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      size += bytes.byteLength;
      if (size > maxBodyBytes) {
        done = true;
        chunks.length = 0;
        resolve(undefined);
        // Keep draining so the 413 can be written on a healthy socket.
        req.resume?.();
        return;
      }
      chunks.push(bytes);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    req.on('error', (error: unknown) => {
      if (!done) reject(error);
      done = true;
    });
  });
}

/** Writes a dispatcher result as an HTTP response. */
export function writeResult(res: NodeResponseLike, result: WebhookResult<WebhookEvent>): void {
  send(res, result.status, resultBody(result));
}

/** Sends a JSON answer with the given status. */
export function send(res: NodeResponseLike, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(body);
}

/** The 413 answer for a body over the limit. */
export const tooLarge = (limit: number) =>
  JSON.stringify({ error: { code: 'payload_too_large', message: `Webhook body exceeds ${limit} bytes` } });

/** The 400 answer for a stream another middleware already consumed. */
export const streamConsumed = () =>
  JSON.stringify({ error: { code: 'payload_not_raw', message: `The request body was already read by another middleware. ${RAW_BODY_HELP}` } });

/**
 * Wraps a handler as a `node:http` request listener: reads the exact body bytes, verifies,
 * dispatches and answers (2xx, 400 with the reason, 409, 413 or 500).
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(webhooks)).listen(3000);
 */
export function toNodeHandler<E extends WebhookEvent>(
  handler: WebhookHandler<E>,
  options: NodeAdapterOptions = {},
): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  const limit = options.maxBodyBytes ?? 1_048_576;
  return async (req, res) => {
    let result;
    try {
      const body = await readRawBody(req, limit);
      if (body === undefined) return send(res, 413, tooLarge(limit));
      result = await handler.handle(body, headerValue(req.headers['x-service-signature']));
    } catch {
      // Only a broken stream or a broken dedupe store gets here; a non-2xx makes the service retry.
      if (!res.headersSent) send(res, 500, HANDLER_FAILED);
      return;
    }
    writeResult(res, result);
  };
}
