/**
 * Pieces of the end-to-end suite: a real webhook receiver on 127.0.0.1 built with `@card-api/webhooks`
 * that keeps every raw delivery (bytes, signature header, answer), checks each body against the spec and
 * re-verifies its signature on its own; a fetch that keeps every raw REST body the client received; a
 * bounded poll; exact decimal helpers.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Decimal } from '@card-api/client';
import { constructEvent, createWebhookHandler, type CardApiEvent, type WebhookHandler } from '@card-api/webhooks';
import type { SpecValidator } from '../helpers/spec-validator.js';
import { WAIT_MS } from '../helpers/limits.js';

/** One HTTP request a receiver got, as it came over the wire, and what the receiver answered. */
export interface RawDelivery {
  /** Receiver name, for messages. */
  receiver: string;
  body: Buffer;
  signature: string;
  /** `t` of the signature header, unix seconds. */
  t: number;
  /** `event` and `event_id` read from the body (null when it is not JSON). */
  event: string | null;
  eventId: number | null;
  /** The status answered: the dispatcher's (200, 400, 409, 500) or 503 while the receiver is "down". */
  status: number;
  /** The dispatcher's outcome (`handled`, `duplicate`, `failed`, `rejected`...) or `down`. */
  outcome: string;
  /** Spec problems of the body (strict webhook schema); empty when valid. */
  specErrors: string[];
  /** Why an independent `constructEvent` against the sandbox clock refused it; null when it verified. */
  verifyError: string | null;
}

/** Options of {@link startReceiver}. */
export interface ReceiverOptions {
  name: string;
  validator: SpecValidator;
  /**
   * Registers the receiver's business handlers on the dispatcher. They run before the receiver's own
   * bookkeeping handler, so an event counts as handled only when they all succeeded.
   */
  configure?: (handler: WebhookHandler<CardApiEvent>) => void;
}

/**
 * A webhook receiver: `node:http` on 127.0.0.1 with a `createWebhookHandler` dispatcher (made once the
 * endpoint's secret is known). `handled` holds each event the handlers ran to completion, once per
 * `event_id` (the dispatcher deduplicates), `raw` every request.
 */
export interface Receiver {
  readonly name: string;
  readonly url: string;
  /** Set by `useSecret` after the endpoint is registered. */
  handler: WebhookHandler<CardApiEvent> | undefined;
  readonly raw: RawDelivery[];
  readonly handled: CardApiEvent[];
  /** Makes the dispatcher with the endpoint's signing secret (`whsec_...`). */
  useSecret(secret: string): void;
  /** Stops listening: connections are refused until `up`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Handled events named `name`. */
  eventsNamed<N extends CardApiEvent['event']>(name: N): Extract<CardApiEvent, { event: N }>[];
  close(): Promise<void>;
}

export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const raw: RawDelivery[] = [];
  const handled: CardApiEvent[] = [];
  let secret = '';
  let listening = false;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const signature = String(req.headers['x-service-signature'] ?? '');
        let parsed: { event?: unknown; event_id?: unknown } | undefined;
        try {
          parsed = JSON.parse(body.toString('utf8')) as typeof parsed;
        } catch {
          parsed = undefined;
        }
        let verifyError: string | null = null;
        try {
          // On the real clock, as a user's receiver: the sandbox signs with real time however far its clock moved.
          constructEvent(body, signature, secret);
        } catch (error) {
          verifyError = String(error);
        }
        const entry: RawDelivery = {
          receiver: options.name,
          body,
          signature,
          t: Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]),
          event: typeof parsed?.event === 'string' ? parsed.event : null,
          eventId: typeof parsed?.event_id === 'number' ? parsed.event_id : null,
          status: 0,
          outcome: '',
          specErrors: parsed === undefined ? ['body is not JSON'] : options.validator.webhookErrors(parsed),
          verifyError,
        };
        raw.push(entry);
        if (receiver.handler === undefined) {
          entry.status = 503;
          entry.outcome = 'no secret yet';
        } else {
          const result = await receiver.handler.handle(body, signature);
          entry.status = result.status;
          entry.outcome = result.outcome;
        }
        res.statusCode = entry.status;
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      })().catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        listening = true;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;

  const receiver: Receiver = {
    name: options.name,
    url: `http://127.0.0.1:${port}/webhooks/${options.name}`,
    handler: undefined,
    raw,
    handled,
    useSecret(value) {
      secret = value;
      const handler = createWebhookHandler({
        secrets: value,
        onUnknownEvent: (event) => {
          throw new Error(`${options.name}: unknown event ${event.event}`);
        },
      });
      options.configure?.(handler);
      // Bookkeeping last: it runs only when every business handler before it succeeded.
      const record = (event: CardApiEvent): void => void handled.push(event);
      handler.on('card.*', record).on('order.*', record);
      receiver.handler = handler;
    },
    down: stop,
    up: () => listen(port),
    eventsNamed: <N extends CardApiEvent['event']>(name: N) => handled.filter((e): e is Extract<CardApiEvent, { event: N }> => e.event === name),
    close: stop,
  };
  return receiver;
}

