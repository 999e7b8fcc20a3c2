/**
 * Shared pieces of the contract tests: a sandbox on 127.0.0.1 (port 0, real HTTP), a fetch wrapper that
 * captures every response for validation against the spec, fresh funded workspaces, and the spec's route
 * table (method + path template + operationId).
 */
import { ABILITIES, startSandbox, type RunningSandbox, type Sandbox, type StartSandboxOptions } from '@card-api/sandbox';
import { CardApiClient, type ClientOptions, type FetchFn } from '@card-api/client';
import { SpecValidator } from '../helpers/spec-validator.js';
import { testDatabase } from '../../packages/sandbox/src/test-support.js';
import { WAIT_MS } from '../helpers/limits.js';

/** One validator for all contract tests: strict, so undeclared fields fail. */
export const validator = new SpecValidator({ strict: true });

/** One operation of the spec. */
export interface SpecOperation {
  operationId: string;
  method: 'GET' | 'POST';
  /** Path template, `/cards/{uuid}`. */
  route: string;
  pattern: RegExp;
  /** Declared response statuses. */
  statuses: number[];
}

/** Every operation of the spec, read from the document the validator loaded. */
export const OPERATIONS: SpecOperation[] = Object.entries(validator.document.paths as Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>).flatMap(
  ([route, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post'].includes(method))
      .map(([method, op]) => ({
        operationId: op.operationId,
        method: method.toUpperCase() as 'GET' | 'POST',
        route,
        pattern: new RegExp(`^${route.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        statuses: Object.keys(op.responses).map(Number),
      })),
);

/** The operation a request went to, from its method and path below the API root; undefined for none. */
export function operationOf(method: string, pathBelowRoot: string): SpecOperation | undefined {
  return OPERATIONS.find((op) => op.method === method.toUpperCase() && op.pattern.test(pathBelowRoot));
}

/** One response as the wire delivered it. */
export interface Captured {
  method: string;
  path: string;
  operation: SpecOperation | undefined;
  status: number;
  contentType: string | null;
  body: unknown;
}

/** Parses a response body as JSON, keeping the raw text when it is not JSON (the validator then reports it). */
export function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Spec problems of one captured response: unknown operation, undeclared status, wrong type, schema errors. */
export function problemsOf(c: Captured): string[] {
  if (c.operation === undefined) return [`${c.method} ${c.path}: no operation in the spec`];
  return validator.responseErrors(c.method, c.operation.route, c.status, c.contentType, c.body).map((p) => `${c.method} ${c.path} ${c.status}: ${p}`);
}

/**
 * A fetch for the client that records every response (status, content type, parsed body) and hands the
 * client an untouched clone.
 */
export class Recorder {
  readonly captured: Captured[] = [];
  readonly #root: string;

  constructor(baseUrl: string) {
    this.#root = new URL(baseUrl).pathname.replace(/\/+$/, '');
  }

  /** Records one response already received for `request`. */
  async record(method: string, url: string, response: Response): Promise<Captured> {
    const path = new URL(url).pathname.slice(this.#root.length);
    const captured: Captured = {
      method,
      path,
      operation: operationOf(method, path),
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: parseBody(await response.clone().text()),
    };
    this.captured.push(captured);
    return captured;
  }

  readonly fetch: FetchFn = async (request) => {
    const response = await fetch(request);
    await this.record(request.method, request.url, response);
    return response;
  };

  /** Every spec problem of every response recorded so far. */
  problems(): string[] {
    return this.captured.flatMap(problemsOf);
  }
}

/** High ceilings: the tests send far more than the default 600 requests a minute from 127.0.0.1. */
export const HIGH_RATE_LIMITS = { tokenPerMinute: 1_000_000, ipPerMinute: 1_000_000 };

/** Starts a sandbox on 127.0.0.1 with a free port, orders that move at once, and high rate limits. */
export function startTestSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  // In memory, or a schema of its own in the PostgreSQL run (test/postgres/vitest.config.ts).
  const db = testDatabase();
  return startSandbox({
    port: 0,
    host: '127.0.0.1',
    orderLatencyMs: 0,
    ...(db === undefined ? {} : { db }),
    ...options,
    sandboxOptions: { rateLimits: HIGH_RATE_LIMITS, onError: (error) => console.error('[sandbox]', error), ...options.sandboxOptions },
  });
}

/** A funded workspace of its own with an every-ability token, so counts in one test start from zero. */
export function freshWorkspace(sandbox: Sandbox, name: string, amount = '10000.00'): { workspaceId: number; token: string; tokenId: number } {
  const ws = sandbox.admin.createWorkspace({ name });
  sandbox.admin.deposit(ws.id, { amount, description: 'contract test funding' });
  const created = sandbox.admin.createToken(ws.id, { name: `${name} token`, abilities: [...ABILITIES] });
  return { workspaceId: ws.id, token: created.token, tokenId: created.id };
}

/** A client on the sandbox; instant back-off so retries never wait. */
export function clientFor(baseUrl: string, token: string, options: Partial<ClientOptions> = {}): CardApiClient {
  return new CardApiClient({ baseUrl, token, sleep: async () => undefined, ...options });
}

/** A valid `POST /cards` body for the seeded product 1. */
export function issueBody(overrides: Record<string, unknown> = {}): { card_product_id: number; initial_topup_amount: string; cardholder_first_name: string; cardholder_last_name: string } {
  return { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace', ...overrides };
}

/** Fast polling for `orders.wait`: orders move at once in these sandboxes. */
export const FAST_WAIT = { intervalMs: 5, timeoutMs: WAIT_MS };
