/**
 * The HTTP probe: every request verify makes goes through it, and every answer is checked against the spec
 * on the way back (checks `http.*`): the status is declared for the operation, the body validates strictly,
 * `X-Request-Id` is present (and equals the error body's `request_id`), error bodies are the D2 envelope, and the
 * headers the response declares besides `X-Request-Id` (the D5 rate-limit headers) are present and sane.
 * A 429 is checked like any answer, then waited out (`Retry-After`) and the request repeated.
 */
import type { CheckRecorder } from './checks.js';
import type { SpecOperation, VerifySpec } from './spec.js';

type Json = Record<string, any>;

export type AuthMode = 'token' | 'none' | 'bad';

export interface ProbeRequest {
  method: string;
  /** Path below the API root, such as `/cards/<uuid>`. */
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  auth?: AuthMode;
  idempotencyKey?: string;
}

/** One answer as the wire delivered it. */
export interface Exchange {
  seq: number;
  method: string;
  /** Path and query below the API root (never a token). */
  target: string;
  operation: SpecOperation | undefined;
  status: number;
  headers: Headers;
  contentType: string | null;
  body: any;
  requestId: string | null;
}

export interface ProbeOptions {
  baseUrl: string;
  token: string;
  spec: VerifySpec;
  checks: CheckRecorder;
  /** Largest wait on a 429, in seconds. Default 60. */
  maxRetryAfterSec?: number;
  /** How many 429s one request may wait out. Default 5. */
  maxRateLimitRetries?: number;
  fetch?: typeof fetch;
}

