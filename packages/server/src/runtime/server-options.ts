// Copied by gen-card-api from templates/server/server-options.ts. Do not edit: change the template and run the generator.
/**
 * The Fastify server options an app that mounts `cardApi` should be created with. Some errors happen before
 * any plugin runs (the router cannot decode the URL, a path parameter is longer than the router allows, Node's
 * HTTP parser refuses the request), so Fastify answers them with its own body unless the app is told
 * otherwise; a plugin cannot change these app-level options. With them, every answer the server can shape has
 * the D2 body and an `X-Request-Id` (D36), and that id is Fastify's own request id: the `reqId` of every log
 * line Fastify writes for the request, from "incoming request" on, so that the id a client quotes finds its lines.
 *
 * @example
 * const app = Fastify({ logger: true, ...cardApiServerOptions() });
 * await app.register(cardApi, { prefix: '/api/v1', handlers, authenticate });
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, type ErrorBody } from './errors.js';

/**
 * Longest path parameter the router accepts. Fastify's default is 100 characters, which refuses a valid
 * 128-character id with its own 414; the request line is already bounded by Node's header limit (16 KiB by
 * default), so the router needs no tighter bound and the route's schema decides (a 422 naming the parameter).
 */
export const CARD_API_MAX_PARAM_LENGTH = 16_384;

/** The default request id: `req_` and 32 hex digits. */
export function newRequestId(): string {
  return `req_${randomUUID().replace(/-/g, '')}`;
}

export interface CardApiServerOptionsInput {
  /** Makes the id of every request (Fastify's `request.id`, `X-Request-Id`, `request_id`); default {@link newRequestId}. */
  requestId?: () => string;
  /** Longest path parameter; default {@link CARD_API_MAX_PARAM_LENGTH}. */
  maxParamLength?: number;
}

/** The subset of Fastify's server options that {@link cardApiServerOptions} returns. */
export interface CardApiServerOptions {
  genReqId: (req: IncomingMessage) => string;
  routerOptions: { maxParamLength: number };
  frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;
  clientErrorHandler: (error: ConnectionError, socket: Socket) => void;
}

/** The request-id generators {@link cardApiServerOptions} made: an app using one needs no other in `cardApi`. */
const serverIdGenerators = new WeakSet<(req: IncomingMessage) => string>();

/** Whether `generator` (a Fastify instance's `genReqId`) is one that {@link cardApiServerOptions} made. */
export function isCardApiRequestIdGenerator(generator: unknown): boolean {
  return typeof generator === 'function' && serverIdGenerators.has(generator as (req: IncomingMessage) => string);
}

/** Status, code and message of an error raised by the router before any route ran. */
export function frameworkErrorAnswer(error: { code?: string }): { status: number; code: string; message: string; fields?: Record<string, string[]> } {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      // The router cannot decode the path, so it cannot tell which route, if any, it names: like any path no
      // route takes, a 404 (every operation with a path parameter documents it).
      return { status: 404, code: 'api.not_found', message: 'No route: the URL is not valid percent-encoding.' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 422, code: 'validation.failed', message: 'The request is invalid.', fields: { path: ['A path parameter is too long.'] } };
    default:
      return { status: 500, code: 'api.internal_error', message: 'An unexpected error occurred.' };
  }
}

/** Status, code and message for an error Node's HTTP parser raised on a connection. */
export function clientErrorAnswer(error: { code?: string }): { status: number; code: string; message: string } {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, code: 'validation.failed', message: 'The request headers are too large.' };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'validation.failed', message: 'The request was not received in time.' };
  return { status: 400, code: 'validation.failed', message: 'The request is not valid HTTP.' };
}

/** The raw HTTP/1.1 response for a refused connection: D2 body, `X-Request-Id`, connection closed. */
export function rawErrorResponse(status: number, body: ErrorBody): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `X-Request-Id: ${body.error.request_id ?? ''}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/**
 * Fastify server options for an app serving `cardApi`: `genReqId` so that Fastify's request id (the `reqId` of its
 * log lines) is the `X-Request-Id` the client sees, a router that accepts long path parameters (the schema
 * refuses them with a 422 instead), `frameworkErrors` that answers a URL the router cannot decode with 404
 * `api.not_found` in the D2 shape, and a `clientErrorHandler` that answers what Node's parser refuses (oversized headers 431,
 * malformed requests 400) in the D2 shape with an `X-Request-Id`.
 */
export function cardApiServerOptions(options: CardApiServerOptionsInput = {}): CardApiServerOptions {
  const makeId = options.requestId ?? newRequestId;
  const genReqId = (): string => makeId();
  serverIdGenerators.add(genReqId);
  return {
    genReqId,
    routerOptions: { maxParamLength: options.maxParamLength ?? CARD_API_MAX_PARAM_LENGTH },
    frameworkErrors(error, request, reply) {
      const answer = frameworkErrorAnswer(error);
      const id = request.id;
      if (answer.status >= 500) request.log.error({ err: error }, 'card-api: framework error');
      void reply.code(answer.status).header('x-request-id', id).send(errorBody(answer.code, answer.message, id, answer.fields));
    },
    clientErrorHandler(error, socket) {
      // As Node's own handler: nothing to answer on a reset or destroyed connection.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const answer = clientErrorAnswer(error);
      if (socket.writable) socket.write(rawErrorResponse(answer.status, errorBody(answer.code, answer.message, makeId())));
      socket.destroy(error);
    },
  };
}
