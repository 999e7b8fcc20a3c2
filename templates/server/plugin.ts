/**
 * The Fastify plugin behind `cardApi`: registers every operation of the route table with its JSON Schemas,
 * runs the access checks of contract section 5 / D16 and the rate limit (D5) before anything is parsed, and
 * answers every error in the D2 shape with an `X-Request-Id`. The generated package binds it to the spec's
 * route table and handler types (`plugin.gen.ts`); this file knows nothing of a particular spec.
 */
import { createHash } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { bearerToken, checkAccess } from './auth.js';
import { registerDocs, type DocsOptions } from './docs.js';
import { createFallbacks, type FallbackRoute } from './fallbacks.js';
import { ApiError, errorBody, isApiError, type ErrorBody, type FieldErrors } from './errors.js';
import { createMemoryRateLimiter, rateLimitHeaders, type RateLimiter } from './rate-limit.js';
import { CARD_API_MAX_PARAM_LENGTH, isCardApiRequestIdGenerator, newRequestId } from './server-options.js';
import type { ApiDefinition, AuthResult, RouteDefinition } from './types.js';
import { createSchemaValidators, splitCommaSeparated, toFieldErrors, type RequestPart } from './validation.js';

export interface RateLimitOptions {
  /** Ceiling of a token without its own `rateLimitPerMinute`. Default 60, Laravel's API throttle. */
  defaultTokenPerMinute?: number;
  /** Ceiling per IP per minute across tokens. Default 600. Ignored when `limiter` is given. */
  ipPerMinute?: number;
  /** Clock of the in-memory limiter (ms since the epoch). */
  now?: () => number;
  /** A shared store instead of the in-memory window. */
  limiter?: RateLimiter;
}

/** Options of `cardApi`. `prefix` is Fastify's own register option (`/api/v1`). */
export interface CardApiOptions<Handlers = unknown, Auth extends AuthResult = AuthResult> {
  /** One handler per operation, keyed by operationId. */
  handlers: Handlers;
  /**
   * Resolves a bearer token: null for an unknown token. A known token of an inactive workspace must still be
   * returned (with its workspace), so that the caller gets 403 `api.workspace_inactive` rather than 401 (D16).
   */
  authenticate: (token: string, request: FastifyRequest) => Auth | null | Promise<Auth | null>;
  prefix?: string;
  /** Serve `/openapi.yaml` and `/docs` (default true); an object also sets the `servers` entry of the served document. */
  docs?: boolean | DocsOptions;
  /** Per-minute ceilings, or false to switch rate limiting off. */
  rateLimit?: RateLimitOptions | false;
  /**
   * What to do when a handler's body does not match the spec's response schema: `error` (default) logs and
   * answers 500 `api.internal_error`; `log` logs and sends it; `off` skips the check (fastest).
   *
   * A handler that returns a deeply frozen body (`Object.freeze` at every level, such as a cached read shared
   * until its data changes) gets it checked and serialized once per route and status: sent again, the same
   * object costs neither. It still goes through Fastify's send and hooks.
   */
  responseValidation?: 'error' | 'log' | 'off';
  /**
   * Makes the id of each request this plugin serves: Fastify's `request.id` (the `reqId` of every log line of the
   * request), sent as `X-Request-Id` and in every error body's `request_id`. Default: the app's own, when the app
   * was created with `cardApiServerOptions()` (pass `requestId` there to choose the ids of the whole app), else
   * `req_` + 32 random hex digits.
   */
  requestId?: () => string;
  /**
   * Answer unknown routes under the prefix, and known paths with a method they do not have, with 404
   * `api.not_found` and an `Allow` header when the path exists (D36). Default true.
   */
  notFound?: boolean;
}

/** The request as the plugin hands it to any handler; the generated types narrow each field. */
interface RuntimeInput {
  params: unknown;
  query: unknown;
  headers: unknown;
  body: unknown;
  auth: AuthResult;
  requestId: string;
  request: FastifyRequest;
}
type RuntimeHandler = (input: RuntimeInput) => unknown;

