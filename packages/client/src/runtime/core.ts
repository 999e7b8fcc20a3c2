// Copied by gen-card-api from templates/client/core.ts. Do not edit: change the template and run the generator.
/**
 * The request engine every generated resource class calls: authentication, idempotency keys,
 * retries with back-off, per-attempt timeouts, cancellation, `{ data }` unwrapping and typed errors,
 * over one openapi-fetch client per {@link ClientCore}.
 *
 * Only web-standard APIs are used (fetch, AbortController, crypto.randomUUID, setTimeout), so the
 * runtime runs unchanged on Node 20+, Deno, Bun and edge workers.
 *
 * @module
 */
import createClient, { type Client } from 'openapi-fetch';
import {
  ApiConnectionError,
  ApiError,
  TimeoutError,
  errorFromResponse,
  redact,
} from './errors.js';
import { PagePromise, type Page } from './pagination.js';
import { pathParameterProblem } from './path-params.js';
import { createQuerySerializerFor, type QueryParamStyle, type QuerySerializerFn } from './query.js';
import {
  MAX_RETRY_AFTER_MS,
  abortReason,
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
  sleep as defaultSleep,
  type Sleep,
} from './retry.js';

/** Version reported in the default `User-Agent`. */
export const CLIENT_VERSION = '0.1.0';

/** HTTP methods an {@link OperationDescriptor} may use. */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * What the generator knows about one operation. Generated code keeps one constant per operation
 * and passes it to {@link ClientCore.request} or {@link ClientCore.list}.
 *
 * @example
 * ```ts
 * const listCards = {
 *   method: 'get',
 *   path: '/cards',
 *   write: false,
 *   query: { status: { style: 'form', explode: false } },
 * } as const satisfies OperationDescriptor;
 * ```
 */
export interface OperationDescriptor {
  method: HttpMethod;
  /** OpenAPI path template relative to the base URL, such as `/cards/{uuid}`. */
  path: string;
  /** Whether the operation is an idempotent write that takes `X-Idempotency-Key`. */
  write: boolean;
  /** Serialisation of query parameters that differ from OpenAPI's default (`form`, `explode: true`). */
  query?: Readonly<Record<string, QueryParamStyle>>;
}

/** Path parameters, query and body of one call. */
export interface RequestParams {
  path?: Readonly<Record<string, string | number>> | undefined;
  /** Query parameters; `undefined` and `null` values are left out. */
  query?: object | undefined;
  /** JSON body. */
  body?: unknown;
}

/** Options of any call. */
export interface RequestOptions {
  /** Cancels the call, its retries and its back-off waits; the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's per-attempt timeout, in milliseconds. */
  timeoutMs?: number | undefined;
  /** Overrides the client's retry count (`0` disables retries). */
  maxRetries?: number | undefined;
}

/** Options of a write (an operation answering `202` with an Order). */
export interface WriteOptions extends RequestOptions {
  /**
   * `X-Idempotency-Key` (D7: 1 to 255 visible ASCII characters). Defaults to a fresh UUID v4.
   * Store it before the call to be able to resend the same write after a crash; after a `failed`
   * order, a new attempt needs a new key (section 3.1).
   */
  idempotencyKey?: string | undefined;
}

/** Options of a paginated list. */
export interface ListOptions extends RequestOptions {
  /** Stops iteration after this many items; no page beyond the one holding the last item is fetched. */
  maxItems?: number | undefined;
}

/** What the client saw of the response a result came from. */
export interface ResponseMeta {
  status: number;
  headers: Headers;
  /** `X-Request-Id` response header, `null` if absent. */
  requestId: string | null;
  /** Key sent as `X-Idempotency-Key`, `null` for reads. */
  idempotencyKey: string | null;
  /** Attempts made, retries included. */
  attempts: number;
}

/**
 * A result with a non-enumerable `lastResponse`, so `JSON.stringify` and deep equality see only
 * the API's fields.
 */
export type WithResponse<T> = T & { readonly lastResponse: ResponseMeta };

/**
 * The result of an operation that answers without a body (a `204`, or a `201` without content): nothing
 * but the non-enumerable `lastResponse` (as `WithResponse<NoContent>`).
 */
export type NoContent = Record<never, never>;

/** A `fetch` as openapi-fetch calls it; `globalThis.fetch` fits. */
export type FetchFn = (input: Request) => Promise<Response>;

