/**
 * Calls to a running sandbox by operationId, over both documents: the public API under the base URL and the
 * control API at its origin. Every request is checked against its operation before it leaves (a recipe or a
 * fixture with a wrong body fails here, not as a 422), every answer is bounded in size and time, and every call is
 * printed as one line with the ids it returned. The token is sent, never printed.
 */
import { randomUUID } from 'node:crypto';
import type { OperationModel } from '../../../../generators/model/model.js';
import { CliError, httpUrl } from './errors.js';
import type { Docs, Operation, RequestInput } from './docs.js';

type Json = Record<string, any>;

/** Where the sandbox is and how to authenticate. */
export interface Target {
  /** The API root, such as `http://127.0.0.1:4010/api/v1`. */
  baseUrl: string;
  /** The server's origin plus any mount path: the control API's paths (`/sandbox/...`) are relative to it. */
  origin: string;
  token: string;
}

/** How to start a sandbox, for every "cannot reach it" message. */
export const START_HINT = 'start one with `npx gen-card-api sandbox` (after `npm install -D @card-api/sandbox`; it prints CARD_API_BASE_URL and CARD_API_TOKEN), or pass --start to listen';

/**
 * The target from `--base-url`/`CARD_API_BASE_URL` and `--token`/`CARD_API_TOKEN`. The origin is the base URL
 * without the path of the spec's server URL (`/api/v1`), so the control API is found beside the public one.
 */
export function resolveTarget(options: { baseUrl?: string | undefined; token?: string | undefined }, docs: Pick<Docs, 'api'>): Target {
  if (!options.baseUrl) throw new CliError('no sandbox given: --base-url (or CARD_API_BASE_URL) is required', START_HINT);
  if (!options.token) throw new CliError('--token (or CARD_API_TOKEN) is required', 'use the CARD_API_TOKEN that `gen-card-api sandbox` printed');
  const url = httpUrl(options.baseUrl, '--base-url', 'pass the API root, such as http://127.0.0.1:4010/api/v1');
  const baseUrl = url.href.replace(/\/+$/, '');
  const prefix = serverPath(docs.api.document as Json);
  const origin = prefix !== '' && baseUrl.endsWith(prefix) ? baseUrl.slice(0, -prefix.length) : url.origin;
  return { baseUrl, origin, token: options.token };
}