/** The request decoration holding {@link RequestState}. */
const STATE = 'cardApiState';

/** What the plugin knows of a request: set by its first hook, completed by the route's access check. */
interface RequestState {
  requestId: string;
  route: RouteDefinition | undefined;
  auth: AuthResult | undefined;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** `{ status, body }` from a handler: exactly those two keys and an HTTP status. */
function isStatusReply(value: unknown): value is { status: number; body: unknown } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const status = (value as { status?: unknown }).status;
  return keys.length === 2 && keys.includes('body') && Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599;
}

/** The content type Fastify gives a serialized JSON body. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Whether `value` and every object and array inside it are frozen: nothing in it can change. A body nested deeper
 * than a response ever is (or a cycle) counts as not frozen.
 */
function isDeepFrozen(value: object, depth = 0): boolean {
  if (depth > 32 || !Object.isFrozen(value)) return false;
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !isDeepFrozen(child as object, depth + 1)) return false;
  }
  return true;
}

/**
 * The body as Fastify's send serializes it: the route's compiled serializer for the status, else for its class
 * (`2xx`), else `default`, else JSON.stringify.
 */
function serializeFor(reply: FastifyReply, status: number, payload: unknown): string {
  const code = String(status);
  const compiled = reply.getSerializationFunction(code) ?? reply.getSerializationFunction(`${code[0]}xx`) ?? reply.getSerializationFunction('default');
  return compiled === undefined ? JSON.stringify(payload) : compiled(payload as Record<string, unknown>);
}