/** Options of {@link ClientCore} (and of the generated `CardApiClient`). */
export interface ClientOptions {
  /** Workspace API token, `<prefix>_sk_<secret>`. Sent as `Authorization: Bearer`, never logged. */
  token: string;
  /** API root including `/api/v1`, such as `https://api.example.com/api/v1`. */
  baseUrl: string;
  /** Retries after the first attempt for transient failures. Default 2 (at most 3 attempts). */
  maxRetries?: number | undefined;
  /** Per-attempt timeout in milliseconds, reading the body included. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Custom fetch, for tests, proxies or instrumentation. Default `globalThis.fetch`. */
  fetch?: FetchFn | undefined;
  /** Prefix of the `User-Agent` header, such as `my-app/1.2`. Ignored where the runtime forbids the header. */
  userAgent?: string | undefined;
  /** @internal Back-off sleep; tests inject an instant one. */
  sleep?: Sleep | undefined;
  /** @internal Uniform source in [0, 1) for jitter. */
  random?: (() => number) | undefined;
  /** @internal Clock for `Retry-After` dates. */
  now?: (() => number) | undefined;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7E]{1,255}$/;
const TIMEOUT = Symbol('timeout');

function validCount(name: string, v: number | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < min) throw new TypeError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

/**
 * Checks an idempotency key against D7 before it is sent.
 *
 * @throws TypeError when the key is empty, longer than 255 characters or has a character outside `!`..`~`.
 */
export function assertIdempotencyKey(key: string): void {
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY_RE.test(key)) {
    throw new TypeError('idempotencyKey must be 1 to 255 visible ASCII characters (no spaces), for example a UUID v4');
  }
}

/** The openapi-fetch client is built over an unknown schema; the runtime types results itself. */
type UntypedClient = Client<Record<string, Record<HttpMethod, object>>>;
type FetchInit = {
  params: { path: RequestParams['path']; query: object | undefined };
  body: unknown;
  headers: Record<string, string> | undefined;
  signal: AbortSignal | undefined;
  parseAs: 'stream';
  querySerializer: QuerySerializerFn;
};
type FetchResult = { data?: unknown; error?: unknown; response: Response };
/** A settled attempt: the success body as text, or openapi-fetch's parsed error body. */
type RawResult = { response: Response; text: string; error: unknown };

const ignore = (): void => {};
const decoder = new TextDecoder();

/** Reads a body to the end through a reader the caller can cancel. */
async function readText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let first: Uint8Array | undefined;
  let rest: Uint8Array[] | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first === undefined) first = value;
    else (rest ??= []).push(value);
  }
  if (first === undefined) return '';
  if (rest === undefined) return decoder.decode(first);
  let size = first.length;
  for (const c of rest) size += c.length;
  const all = new Uint8Array(size);
  all.set(first, 0);
  let offset = first.length;
  for (const c of rest) {
    all.set(c, offset);
    offset += c.length;
  }
  return decoder.decode(all);
}

/**
 * The request engine shared by all resource classes of one client.
 *
 * @example
 * ```ts
 * const core = new ClientCore({ token: process.env.CARD_API_TOKEN!, baseUrl: 'https://api.example.com/api/v1' });
 * const card = await core.request<CardDetail>({ method: 'get', path: '/cards/{uuid}', write: false }, { path: { uuid } });
 * console.log(card.status, card.lastResponse.requestId);
 * ```
 */
export class ClientCore {
  readonly #client: UntypedClient;
  readonly #token: string;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #sleep: Sleep;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #serializers = new WeakMap<OperationDescriptor, QuerySerializerFn>();
  readonly #defaultSerializer = createQuerySerializerFor();

