/**
 * The HTTP probe: every request verify makes goes through it, and every answer is checked against the spec
 * on the way back (checks `http.*`): the status is declared for the operation, the body validates strictly,
 * `X-Request-Id` is present (and equals the error body's `request_id`), error bodies are the D2 envelope, and the
 * headers the response declares besides `X-Request-Id` (the D5 rate-limit headers) are present and sane.
 * A 429 is checked like any answer, then waited out (`Retry-After`) and the request repeated.
 *
 * The server is untrusted: each request has a timeout that covers the whole answer, a body is read as a stream and
 * never past a size cap, JSON nested deeper than a limit is refused before it is parsed, and waits on `Retry-After`
 * are bounded one by one and in total. Any of these ends the run with a `VerifyStopped` naming the cause.
 */
import type { CheckRecorder } from './checks.js';
import { jsonDeeperThan, sleep, VerifyStopped } from './context.js';
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
  /** Another token than the run's (the read-only or the other workspace's), and the variable a curl line names it by. */
  token?: { value: string; env: string };
  idempotencyKey?: string;
  /** Bytes sent as they are instead of `body` as JSON (malformed JSON, another content type). */
  rawBody?: string;
  /** The Content-Type of `rawBody`; none when null. Default application/json. */
  contentType?: string | null;
}

/** One answer as the wire delivered it. */
export interface Exchange {
  seq: number;
  method: string;
  /** Path and query below the API root (never a token). */
  target: string;
  operation: SpecOperation | undefined;
  /** What was sent, to print the request again (a curl line). */
  request: ProbeRequest;
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
  /** Largest wait on a 429, in seconds; a server that asks for more stops the run. Default 60. */
  maxRetryAfterSec?: number;
  /** All waits on 429s of the run together, in ms; past it the run stops. Default 120,000. */
  maxRateLimitWaitMs?: number;
  /** How many 429s one request may wait out. Default 5. */
  maxRateLimitRetries?: number;
  /** Time for one exchange, from sending to the last byte of the body, in ms. Default 30,000. */
  requestTimeoutMs?: number;
  /** Largest body read; a larger one (announced or streamed) stops the run. Default 8 MiB. */
  maxResponseBytes?: number;
  /** Deepest nesting of a JSON body. Default 64. */
  maxJsonDepth?: number;
  /** The run's deadline. */
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** A token that cannot be valid: right shape (`<prefix>_sk_<secret>`), random secret. */
export function badToken(): string {
  return `verify_sk_${crypto.randomUUID().replace(/-/g, '')}`;
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(2)} MiB` : `${+(bytes / 1024).toFixed(2)} KiB`);

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One shell word: single-quoted when printable ASCII, else ANSI-C quoted with every other byte as `\xNN`, so that
 * no control character from a generated value (or a server) reaches the terminal.
 */
export function shellQuote(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return `'${value.replace(/'/g, `'\\''`)}'`;
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) out += byte >= 0x20 && byte < 0x7f && byte !== 0x27 && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  return `$'${out}'`;
}

/** Whether an error answer lacks the D2 envelope's code: `http.error-envelope` counts that fault, no other check does. */
export function envelopeBroken(x: Pick<Exchange, 'status' | 'body'>): boolean {
  return x.status >= 400 && (!x.body?.error || typeof x.body.error !== 'object' || typeof x.body.error.code !== 'string');
}

/**
 * Whether an error answer carries the expected code. An answer without the envelope's code matches: its fault is
 * `http.error-envelope`'s, noted there as also seen in `checkId` instead of failing `checkId` a second time.
 */
export function hasCode(checks: CheckRecorder, checkId: string, x: Pick<Exchange, 'status' | 'body'>, expected: string | RegExp): boolean {
  if (x.status < 400) return false;
  if (envelopeBroken(x)) {
    checks.alsoSeen('http.error-envelope', checkId);
    return true;
  }
  const code = String(x.body.error.code);
  return typeof expected === 'string' ? code === expected : expected.test(code);
}

/** An answer in one phrase for a failure message: method, target, status and error code. */
export function answered(x: Pick<Exchange, 'method' | 'target' | 'status' | 'body'>): string {
  const code = x.body?.error?.code;
  return `${x.method} ${x.target} answered ${x.status}${typeof code === 'string' ? ` ${code}` : ''}`;
}