/** A request the framework could not read (bad JSON, empty JSON body, wrong media type, too large). */
function isUnreadableRequest(error: FastifyError): boolean {
  const status = error.statusCode ?? 0;
  return status >= 400 && status < 500 && (error instanceof SyntaxError || (typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_')));
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
}

/**
 * Builds the plugin for one API definition. The result registers the operations under whatever prefix it is
 * registered with.
 */
export function createCardApiPlugin(api: ApiDefinition): (instance: FastifyInstance, options: CardApiOptions<unknown, AuthResult>) => Promise<void> {
  return async function cardApiPlugin(instance, options) {
    const handlers = options.handlers as Readonly<Record<string, RuntimeHandler | undefined>>;
    const missing = api.routes.filter((route) => typeof handlers[route.operationId] !== 'function').map((route) => route.operationId);
    if (missing.length > 0) throw new TypeError(`cardApi: no handler for ${missing.join(', ')}`);
    if (typeof options.authenticate !== 'function') throw new TypeError('cardApi: `authenticate` is required');

    const mode = options.responseValidation ?? 'error';
    const validators = createSchemaValidators(api.schemas, api.formats);
    // fast-json-stringify resolves the routes' `$ref`s against the schemas added to this (encapsulated) context.
    for (const schema of api.schemas) instance.addSchema(schema);

    // Per-request state in one request decoration (declared up front, so every request has the same shape)
    // rather than three WeakMaps: a WeakMap set costs an ephemeron write barrier on every request.
    instance.decorateRequest(STATE, null);
    const stateOf = (request: FastifyRequest): RequestState | null => (request as unknown as Record<typeof STATE, RequestState | null>)[STATE];
    // One id per request: Fastify's request.id, which its logger binds as `reqId` before any hook runs, so only the
    // generator can make it the X-Request-Id. An app created with cardApiServerOptions() already has one; otherwise
    // this plugin's routes get theirs (setGenReqId is encapsulated: the rest of the app keeps its own ids).
    const requestId = options.requestId;
    if (requestId !== undefined) instance.setGenReqId(() => requestId());
    // `genReqId` is Fastify's getter for the scope's generator (tested by Fastify, missing from its types).
    else if (!isCardApiRequestIdGenerator((instance as unknown as { genReqId?: unknown }).genReqId)) instance.setGenReqId(() => newRequestId());
    const limits = options.rateLimit === false ? null : (options.rateLimit ?? {});
    const limiter = limits ? (limits.limiter ?? createMemoryRateLimiter({ ipPerMinute: limits.ipPerMinute, now: limits.now })) : null;

    // Response validators, compiled at registration so that a schema Ajv cannot handle fails at startup.
    const responseValidators = new Map<RouteDefinition, Map<number, ValidateFunction>>();
    if (mode !== 'off') {
      for (const route of api.routes) {
        const byStatus = new Map<number, ValidateFunction>();
        for (const [status, schema] of Object.entries(route.schema.response)) byStatus.set(Number(status), validators.response(schema));
        responseValidators.set(route, byStatus);
      }
    }

    // Deeply frozen bodies already sent, with the route and status they were validated and serialized for.
    const sentBodies = new WeakMap<object, { route: RouteDefinition; status: number; json: string | null }>();

    /**
     * Whether `body` may be sent as `status` on `route`: `valid` (or not checked), `mismatch` (logged, sent in `log`
     * mode) or `refused` (logged; `error` mode).
     */
    const check = (request: FastifyRequest, route: RouteDefinition | undefined, status: number, body: unknown): 'valid' | 'mismatch' | 'refused' => {
      const validate = route ? responseValidators.get(route)?.get(status) : undefined;
      if (!validate || validate(body)) return 'valid';
      request.log.error({ operationId: route?.operationId, status, problems: describe(validate.errors) }, 'card-api: response body does not match the spec');
      return mode === 'error' ? 'refused' : 'mismatch';
    };
    const conforms = (request: FastifyRequest, route: RouteDefinition | undefined, status: number, body: unknown): boolean => check(request, route, status, body) !== 'refused';
    const refusedBody = (route: RouteDefinition, status: number): Error => new Error(`${route.operationId} answered ${status} with a body that does not match the spec`);

    const sendError = (request: FastifyRequest, reply: FastifyReply, status: number, body: ErrorBody, headers: Record<string, string> = {}): FastifyReply => {
      if (!conforms(request, stateOf(request)?.route, status, body)) {
        return reply.code(500).send(errorBody('api.internal_error', 'An unexpected error occurred.', body.error.request_id));
      }
      return reply.code(status).headers(headers).send(body);
    };

    // Bodies are JSON (contract section 4): without Fastify's text/plain parser, any other type is a 415,
    // answered below as a 422 that names the expected type instead of a confusing schema error.
    instance.removeContentTypeParser('text/plain');

    // Zero bytes are no body, whatever the Content-Type, on an operation whose body is optional: generated
    // clients (orval's `freezeCard(uuid)`) send `Content-Type: application/json` with an empty body when the
    // caller passes none. Fastify's own parser refuses that as invalid JSON; everything else goes to it unchanged
    // (same prototype-poisoning settings as the app), so a non-empty invalid body is still the documented 422.
    const config = instance.initialConfig as { onProtoPoisoning?: 'error' | 'remove' | 'ignore'; onConstructorPoisoning?: 'error' | 'remove' | 'ignore' };
    const parseJson = instance.getDefaultJsonParser(config.onProtoPoisoning ?? 'error', config.onConstructorPoisoning ?? 'error');
    instance.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      // parseAs 'string': Fastify hands the body over as text (its types admit a Buffer for any parser).
      const text = body as string;
      if (text.length === 0 && stateOf(request)?.route?.bodyRequired === false) return done(null, undefined);
      return parseJson(request, text, done);
    });

    // A callback hook: it runs on every request and has nothing to await.
    instance.addHook('onRequest', (request, reply, done) => {
      const id = request.id;
      (request as unknown as Record<typeof STATE, RequestState>)[STATE] = { requestId: id, route: undefined, auth: undefined };
      reply.header('x-request-id', id);
      done();
    });

    // Unknown paths and methods under the prefix: every operation and documentation route, as full URLs.
    const docsOn = options.docs !== false;
    const known: FallbackRoute[] = api.routes.map((route) => ({ method: route.method, url: `${instance.prefix}${route.url}` }));
    if (docsOn) for (const url of ['/openapi.yaml', '/docs', '/docs/init.js', '/docs/:asset']) known.push({ method: 'GET', url: `${instance.prefix}${url}` });
    const fallbacks = createFallbacks(known, (request) => stateOf(request)?.requestId ?? request.id);
    const notFoundOn = options.notFound !== false;

    // The app's router refuses a path parameter longer than its maxParamLength with Fastify's own 414 before
    // this plugin runs; the app should be built with cardApiServerOptions() (D36).
    const routerConfig = instance.initialConfig as { maxParamLength?: number; routerOptions?: { maxParamLength?: number } };
    const maxParamLength = routerConfig.routerOptions?.maxParamLength ?? routerConfig.maxParamLength ?? 100;
    if (maxParamLength < 128) {
      instance.log.warn(`card-api: the Fastify app's maxParamLength is ${maxParamLength}; longer path parameters get Fastify's own 414. Create the app with Fastify({ ...cardApiServerOptions() }) (maxParamLength ${CARD_API_MAX_PARAM_LENGTH}).`);
    }

    instance.setErrorHandler((error: FastifyError, request, reply) => {
      const requestId = stateOf(request)?.requestId ?? null;
      try {
        // A request no operation takes (QUERY without a content type, a body sent to an unknown path): its
        // body does not matter, the answer is the not-found one.
        if (notFoundOn && request.is404) return fallbacks.notFound(request, reply);
        if (isApiError(error)) return sendError(request, reply, error.status, error.toBody(requestId), { ...error.headers });
        if (error.validation) {
          const part = (error.validationContext ?? 'body') as RequestPart;
          const fields: FieldErrors = toFieldErrors(error.validation as ErrorObject[], part);
          return sendError(request, reply, 422, errorBody('validation.failed', 'The request is invalid.', requestId, fields));
        }
        if (isUnreadableRequest(error)) {
          const message = error.statusCode === 415 ? 'The body must be application/json.' : error.statusCode === 413 ? 'The body is too large.' : 'The body is not valid JSON.';
          return sendError(request, reply, 422, errorBody('validation.failed', 'The request is invalid.', requestId, { body: [message] }));
        }
        request.log.error({ err: error }, 'card-api: unhandled error');
      } catch (handlerError) {
        request.log.error({ err: handlerError }, 'card-api: error while answering an error');
      }
      // Nothing of the original error goes out: no message, no stack, no code.
      return reply.code(500).send(errorBody('api.internal_error', 'An unexpected error occurred.', requestId));
    });

    if (notFoundOn) instance.setNotFoundHandler(fallbacks.notFound);

    if (docsOn) registerDocs(instance, { title: api.title, openapiYaml: api.openapiYaml, outline: api.outline, ...(typeof options.docs === 'object' ? options.docs : {}) });

    for (const route of api.routes) {
      const handler = handlers[route.operationId] as RuntimeHandler;
      const hasBody = route.schema.body !== undefined;
      const { response, ...parts } = route.schema;
      instance.route({
        method: route.method,
        url: route.url,
        schema: { ...parts, response },
        config: { operationId: route.operationId },
        validatorCompiler: ({ schema, httpPart }) =>
          validators.request(schema as Record<string, unknown>, httpPart as RequestPart, { optional: httpPart === 'body' && !route.bodyRequired }),
        onRequest: async (request, reply) => {
          const state = stateOf(request)!;
          state.route = route;
          // An operation that takes no body ignores whatever was sent (Fastify then skips parsing, and Node
          // discards the bytes), rather than refusing an unreadable body with a status the operation does not
          // document.
          if (!hasBody) for (const name of ['content-type', 'content-length', 'transfer-encoding']) delete request.headers[name];
          const token = bearerToken(request.headers.authorization);
          // An `authenticate` may refuse by throwing an ApiError (the sandbox's frozen workspace); that refusal,
          // like every other, is counted against the IP below before it is sent.
          let refusal: ApiError | null = null;
          let auth: AuthResult | null = null;
          try {
            const resolved = token === null ? null : options.authenticate(token, request);
            // Awaited only when asynchronous: an `await` of a plain value still costs a turn of the microtask queue.
            auth = isThenable(resolved) ? await resolved : resolved;
          } catch (error) {
            if (!isApiError(error)) throw error;
            refusal = error;
          }
          if (refusal === null) {
            const denial = checkAccess(auth, route.abilities, request.ip);
            if (denial || auth === null || token === null) {
              refusal = new ApiError(denial?.status ?? 401, denial?.code ?? 'api.unauthenticated', denial?.message ?? 'The bearer token is missing or invalid.');
            }
          }
          if (limiter && limits) {
            // Every request counts against its IP, refused ones included, so that guessing tokens hits the
            // per-IP ceiling (D37); only a usable token also counts against that token.
            const tokenKey = refusal !== null || auth === null || token === null ? null : (auth.rateLimitKey ?? createHash('sha256').update(token).digest('hex'));
            const tokenLimit = auth?.rateLimitPerMinute ?? limits.defaultTokenPerMinute ?? 60;
            const consumed = limiter.consume({ tokenKey, tokenLimit, ip: request.ip });
            const decision = isThenable(consumed) ? await consumed : consumed;
            reply.headers(rateLimitHeaders(decision));
            if (!decision.allowed) {
              throw new ApiError(429, 'api.rate_limited', `Too many requests; retry in ${decision.retryAfter ?? 1} seconds.`);
            }
          }
          if (refusal !== null || auth === null) throw refusal ?? new ApiError(401, 'api.unauthenticated', 'The bearer token is missing or invalid.');
          state.auth = auth;
        },
        ...(route.commaSeparatedQuery.length > 0
          ? { preValidation: async (request: FastifyRequest) => splitCommaSeparated(request.query as Record<string, unknown>, route.commaSeparatedQuery) }
          : {}),
        handler: async (request, reply) => {
          const state = stateOf(request)!;
          const returned = handler({
            params: request.params,
            query: request.query,
            headers: request.headers,
            body: request.body,
            auth: state.auth as AuthResult,
            requestId: state.requestId,
            request,
          });
          const result = isThenable(returned) ? await returned : returned;
          const [status, body] = isStatusReply(result) ? [result.status, result.body] : [route.successStatus, result];
          // A deeply frozen body cannot change, so it is validated once per route and status and serialized once
          // (a cached read served many times); it still goes through Fastify's send, hooks included.
          if (typeof body === 'object' && body !== null && Object.isFrozen(body)) {
            let kept = sentBodies.get(body);
            if (kept === undefined || kept.route !== route || kept.status !== status) {
              kept = undefined;
              if (isDeepFrozen(body)) {
                const verdict = check(request, route, status, body);
                if (verdict === 'refused') throw refusedBody(route, status);
                // A body sent despite a mismatch (`log` mode) is not kept: each send logs it, as any other body.
                if (verdict === 'mismatch') return reply.code(status).send(body);
                kept = { route, status, json: null };
                sentBodies.set(body, kept);
              }
            }
            if (kept !== undefined) {
              const memo = kept;
              return reply
                .code(status)
                .type(JSON_TYPE)
                .serializer((payload: unknown) => (payload === body ? (memo.json ??= serializeFor(reply, status, payload)) : serializeFor(reply, status, payload)))
                .send(body);
            }
          }
          if (!conforms(request, route, status, body)) throw refusedBody(route, status);
          return reply.code(status).send(body);
        },
      });
    }
  };
}