  /** @throws TypeError on a missing token, a base URL that is not http(s), or a bad count. */
  constructor(options: ClientOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('ClientCore options are required');
    const { token, baseUrl } = options;
    if (typeof token !== 'string' || token.trim() === '') {
      throw new TypeError('token is required: pass the workspace API token (<prefix>_sk_<secret>)');
    }
    // A control character would let the token split the Authorization header.
    if (/[\s\x00-\x1F\x7F]/.test(token)) throw new TypeError('token must not contain whitespace or control characters');
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(String(baseUrl))}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`baseUrl must use http or https, got ${url.protocol}`);
    }
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      throw new TypeError('baseUrl must be a plain API root such as https://api.example.com/api/v1 (no query, fragment or credentials)');
    }
    this.#token = token;
    this.#maxRetries = validCount('maxRetries', options.maxRetries, 2, 0);
    this.#timeoutMs = validCount('timeoutMs', options.timeoutMs, 30_000, 1);
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;

    const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
    // Browsers drop or preflight a custom User-Agent; everywhere else it identifies the SDK.
    if (!('document' in globalThis)) {
      const ua = `card-api-kit-client/${CLIENT_VERSION}`;
      headers['User-Agent'] = options.userAgent ? `${options.userAgent} ${ua}` : ua;
    }
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('no fetch available: pass options.fetch');
    this.#client = createClient({ baseUrl: url.href.replace(/\/+$/, ''), headers, fetch: fetchImpl });
  }

  /**
   * Calls one operation and resolves with the `data` of its `{ data }` body, carrying
   * a non-enumerable `lastResponse`.
   *
   * Transient failures (network, timeout, 408, 429, 5xx) are retried with full-jitter back-off or
   * after `Retry-After`; a write keeps the same `X-Idempotency-Key` on every attempt, so the server
   * runs it at most once.
   *
   * @throws {@link CardApiError} subclasses; the caller's abort reason when `options.signal` aborts;
   *   TypeError for an invalid idempotency key.
   */
  async request<T = unknown>(
    op: OperationDescriptor,
    params?: RequestParams,
    options?: RequestOptions | WriteOptions,
  ): Promise<WithResponse<T>> {
    return (await this.#send(op, params, options, true)) as WithResponse<T>;
  }

  /**
   * Calls a paginated list operation. The result is awaitable (the first page, or the page given
   * as `query.page`) and async-iterable over every item of every later page.
   *
   * @example
   * ```ts
   * for await (const card of core.list<CardListRow>(listCards, { query: { status: ['active'] } }, { maxItems: 500 })) {
   *   console.log(card.uuid);
   * }
   * ```
   */
  list<T = unknown>(op: OperationDescriptor, params?: RequestParams, options?: ListOptions): PagePromise<T> {
    const query = (params?.query ?? {}) as Record<string, unknown>;
    const start = typeof query['page'] === 'number' ? query['page'] : 1;
    const fetchPage = (page: number): Promise<WithResponse<Page<T>>> =>
      this.#send(op, { path: params?.path, query: { ...query, page } }, options, false) as Promise<
        WithResponse<Page<T>>
      >;
    return new PagePromise<T>(fetchPage, start, options?.maxItems);
  }

  async #send(
    op: OperationDescriptor,
    params: RequestParams | undefined,
    options: WriteOptions | undefined,
    unwrap: boolean,
  ): Promise<object> {
    const signal = options?.signal;
    if (signal?.aborted) throw abortReason(signal);
    let idempotencyKey: string | null = null;
    if (op.write) {
      const given = options?.idempotencyKey;
      if (given !== undefined) assertIdempotencyKey(given);
      idempotencyKey = given ?? crypto.randomUUID();
    }
    const maxRetries = options?.maxRetries === undefined ? this.#maxRetries : validCount('maxRetries', options.maxRetries, 0, 0);
    const timeoutMs = options?.timeoutMs === undefined ? this.#timeoutMs : validCount('timeoutMs', options.timeoutMs, 0, 1);
    const path = params?.path;
    if (path !== undefined) {
      // `..` would make `/cards/{uuid}` the API root, an empty value the list route: refused before anything is sent.
      for (const k in path) {
        const problem = pathParameterProblem(String(path[k]));
        if (problem !== null) throw new TypeError(`path parameter ${k} ${problem}; no request was sent`);
      }
    }
    const init: FetchInit = {
      params: { path, query: params?.query },
      body: params?.body,
      headers: idempotencyKey === null ? undefined : { 'X-Idempotency-Key': idempotencyKey },
      signal: undefined,
      parseAs: 'stream',
      querySerializer: op.query ? this.#serializerFor(op) : this.#defaultSerializer,
    };

    for (let attempt = 1; ; attempt++) {
      let raw: RawResult;
      try {
        raw = await this.#attempt(op, init, signal, timeoutMs);
      } catch (err) {
        if (signal?.aborted) throw abortReason(signal);
        const failure =
          err === TIMEOUT
            ? new TimeoutError({
                code: 'client.timeout',
                message: `${op.method.toUpperCase()} ${op.path} timed out after ${timeoutMs} ms (attempt ${attempt})`,
                idempotencyKey,
                attempts: attempt,
              })
            : new ApiConnectionError({
                code: 'client.connection_error',
                message: `${op.method.toUpperCase()} ${op.path} failed: ${redact(errorText(err), this.#token)}`,
                idempotencyKey,
                attempts: attempt,
                cause: this.#safeCause(err),
              });
        if (attempt > maxRetries) throw failure;
        await this.#sleep(backoffDelay(attempt - 1, this.#random), signal);
        continue;
      }

      const response = raw.response;
      if (response.ok) return this.#success(raw.text, response, idempotencyKey, attempt, unwrap);

      const status = response.status;
      let retryAfterMs: number | null = null;
      if (isRetryableStatus(status)) {
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), this.#now());
        // A wait beyond the bound is the server saying "not soon": hand it to the caller instead.
        if (attempt <= maxRetries && (retryAfterMs === null || retryAfterMs <= MAX_RETRY_AFTER_MS)) {
          await this.#sleep(retryAfterMs ?? backoffDelay(attempt - 1, this.#random), signal);
          continue;
        }
      }
      throw errorFromResponse(
        status,
        response.statusText,
        response.headers,
        raw.error,
        { idempotencyKey, attempts: attempt, token: this.#token },
        retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
      );
    }
  }

  /**
   * One attempt, bounded by the timeout and the caller's signal.
   *
   * The deadline is a race, not a signal on the Request: linking a signal to every Request costs
   * undici a WeakRef and a finalizer per call, which doubled the per-call cost in
   * bench/client-overhead.ts. Instead the success body is read here through a reader, and the
   * deadline cancels that reader, which closes the connection even if the body stalls mid-stream.
   * A response that arrives after the deadline has its body cancelled on arrival. The caller's
   * signal, when given, is also put on the Request, so an explicit abort cuts the connection in
   * any phase.
   */
  #attempt(
    op: OperationDescriptor,
    init: FetchInit,
    callerSignal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<RawResult> {
    init.signal = callerSignal;
    const pending = this.#client.request(op.method, op.path as never, init as never) as Promise<FetchResult>;
    return new Promise<RawResult>((resolve, reject) => {
      let settled = false;
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
      const fail = (reason: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (onAbort !== undefined) callerSignal?.removeEventListener('abort', onAbort);
        if (reader !== undefined) reader.cancel().catch(ignore);
        reject(reason);
      };
      const timer = setTimeout(fail, timeoutMs, TIMEOUT);
      const onAbort = callerSignal === undefined ? undefined : (): void => fail(abortReason(callerSignal));
      if (onAbort !== undefined) callerSignal?.addEventListener('abort', onAbort, { once: true });

      pending.then(
        async (r) => {
          // Duck-typed: a custom fetch may come from another realm or a polyfill.
          const body = r.data as Partial<ReadableStream<Uint8Array>> | null | undefined;
          if (settled) {
            if (typeof body?.cancel === 'function') body.cancel().catch(ignore);
            return;
          }
          let text = '';
          if (r.response.ok && body != null) {
            if (typeof body.getReader === 'function') {
              reader = body.getReader();
              text = await readText(reader);
            } else {
              text = await r.response.text();
            }
            if (settled) return;
          }
          settled = true;
          clearTimeout(timer);
          if (onAbort !== undefined) callerSignal?.removeEventListener('abort', onAbort);
          resolve({ response: r.response, text, error: r.error });
        },
        fail,
      ).catch(fail);
    });
  }

  #success(text: string, response: Response, idempotencyKey: string | null, attempts: number, unwrap: boolean): object {
    let body: unknown;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw new ApiError({
          status: response.status,
          code: 'api.invalid_response',
          message: `Expected a JSON body, got ${JSON.stringify(redact(text.slice(0, 80), this.#token))}`,
          requestId: response.headers.get('x-request-id'),
          idempotencyKey,
          attempts,
          headers: response.headers,
        });
      }
    }
    let value: unknown = body;
    if (unwrap) {
      if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'data' in body) {
        value = (body as { data: unknown }).data;
      }
    } else {
      value = toPage(body, response, idempotencyKey, attempts);
    }
    const target: object = value !== null && typeof value === 'object' ? value : Object(value ?? {});
    const meta: ResponseMeta = {
      status: response.status,
      headers: response.headers,
      requestId: response.headers.get('x-request-id'),
      idempotencyKey,
      attempts,
    };
    Object.defineProperty(target, 'lastResponse', { value: meta, enumerable: false, configurable: true });
    return target;
  }

  #serializerFor(op: OperationDescriptor): QuerySerializerFn {
    let s = this.#serializers.get(op);
    if (s === undefined) {
      s = createQuerySerializerFor(op.query);
      this.#serializers.set(op, s);
    }
    return s;
  }

  /**
   * A copy of the transport error with its name, code and messages only: the original may hold
   * the Request (and so the Authorization header) or echo the token, and inspecting an error
   * prints its cause.
   */
  #safeCause(err: unknown): Error {
    const copy = new Error(redact(errorText(err), this.#token));
    if (err instanceof Error) {
      copy.name = err.name;
      const code = (err as { code?: unknown }).code ?? (err.cause as { code?: unknown } | undefined)?.code;
      if (typeof code === 'string') (copy as Error & { code?: string }).code = redact(code, this.#token);
    }
    return copy;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return `${err.message}${cause}`;
  }
  return String(err);
}

/** A D1 envelope, tolerating a bare array (one page, no metadata). */
function toPage(body: unknown, response: Response, idempotencyKey: string | null, attempts: number): object {
  if (Array.isArray(body)) return { data: body, meta: undefined, links: undefined };
  if (body !== null && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)) return body;
  throw new ApiError({
    status: response.status,
    code: 'api.invalid_response',
    message: 'Expected a paginated body { data: [...], meta, links }',
    requestId: response.headers.get('x-request-id'),
    idempotencyKey,
    attempts,
    headers: response.headers,
  });
}