/** The path of the spec's first server URL (its variables at their defaults): `/api/v1`. */
function serverPath(document: Json): string {
  const server = (document.servers as Json[] | undefined)?.[0];
  if (!server || typeof server.url !== 'string') return '';
  const url = (server.url as string).replace(/\{([^}]+)\}/g, (_, name: string) => String(server.variables?.[name]?.default ?? ''));
  try {
    return new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** One answer, parsed. */
export interface CallResult {
  operationId: string;
  status: number;
  /** The JSON body (`{ data }` on success, `{ error }` on failure). */
  body: any;
  requestId: string | null;
}

/** A non-2xx answer the caller did not allow. */
export class ApiCallError extends CliError {
  readonly status: number;
  readonly code: string | undefined;
  constructor(readonly call: string, result: CallResult) {
    const code = typeof result.body?.error?.code === 'string' ? (result.body.error.code as string) : undefined;
    const message = typeof result.body?.error?.message === 'string' ? (result.body.error.message as string) : '';
    const fields = result.body?.error?.errors ? ` (${Object.entries(result.body.error.errors as Record<string, string[]>).map(([f, m]) => `${f}: ${[m].flat().join(', ')}`).join('; ')})` : '';
    super(`${call} answered ${result.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}${fields}`, result.requestId ? `request id ${result.requestId}` : undefined);
    this.status = result.status;
    this.code = code;
  }
}

/** Options of one call. */
export interface CallOptions {
  /** Statuses answered without throwing (besides 2xx). */
  allow?: readonly number[];
  /** Do not print the call (heartbeats, polls). */
  quiet?: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Largest answer read from the sandbox; more is refused (the delivery log is the biggest, and it is paged by `limit`). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** The ids and state an answer's `data` carries, for the line printed per call: `uuid=... status=completed`. */
export function summarize(data: unknown): string {
  if (Array.isArray(data)) return `${data.length} item${data.length === 1 ? '' : 's'}`;
  if (!data || typeof data !== 'object') return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(data as Json)) {
    if (value === null || (typeof value !== 'string' && typeof value !== 'number')) continue;
    if (key === 'uuid' || key === 'id' || /_(uuid|id)$/.test(key) || key === 'status' || key === 'type' || /_reason$/.test(key)) parts.push(`${key}=${value}`);
  }
  return parts.join(' ');
}

/** A client of one sandbox. */
export class SandboxApi {
  readonly target: Target;
  readonly docs: Docs;
  readonly #print: (line: string) => void;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;

  constructor(target: Target, docs: Docs, options: { print?: (line: string) => void; fetch?: typeof fetch; timeoutMs?: number } = {}) {
    this.target = target;
    this.docs = docs;
    this.#print = options.print ?? (() => {});
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Prints a progress line (where the command's output says). */
  print(line: string): void {
    this.#print(line);
  }

  /** The operation; a CliError when neither document has it (a recipe bug: fixtures are checked before they run). */
  operation(operationId: string): Operation {
    const op = this.docs.operation(operationId);
    if (!op) throw new CliError(`no operation ${operationId} in the spec or the control document`);
    return op;
  }

  /** `METHOD /path` with the parameters filled in, as printed and as sent (below the base URL or the origin). */
  pathOf(op: OperationModel, params: Record<string, unknown> = {}): string {
    return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
  }

  /**
   * Calls an operation. The request is validated against the operation first (a CliError lists the problems);
   * a write that declares an idempotency header gets a fresh key; a 429 is waited out (`Retry-After`, at most
   * 30 s, three times); any other non-2xx throws an {@link ApiCallError} unless allowed.
   */
  async call(operationId: string, input: RequestInput = {}, options: CallOptions = {}): Promise<CallResult> {
    const operation = this.operation(operationId);
    const problems = this.docs.requestProblems(operation, input);
    if (problems.length > 0) throw new CliError(`${operationId}: the request does not match the ${operation.doc === 'api' ? 'spec' : 'control document'}: ${problems.join('; ')}`);
    const op = operation.model;
    const path = this.pathOf(op, input.path);
    const root = operation.doc === 'api' ? this.target.baseUrl : this.target.origin;
    const url = new URL(root + path);
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value === undefined) continue;
      // Arrays as the parameter's style says: form + explode repeats the name, form without it joins with commas.
      const explode = op.queryParams.find((p) => p.name === name)?.explode ?? true;
      if (Array.isArray(value) && explode) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.target.token}` };
    if (op.idempotencyHeader !== null) headers[op.idempotencyHeader.toLowerCase()] = `gen-card-api-${randomUUID()}`;
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    const shown = `${op.method.toUpperCase()} ${operation.doc === 'api' ? new URL(this.target.baseUrl).pathname.replace(/\/+$/, '') : ''}${path}${url.search}`;
    for (let attempt = 0; ; attempt++) {
      const result = await this.#send(operationId, url, op.method.toUpperCase(), headers, input.body);
      if (result.status === 429 && attempt < 3) {
        const wait = Math.min(Math.max(Number(result.retryAfter) || 1, 1), 30);
        this.print(`  ${shown} → 429, waiting ${wait} s (rate limit)`);
        await sleep(wait * 1000);
        continue;
      }
      const ok = result.status >= 200 && result.status < 300;
      if (!options.quiet) this.print(`  ${shown} → ${result.status}${ok ? ` ${summarize(result.body?.data)}`.trimEnd() : ` ${result.body?.error?.code ?? ''}`.trimEnd()}`);
      if (!ok && !options.allow?.includes(result.status)) throw new ApiCallError(shown, result);
      return result;
    }
  }

  async #send(operationId: string, url: URL, method: string, headers: Record<string, string>, body: unknown): Promise<CallResult & { retryAfter?: string | null }> {
    let response: Response;
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      response = await this.#fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual', signal });
    } catch (error) {
      throw unreachable(this.target, error);
    }
    const text = await readBounded(response, MAX_BODY_BYTES).catch((error: unknown) => {
      throw new CliError(`${method} ${url.pathname}: ${error instanceof Error ? error.message : String(error)}`);
    });
    let parsed: unknown = undefined;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (response.status === 401) throw new TokenRefusedError(`the sandbox at ${this.target.baseUrl} refused the token (401)`, 'use the CARD_API_TOKEN that `gen-card-api sandbox` printed for this sandbox (a sandbox without --db mints a new one on every start)');
    if (parsed === undefined && response.status !== 204) {
      throw new CliError(`${method} ${url.pathname} answered ${response.status} without a JSON body: is ${this.target.origin} a card-api sandbox?`, START_HINT);
    }
    return { operationId, status: response.status, body: parsed, requestId: response.headers.get('x-request-id'), retryAfter: response.headers.get('retry-after') };
  }
}

/** The sandbox does not answer (refused, reset, timed out). */
export class UnreachableError extends CliError {}

/** The sandbox answers, but not to this token (401). */
export class TokenRefusedError extends CliError {}

/** The error for a sandbox that does not answer: names the URL and how to start one. */
export function unreachable(target: Pick<Target, 'baseUrl'>, error: unknown): UnreachableError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const name = (error as { name?: string }).name;
  const why = name === 'TimeoutError' ? 'no answer in time' : (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
  return new UnreachableError(`no sandbox answers at ${target.baseUrl} (${why})`, START_HINT);
}

/** Reads a response body as text, refusing one larger than `max` bytes. */
export async function readBounded(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel();
    throw new Error(`the answer is ${declared} bytes, more than ${max}`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw new Error(`the answer is more than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Order statuses after which nothing changes (contract 3.1). */
const TERMINAL = new Set(['completed', 'failed']);

/**
 * Waits for an asynchronous write's order to end by reading it (the spec's order reader), every 50 ms doubling to
 * 1 s, for at most `timeoutMs`; prints one line with the outcome. Resolves with the order as it ended.
 */
export async function waitForOrder(api: SandboxApi, orderUuid: string, timeoutMs = 30_000): Promise<Json> {
  const reader = api.docs.orderReader();
  const param = reader.model.pathParams[0]!.name;
  const started = Date.now();
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    const { body } = await api.call(reader.model.operationId, { path: { [param]: orderUuid } }, { quiet: true });
    const order = body.data as Json;
    if (TERMINAL.has(String(order.status))) {
      api.print(`  ${reader.model.method.toUpperCase()} ${new URL(api.target.baseUrl).pathname.replace(/\/+$/, '')}${api.pathOf(reader.model, { [param]: orderUuid })} → ${summarize(order)} (after ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return order;
    }
    if (Date.now() - started > timeoutMs) throw new CliError(`order ${orderUuid} is still ${String(order.status)} after ${timeoutMs / 1000} s`, 'is the sandbox running with a very long --latency?');
    await sleep(delay);
  }
}
