import type { WebhookHandler } from '../dispatcher.js';
import type { WebhookEvent } from '../types.js';
import { errorBody, resultBody } from './http.js';

/** Options of `toFetchHandler`. */
export interface FetchAdapterOptions {
  /** Largest body read, in bytes; a bigger one is answered 413, as the Node adapter does. Default 1 MiB. */
  maxBodyBytes?: number;
}

/**
 * The body's bytes, read chunk by chunk and abandoned as soon as they exceed `limit` (undefined then); a
 * `Content-Length` above the limit is refused before anything is read.
 */
async function readLimited(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

const json = { 'content-type': 'application/json' };

/**
 * Wraps a handler as a fetch-style `(request) => Response` for Deno, Bun, Cloudflare Workers, Next.js
 * route handlers and the like. The body is read as bytes, never re-encoded, up to `maxBodyBytes` (413 above).
 *
 * @example
 * Deno.serve(toFetchHandler(webhooks));
 * export const POST = toFetchHandler(webhooks); // Next.js app router
 */
export function toFetchHandler<E extends WebhookEvent>(handler: WebhookHandler<E>, options: FetchAdapterOptions = {}): (request: Request) => Promise<Response> {
  const limit = options.maxBodyBytes ?? 1_048_576;
  return async (request) => {
    const body = await readLimited(request, limit);
    if (body === undefined) return new Response(errorBody('payload_too_large', `Webhook body exceeds ${limit} bytes`), { status: 413, headers: json });
    const result = await handler.handle(body, request.headers.get('x-service-signature'));
    return new Response(resultBody(result), { status: result.status, headers: json });
  };
}