/** How an exchange is named in evidence: its request id, else method, target and sequence number. */
export function evidenceOf(exchange: Exchange): string {
  return exchange.requestId ?? `${exchange.method} ${exchange.target} (#${exchange.seq}, no X-Request-Id)`;
}

export class Probe {
  readonly spec: VerifySpec;
  readonly checks: CheckRecorder;
  /** What was exchanged, without bodies: a run keeps no server body longer than its checks need it. */
  readonly exchanges: Array<Pick<Exchange, 'seq' | 'method' | 'target' | 'status' | 'requestId'>> = [];
  readonly #root: URL;
  readonly #token: string;
  readonly #badToken = badToken();
  readonly #fetch: typeof fetch;
  readonly #maxRetryAfterSec: number;
  readonly #maxRateLimitWaitMs: number;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #maxDepth: number;
  readonly #signal: AbortSignal;
  #rateLimitWaitedMs = 0;
  /** The run's waits on Retry-After so far, what is left of their allowance, and the longest single wait accepted, in ms. */
  get rateLimitWait(): { waitedMs: number; leftMs: number; longestMs: number } {
    return { waitedMs: this.#rateLimitWaitedMs, leftMs: this.#maxRateLimitWaitMs - this.#rateLimitWaitedMs, longestMs: this.#maxRetryAfterSec * 1000 };
  }
  /** The rate-limit state the last answer announced (D5 headers), when it did. */
  rateLimit: { limit: number; remaining: number } | null = null;
  /** Called with every answer after the http.* checks: the money invariants and the resource registry read them. */
  readonly observers: Array<(exchange: Exchange) => void> = [];

  constructor(options: ProbeOptions) {
    this.spec = options.spec;
    this.checks = options.checks;
    this.#root = new URL(options.baseUrl.replace(/\/+$/, '') + '/');
    this.#token = options.token;
    this.#fetch = options.fetch ?? fetch;
    this.#maxRetryAfterSec = options.maxRetryAfterSec ?? 60;
    this.#maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 120_000;
    this.#maxRetries = options.maxRateLimitRetries ?? 5;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#maxDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    this.#signal = options.signal ?? new AbortController().signal;
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
      const limit = Number(exchange.headers.get('x-ratelimit-limit') ?? NaN);
      const remaining = Number(exchange.headers.get('x-ratelimit-remaining') ?? NaN);
      if (Number.isSafeInteger(limit) && Number.isSafeInteger(remaining) && request.token === undefined && (request.auth ?? 'token') === 'token') this.rateLimit = { limit, remaining };
      for (const observe of this.observers) observe(exchange);
      if (exchange.status !== 429 || attempt >= this.#maxRetries) return exchange;
      const asked = retryAfterSeconds(exchange.headers.get('retry-after'));
      const where = `${exchange.method} ${exchange.target}`;
      if (asked !== null && asked > this.#maxRetryAfterSec) {
        throw new VerifyStopped('rate-limited', `${where} answered 429 with Retry-After ${asked} s; verify waits at most ${this.#maxRetryAfterSec} s at a time`);
      }
      const waitMs = (asked === null || asked === 0 ? 1 : asked) * 1000;
      if (this.#rateLimitWaitedMs + waitMs > this.#maxRateLimitWaitMs) {
        throw new VerifyStopped('rate-limited', `${where} answered 429 again; verify has waited ${this.#rateLimitWaitedMs / 1000} s on Retry-After in this run and waits at most ${this.#maxRateLimitWaitMs / 1000} s in all`);
      }
      this.#rateLimitWaitedMs += waitMs;
      await sleep(waitMs, this.#signal);
    }
  }

  #url(request: ProbeRequest): URL {
    const rootPath = this.#root.pathname.replace(/\/+$/, '');
    const url = new URL(rootPath + request.path, this.#root);
    for (const [k, v] of Object.entries(request.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /**
   * A curl line that sends `request` again, every argument shell-quoted and free of control characters; a token
   * appears as its environment variable (`$CARD_API_TOKEN`), never as its value.
   */
  curlOf(request: ProbeRequest): string {
    const parts = ['curl', '-sS', '-X', request.method, shellQuote(this.#url(request).href)];
    const auth = request.auth ?? 'token';
    if (auth === 'token') parts.push('-H', `"Authorization: Bearer $${request.token?.env ?? 'CARD_API_TOKEN'}"`);
    if (auth === 'bad') parts.push('-H', shellQuote('Authorization: Bearer verify_sk_unknown'));
    if (request.idempotencyKey !== undefined) parts.push('-H', shellQuote(`X-Idempotency-Key: ${request.idempotencyKey}`));
    const body = request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    const type = request.rawBody !== undefined ? request.contentType : 'application/json';
    if (body !== undefined && type !== null) parts.push('-H', shellQuote(`Content-Type: ${type ?? 'application/json'}`));
    if (body !== undefined) parts.push('--data-raw', shellQuote(body));
    return parts.join(' ');
  }

  async #send(request: ProbeRequest): Promise<Exchange> {
    const rootPath = this.#root.pathname.replace(/\/+$/, '');
    const url = this.#url(request);
    const headers: Record<string, string> = { accept: 'application/json' };
    const auth = request.auth ?? 'token';
    if (auth === 'token') headers.authorization = `Bearer ${request.token?.value ?? this.#token}`;
    if (auth === 'bad') headers.authorization = `Bearer ${this.#badToken}`;
    if (request.idempotencyKey !== undefined) headers['x-idempotency-key'] = request.idempotencyKey;
    let body: string | undefined;
    if (request.rawBody !== undefined) {
      if (request.contentType !== null) headers['content-type'] = request.contentType ?? 'application/json';
      body = request.rawBody;
    } else if (request.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    const target = url.pathname.slice(rootPath.length) + url.search;
    const { response, body: text } = await this.#exchange(url, { method: request.method, headers, body, redirect: 'manual' }, `${request.method} ${target}`);
    const exchange: Exchange = {
      seq: this.exchanges.length + 1,
      method: request.method,
      target,
      operation: this.spec.operationOf(request.method, url.pathname.slice(rootPath.length)),
      request,
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get('content-type'),
      body: parseBody(text),
      requestId: response.headers.get('x-request-id') || null,
    };
    this.exchanges.push({ seq: exchange.seq, method: exchange.method, target, status: exchange.status, requestId: exchange.requestId });
    return exchange;
  }

  /**
   * One request and its whole answer, within the request timeout and the run's deadline, the body read as a stream
   * up to the size cap and checked for depth; every way this fails stops the run, naming the cause.
   */
  async #exchange(url: URL, init: RequestInit, where: string): Promise<{ response: Response; body: string }> {
    if (this.#signal.aborted) throw this.#signal.reason;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = AbortSignal.any([this.#signal, timeout]);
    const stopped = (error: unknown): never => {
      if (error instanceof VerifyStopped) throw error;
      if (this.#signal.aborted) throw this.#signal.reason;
      if (timeout.aborted) throw new VerifyStopped('timeout', `${where}: no complete answer within ${this.#timeoutMs / 1000} s (--request-timeout)`);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new VerifyStopped('unreachable', `cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    };
    let response: Response;
    try {
      response = await this.#fetch(url, { ...init, signal });
    } catch (error) {
      return stopped(error);
    }
    const tooLarge = (what: string) => new VerifyStopped('too-large', `${where}: the body ${what} (--max-response-size)`);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    const chunks: Uint8Array[] = [];
    const reader = response.body?.getReader();
    try {
      if (Number.isFinite(declared) && declared > this.#maxBytes) throw tooLarge(`announces ${size(declared)}, more than the ${size(this.#maxBytes)} verify reads`);
      let length = 0;
      for (;;) {
        if (!reader) break;
        const { done, value } = await reader.read();
        if (done) break;
        length += value.byteLength;
        if (length > this.#maxBytes) throw tooLarge(`goes past the ${size(this.#maxBytes)} verify reads`);
        chunks.push(value);
      }
    } catch (error) {
      await reader?.cancel().catch(() => undefined);
      return stopped(error);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    if (jsonDeeperThan(body, this.#maxDepth)) throw new VerifyStopped('too-deep', `${where}: the body nests JSON deeper than ${this.#maxDepth} levels; verify does not parse it`);
    return { response, body };
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
