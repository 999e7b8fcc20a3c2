// Copied by gen-card-api from templates/server/fallbacks.ts. Do not edit: change the template and run the generator.
/**
 * Answers for requests no operation takes: an unknown path, or a known path with a method it does not have
 * (`QUERY /ping`, `DELETE /ping`). Both are `404 api.not_found` in the D2 shape (D6) with an `X-Request-Id`;
 * when the path exists with other methods, an `Allow` header lists them (D36). Any error raised while such a
 * request is read (Fastify refuses a `QUERY` without a content type, a body that is not JSON) gets the same
 * answer: the request names no operation, so nothing about its body matters.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, isApiError } from './errors.js';

/** A route as the fallbacks see it: a method and a full Fastify URL pattern (`/api/v1/cards/:uuid`). */
export interface FallbackRoute {
  readonly method: string;
  readonly url: string;
}

export interface Fallbacks {
  /** Methods the path has, HEAD included with GET; empty for an unknown path. */
  allowedMethods(path: string): string[];
  /** A `setNotFoundHandler` handler. */
  notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** A `setErrorHandler` handler for a context without operations (not-found and documentation routes). */
  error(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

function pattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Builds the not-found and error handlers for the given routes. `requestId` names the request when no hook
 * has set `X-Request-Id` yet; by default it is Fastify's `request.id` (the `reqId` of the request's log lines),
 * which is a `req_` id in an app created with `cardApiServerOptions()`.
 */
export function createFallbacks(routes: readonly FallbackRoute[], requestId: (request: FastifyRequest) => string = (request) => request.id): Fallbacks {
  const compiled = routes.map((route) => ({ method: route.method.toUpperCase(), test: pattern(route.url) }));
  const allowedMethods = (path: string): string[] => {
    const methods = new Set<string>();
    for (const route of compiled) {
      if (!route.test.test(path)) continue;
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
    }
    return [...methods].sort();
  };
  const idOf = (request: FastifyRequest, reply: FastifyReply): string => {
    const existing = reply.getHeader('x-request-id');
    if (typeof existing === 'string') return existing;
    const id = requestId(request);
    reply.header('x-request-id', id);
    return id;
  };
  const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods(path);
    if (allowed.length > 0) reply.header('allow', allowed.join(', '));
    const message = allowed.length > 0 ? `No route ${request.method} ${path}; this path allows ${allowed.join(', ')}.` : `No route ${request.method} ${path}.`;
    return reply.code(404).send(errorBody('api.not_found', message, idOf(request, reply)));
  };
  return {
    allowedMethods,
    notFound,
    error(error, request, reply) {
      if (request.is404) return notFound(request, reply);
      if (isApiError(error)) return reply.code(error.status).headers({ ...error.headers }).send(error.toBody(idOf(request, reply)));
      request.log.error({ err: error }, 'card-api: unhandled error');
      return reply.code(500).send(errorBody('api.internal_error', 'An unexpected error occurred.', idOf(request, reply)));
    },
  };
}