/** One REST response as the client received it. */
export interface RawResponse {
  method: string;
  url: string;
  status: number;
  body: string;
  /** Prism's `sl-violations` header when the call went through a Prism proxy and it found any. */
  violations?: string;
}

/** A fetch (for `CardApiClient` or the control client) that keeps every raw response body; the caller gets an untouched clone. */
export function recordingFetch(into: RawResponse[]): (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const violations = response.headers.get('sl-violations');
    into.push({ method: request.method, url: request.url, status: response.status, body: await response.clone().text(), ...(violations === null ? {} : { violations }) });
    return response;
  };
}

/**
 * Polls `check` every `intervalMs` until it returns something other than `undefined`/`false`, and returns
 * that; fails with `what` after `timeoutMs`. The one way the suite waits: on a condition, never a bare sleep.
 */
export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, { timeoutMs = WAIT_MS, intervalMs = 10 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Exact decimal sum of API decimal strings, at 2 decimals. */
export function dsum(...values: string[]): string {
  return values.reduce((acc, v) => acc.add(Decimal.parse(v)), Decimal.parse('0')).toFixed(2);
}

/** `a - b` at 2 decimals. */
export function dsub(a: string, b: string): string {
  return Decimal.parse(a).sub(Decimal.parse(b)).toFixed(2);
}

/** Every key of a parsed JSON value, at any depth. */
export function jsonKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) jsonKeys(v, into);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      jsonKeys(v, into);
    }
  }
  return into;
}

/** Every string or number leaf of a parsed JSON value, as strings. */
export function jsonLeaves(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) jsonLeaves(v, into);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) jsonLeaves(v, into);
  else if (typeof value === 'string' || typeof value === 'number') into.push(String(value));
  return into;
}

/** A Prism validation proxy (`prism proxy --errors`) in front of an upstream. */
export interface PrismProxy {
  /** The proxy's root: a spec path `/ping` is `<url>/ping`. */
  readonly url: string;
  /** Everything Prism printed, for failure messages. */
  log(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts `@stoplight/prism-cli` as a validating proxy: every request and response is checked against the
 * document at `specUrl` (fetched from the sandbox, so its `servers` names the sandbox), and with `--errors`
 * any violation becomes an error answer instead of a passed-through body. Resolves once Prism listens.
 *
 * The document is fetched here and handed to Prism as a file: Prism 5's own download fails on Node 24 (its fetch
 * polyfill's AbortSignal is not the platform's: "Expected signal to be an instance of AbortSignal"), and what it
 * validates against is the same bytes the sandbox serves either way.
 */
export async function startPrism(specUrl: string, upstream: string, root: string): Promise<PrismProxy> {
  const port = await freePort();
  const bin = path.join(root, 'node_modules/.bin/prism');
  const served = await fetch(specUrl);
  if (!served.ok) throw new Error(`GET ${specUrl} answered ${served.status}`);
  const folder = await mkdtemp(path.join(tmpdir(), 'prism-spec-'));
  const document = path.join(folder, 'openapi.yaml');
  await writeFile(document, await served.text());
  const child = spawn(bin, ['proxy', '--errors', document, upstream, '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = once(child, 'exit');
  await waitFor(`prism listening on ${port}`, () => {
    if (child.exitCode !== null) throw new Error(`prism exited (${child.exitCode}): ${output}`);
    return output.includes('Prism is listening');
  }, { intervalMs: 50 });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(folder, { recursive: true, force: true });
    },
  };
}