/** A token that cannot be valid: right shape (`<prefix>_sk_<secret>`), random secret. */
export function badToken(): string {
  return `verify_sk_${crypto.randomUUID().replace(/-/g, '')}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** How an exchange is named in evidence: its request id, else method, target and sequence number. */
export function evidenceOf(exchange: Exchange): string {
  return exchange.requestId ?? `${exchange.method} ${exchange.target} (#${exchange.seq}, no X-Request-Id)`;
}

export class Probe {
  readonly spec: VerifySpec;
  readonly checks: CheckRecorder;
  readonly exchanges: Exchange[] = [];
  readonly #root: URL;
  readonly #token: string;
  readonly #badToken = badToken();
  readonly #fetch: typeof fetch;
  readonly #maxRetryAfterSec: number;
  readonly #maxRetries: number;

  constructor(options: ProbeOptions) {
    this.spec = options.spec;
    this.checks = options.checks;
    this.#root = new URL(options.baseUrl.replace(/\/+$/, '') + '/');
    this.#token = options.token;
    this.#fetch = options.fetch ?? fetch;
    this.#maxRetryAfterSec = options.maxRetryAfterSec ?? 60;
    this.#maxRetries = options.maxRateLimitRetries ?? 5;
  }

  /** The path of an operation with its path parameters filled in. */
  pathOf(operationId: string, params: Record<string, string> = {}): string {
    return this.spec.operation(operationId).route.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (params[name] === undefined) throw new Error(`verify: ${operationId} needs the path parameter ${name}`);
      return encodeURIComponent(params[name]!);
    });
  }

  /** Calls an operation by operationId. */
  call(operationId: string, request: Omit<ProbeRequest, 'method' | 'path'> & { params?: Record<string, string> } = {}): Promise<Exchange> {
    const op = this.spec.operation(operationId);
    return this.request({ ...request, method: op.method, path: this.pathOf(operationId, request.params) });
  }

  /** Follows a pagination link: only links below the API root are followed. */
  follow(link: string): Promise<Exchange> {
    const url = new URL(link, this.#root);
    const rootPath = this.#root.pathname.replace(/\/+$/, '');
    if (url.origin !== this.#root.origin || !url.pathname.startsWith(rootPath)) throw new Error(`the link ${link} leaves the API root`);
    const query = Object.fromEntries(url.searchParams.entries());
    return this.request({ method: 'GET', path: url.pathname.slice(rootPath.length), query });
  }

  async request(request: ProbeRequest): Promise<Exchange> {
    for (let attempt = 0; ; attempt++) {
      const exchange = await this.#send(request);
      this.#validate(exchange);
      if (exchange.status !== 429 || attempt >= this.#maxRetries) return exchange;
      const retryAfter = Number(exchange.headers.get('retry-after'));
      await sleep(Math.min(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1, this.#maxRetryAfterSec) * 1000);
    }
  }

  async #send(request: ProbeRequest): Promise<Exchange> {
    const rootPath = this.#root.pathname.replace(/\/+$/, '');
    const url = new URL(rootPath + request.path, this.#root);
    for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json' };
    const auth = request.auth ?? 'token';
    if (auth === 'token') headers.authorization = `Bearer ${this.#token}`;
    if (auth === 'bad') headers.authorization = `Bearer ${this.#badToken}`;
    if (request.idempotencyKey !== undefined) headers['x-idempotency-key'] = request.idempotencyKey;
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    let response: Response;
    try {
      response = await this.#fetch(url, { method: request.method, headers, body, redirect: 'manual' });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    const target = url.pathname.slice(rootPath.length) + url.search;
    const exchange: Exchange = {
      seq: this.exchanges.length + 1,
      method: request.method,
      target,
      operation: this.spec.operationOf(request.method, url.pathname.slice(rootPath.length)),
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get('content-type'),
      body: parseBody(text),
      requestId: response.headers.get('x-request-id') || null,
    };
    this.exchanges.push(exchange);
    return exchange;
  }

  #validate(x: Exchange): void {
    const ev = [evidenceOf(x)];
    const where = `${x.method} ${x.target} ${x.status}`;
    const isJson = x.contentType?.toLowerCase().startsWith('application/json') ?? false;

    // X-Request-Id, and the error body's copy of it.
    const idProblems: string[] = [];
    if (x.requestId === null) idProblems.push(`${where}: no X-Request-Id header`);
    const bodyRequestId = x.body?.error?.request_id;
    if (x.requestId !== null && typeof bodyRequestId === 'string' && bodyRequestId !== x.requestId) idProblems.push(`${where}: error.request_id ${bodyRequestId} differs from X-Request-Id ${x.requestId}`);
    this.checks.expect('http.request-id', idProblems, where, ev);

    // D2 envelope on every error.
    if (x.status >= 400) {
      const problems: string[] = [];
      const error = x.body?.error;
      if (!isJson) problems.push(`${where}: content type ${x.contentType ?? '(none)'} is not application/json`);
      if (!error || typeof error !== 'object') problems.push(`${where}: the body has no error object`);
      else {
        if (typeof error.code !== 'string' || error.code === '') problems.push(`${where}: error.code is not a non-empty string`);
        if (typeof error.message !== 'string') problems.push(`${where}: error.message is not a string`);
        if (!('request_id' in error)) problems.push(`${where}: error.request_id is missing`);
      }
      this.checks.expect('http.error-envelope', problems, where, ev);
    }

    if (x.operation === undefined) return; // An unknown route: only the checks above apply.
    const declared = this.spec.declaredResponse(x.operation, x.status);
    const statuses = Object.keys(x.operation.op.responses ?? {}).join(', ');
    if (!declared) {
      this.checks.fail('http.status-declared', `${where}: ${x.operation.operationId} declares ${statuses}`, ev);
      return; // Nothing to validate the body or headers against.
    }
    this.checks.pass('http.status-declared', where, ev);

    // Body.
    const media = declared.content?.['application/json'];
    let bodyProblems: string[];
    if (!media) bodyProblems = x.body === undefined ? [] : [`${where}: the spec declares no body, got one`];
    else if (!isJson) bodyProblems = [`${where}: content type ${x.contentType ?? '(none)'} is not application/json`];
    else bodyProblems = this.spec.validator.errors(media.schema as Json, x.body).slice(0, 8).map((e) => `${where}: ${e}`);
    this.checks.expect('http.body-schema', bodyProblems, where, ev);

    // Declared headers other than X-Request-Id: the rate-limit headers of D5.
    const declaredHeaders = Object.keys((declared.headers ?? {}) as Json).filter((h) => h.toLowerCase() !== 'x-request-id');
    if (declaredHeaders.length > 0) {
      const problems: string[] = [];
      for (const name of declaredHeaders) {
        const value = x.headers.get(name);
        const schema = (declared.headers as Json)[name];
        const headerSchema = typeof schema.$ref === 'string' ? this.spec.document.components?.headers?.[schema.$ref.split('/').pop()!]?.schema : schema.schema;
        if (value === null) problems.push(`${where}: no ${name} header`);
        else if (headerSchema?.type === 'integer' && !/^\d+$/.test(value)) problems.push(`${where}: ${name} is ${JSON.stringify(value)}, not a non-negative integer`);
      }
      const limit = x.headers.get('x-ratelimit-limit');
      const remaining = x.headers.get('x-ratelimit-remaining');
      if (limit !== null && remaining !== null && /^\d+$/.test(limit) && /^\d+$/.test(remaining) && Number(remaining) > Number(limit)) problems.push(`${where}: X-RateLimit-Remaining ${remaining} exceeds X-RateLimit-Limit ${limit}`);
      this.checks.expect('http.rate-limit-headers', problems, where, ev);
    }
  }
}
