/**
 * `gen-card-api listen --forward-to <url>`: a loopback receiver registered as a webhook endpoint of the sandbox,
 * which forwards every delivery to the local app exactly as the sandbox signed it and answers the sandbox with the
 * app's status, so the sandbox's own retry schedule (D19) applies when the app answers non-2xx or is down.
 *
 * The receiver is a port anyone on the machine can POST to, so a delivery is forwarded only once its signature
 * verifies with the endpoint's secret, by `@card-api/webhooks`' own `constructEvent` (the check the app makes; no
 * second verifier): a forged or replayed one is answered 400, shown as refused with the reason, and the app never
 * sees it. Only the headers a webhook is made of are forwarded (FORWARDED_HEADERS), never a caller's
 * Authorization or Cookie, and every string of a delivery is printed through `terminalSafe`.
 *
 * Why a receiver registered as an endpoint: the sandbox already signs, stores, retries and logs deliveries per
 * endpoint; listen adds no second queue, the signature the app checks is the sandbox's own, and `events list`,
 * `events resend` and the retries see listen's endpoint like any other.
 *
 * One endpoint per workspace is kept for listen (description `gen-card-api listen`) and reused on every start, so
 * the `whsec_` printed at start stays the same and the app's configuration stays valid: a stopped session's
 * endpoint (disabled) or a crashed one's (active, but its receiver no longer answers) is pointed at the new
 * receiver. On stop the endpoint is disabled, not left active: a stopped listen is not a receiver, and an active
 * endpoint would make the sandbox queue every new event for a dead port, retry each for hours and finally mark it
 * failing. While it runs, listen checks its endpoint every few seconds: after a sandbox restart on `--db` it finds
 * it again (and re-enables it if the sandbox disabled it); when the endpoint is gone it registers a new one and
 * prints the new secret.
 */
import { EventEmitter } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { constructEvent, WebhookVerificationError } from '@card-api/webhooks';
import { SandboxApi, TokenRefusedError, UnreachableError, type Target } from './api.js';
import { listDeliveries, listEndpoints, type Endpoint } from './deliveries.js';
import type { Docs } from './docs.js';
import { CliError, httpUrl, type Output } from './errors.js';
import { expandGlobs } from './suggest.js';
import { jsonLine, terminalSafe } from '../terminal.js';

/** How listen's endpoint is recognised among the workspace's endpoints. */
export const LISTEN_DESCRIPTION = 'gen-card-api listen';
/** The header listen's receiver answers a GET with, so that a second listen leaves a live session's endpoint alone. */
const LIVE_HEADER = 'x-gen-card-api-listen';
/** Largest delivery accepted from the sandbox (its bodies are a few kilobytes). */
const MAX_DELIVERY_BYTES = 1024 * 1024;
/** Largest answer read from the app (then dropped: only its status matters). */
const MAX_APP_ANSWER_BYTES = 1024 * 1024;
/**
 * The headers forwarded to the app, besides the spec's signature header (`X-Service-Signature`, read from the
 * model) and the Host and Content-Length listen sets itself: what a delivery is made of (the sandbox sends these
 * and nothing else). Everything else is dropped: a header the sandbox does not send did not come from it, and
 * Authorization, Cookie or a proxy's headers must not reach the app as if the sandbox had sent them.
 */
const FORWARDED_HEADERS = ['content-type', 'user-agent'];

/** Options of {@link startListen}. */
export interface ListenOptions {
  target: Target;
  docs: Docs;
  /** The app's webhook URL. */
  forwardTo: string;
  /** Comma-separated event codes or globs (`card.transaction.*`); default every event. */
  events?: string | undefined;
  format?: 'text' | 'json';
  /** Address and port of listen's receiver. Default 127.0.0.1 and a free port. */
  host?: string;
  port?: number;
  /** Longest wait for the app; below the sandbox's own 10 s per attempt, so listen answers first. Default 9 s. */
  forwardTimeoutMs?: number;
  /** How often the endpoint is checked. Default 2 s. */
  heartbeatMs?: number;
  output: Output;
}

/** One forwarded delivery. */
export interface ForwardRecord {
  time: string;
  event: string | null;
  event_id: number | null;
  /** Ids in the event's data: `card`, `order`, `transaction`... */
  ids: Record<string, string>;
  /** The app's status; null when it could not be reached. */
  status: number | null;
  /** What listen answered the sandbox (the app's status, or 502/504). */
  answered: number;
  latency_ms: number;
  /** The same event_id was forwarded before in this session (a retry or a resend). */
  redelivery: boolean;
  error: string | null;
  /**
   * Why the delivery was refused (answered 400, not forwarded): its signature did not verify with the endpoint's
   * secret. `<reason>: <message>` of the `WebhookVerificationError`; null for a forwarded delivery. A refused
   * delivery's body is not read: `event`, `event_id` and `ids` are null and empty, whatever it claimed.
   */
  refused: string | null;
}

/** A running session. */
export interface ListenSession extends EventEmitter<{ delivery: [ForwardRecord]; status: ['up' | 'down']; endpoint: [number] }> {
  readonly endpointId: number;
  /** The endpoint's signing secret: the app verifies deliveries with it. */
  readonly secret: string;
  readonly receiverUrl: string;
  /** Whether the endpoint of an earlier session was reused (same secret). */
  readonly reused: boolean;
  /** Resolves when the session has ended: after `stop()`, or on a fatal error (it rejects then). */
  readonly done: Promise<void>;
  /** Disables the endpoint, lets forwards in flight finish, closes the receiver. Idempotent. */
  stop(): Promise<void>;
}

/** The ids in an event's data, for the printed line: `x_uuid` fields, and nested objects' `uuid` (`transaction`). */
export function idsOf(data: unknown): Record<string, string> {
  const ids: Record<string, string> = {};
  if (!data || typeof data !== 'object') return ids;
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value === 'string' && key.endsWith('_uuid')) ids[key.slice(0, -'_uuid'.length)] = value;
    else if (value && typeof value === 'object' && typeof (value as { uuid?: unknown }).uuid === 'string') ids[key] = (value as { uuid: string }).uuid;
  }
  return ids;
}

/** One line per delivery, as printed in text format; every string that came with the delivery is terminal-safe. */
export function formatRecord(r: ForwardRecord): string {
  const time = r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  if (r.refused !== null) return `${time}  REFUSED (${terminalSafe(r.refused)}); answered ${r.answered}, not forwarded`;
  const ids = Object.entries(r.ids)
    .map(([k, v]) => `${terminalSafe(k)}=${terminalSafe(v)}`)
    .join(' ');
  const head = `${time}  ${r.event === null ? '(not an event)' : terminalSafe(r.event)}${r.event_id !== null ? ` [${r.event_id}]` : ''}${ids ? `  ${ids}` : ''}${r.redelivery ? '  (redelivery)' : ''}`;
  if (r.status === null) return `${head}  → ${terminalSafe(r.error ?? '')} after ${r.latency_ms} ms; answered ${r.answered}, the sandbox retries`;
  const ok = r.status >= 200 && r.status < 300;
  return `${head}  → ${r.status} in ${r.latency_ms} ms${ok ? '' : ', the sandbox retries'}`;
}

function sameEvents(a: Endpoint['events'], b: Endpoint['events']): boolean {
  if (a === '*' || b === '*') return a === b;
  return [...a].sort().join(',') === [...b].sort().join(',');
}

/** Whether a listen receiver answers at `url` (a live session), within a second. */
async function isLiveSession(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.headers.has(LIVE_HEADER);
  } catch {
    return false;
  }
}

/**
 * Sends the delivery's bytes and the headers named in `forwarded` (lower case) to the app; resolves with its
 * status, or the reason it could not answer.
 */
function forward(target: URL, body: Buffer, rawHeaders: string[], forwarded: ReadonlySet<string>, timeoutMs: number): Promise<{ status: number | null; error: string | null; timedOut: boolean }> {
  return new Promise((resolve) => {
    // Raw header pairs keep the sandbox's spelling; Node adds no Host to a raw list, so it is set here.
    const headers: [string, string][] = [['Host', target.host]];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (forwarded.has(rawHeaders[i]!.toLowerCase())) headers.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
    headers.push(['Content-Length', String(body.length)]);
    let settled = false;
    const done = (outcome: { status: number | null; error: string | null; timedOut: boolean }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = (target.protocol === 'https:' ? https : http).request(target, { method: 'POST', agent: false, headers: headers.flat() as unknown as http.OutgoingHttpHeaders });
    const timer = setTimeout(() => {
      request.destroy();
      done({ status: null, error: `no answer within ${timeoutMs} ms`, timedOut: true });
    }, timeoutMs);
    request.on('response', (response) => {
      // Only the status is the answer; the body is drained (bounded in size and time) so the connection can end.
      let read = 0;
      const drain = setTimeout(() => response.destroy(), timeoutMs).unref();
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_APP_ANSWER_BYTES) response.destroy();
      });
      response.on('error', () => undefined);
      response.on('close', () => clearTimeout(drain));
      done({ status: response.statusCode ?? 0, error: null, timedOut: false });
      response.resume();
    });
    request.on('error', (error: NodeJS.ErrnoException) => done({ status: null, error: error.code === 'ECONNREFUSED' ? `connection refused (is your app running at ${target.origin}?)` : (error.code ?? error.message), timedOut: false }));
    request.end(body);
  });
}

/** Reads a request body up to `max` bytes; null when it is larger. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        resolve(null);
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size > max ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Starts a session: the receiver on loopback, the endpoint claimed (reused or registered), the heartbeat. Resolves
 * once the receiver listens and the endpoint points at it; the caller prints the secret.
 */
export async function startListen(options: ListenOptions): Promise<ListenSession> {
  const { output, docs, target } = options;
  const forwardTo = httpUrl(options.forwardTo, '--forward-to', "pass the URL of your app's webhook route, such as http://127.0.0.1:3000/webhooks");
  const events: Endpoint['events'] =
    options.events === undefined
      ? '*'
      : expandGlobs(options.events, docs.events, ({ message, hint }) => {
          throw new CliError(message, hint);
        });
  const format = options.format ?? 'text';
  const forwardTimeoutMs = options.forwardTimeoutMs ?? 9_000;
  const heartbeatMs = options.heartbeatMs ?? 2_000;
  const api = new SandboxApi(target, docs);
  // Proves the sandbox and the token before anything is opened.
  await listEndpoints(api);

  // The signature header is the spec's (every event names the same one); a delivery is verified against it.
  const signatureHeaders = [...new Set(docs.api.events.map((e) => e.signatureHeader.toLowerCase()))];
  const forwarded = new Set([...FORWARDED_HEADERS, ...signatureHeaders]);
  const sessionId = randomUUID();
  /** The endpoint this session delivers through (a heartbeat may move it, and its secret, to another). */
  let endpoint: { id: number; secret: string; reused: boolean };
  /** Settles once the endpoint is first claimed: a delivery waits for it before verifying. */
  let claimed: Promise<unknown>;
  const seen = new Set<number>();
  const inFlight = new Set<Promise<void>>();
  const emitter = new EventEmitter() as ListenSession;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(200, { [LIVE_HEADER]: sessionId, 'content-type': 'text/plain' }).end(`gen-card-api listen, forwarding to ${forwardTo.href}\n`);
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'GET, HEAD, POST' }).end();
      return;
    }
    const body = await readBody(req, MAX_DELIVERY_BYTES);
    if (body === null) {
      res.writeHead(413).end();
      return;
    }
    const started = performance.now();
    // A delivery may arrive while the endpoint is being claimed (a reused endpoint's pending ones): its secret first.
    await claimed;
    const secret = endpoint.secret;
    const header = signatureHeaders.map((name) => req.headers[name]).find((value) => value !== undefined);
    let envelope: { event?: unknown; event_id?: unknown; data?: unknown } = {};
    try {
      envelope = constructEvent(body, typeof header === 'string' ? header : header?.join(','), secret);
    } catch (error) {
      // `invalid_json` comes only after a signature matched: the sandbox signed it, so the app gets it as it is.
      if (!(error instanceof WebhookVerificationError)) throw error;
      if (error.reason !== 'invalid_json') {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`gen-card-api listen: refused: ${error.reason}\n`);
        report({ time: new Date().toISOString(), event: null, event_id: null, ids: {}, status: null, answered: 400, latency_ms: 0, redelivery: false, error: null, refused: `${error.reason}: ${error.message}` });
        return;
      }
    }
    const outcome = await forward(forwardTo, body, req.rawHeaders, forwarded, forwardTimeoutMs);
    const answered = outcome.status ?? (outcome.timedOut ? 504 : 502);
    res.writeHead(answered, { 'content-type': 'text/plain' }).end(outcome.status === null ? `gen-card-api listen: ${outcome.error}\n` : '');
    const eventId = typeof envelope.event_id === 'number' ? envelope.event_id : null;
    const record: ForwardRecord = {
      time: new Date().toISOString(),
      event: typeof envelope.event === 'string' ? envelope.event : null,
      event_id: eventId,
      ids: idsOf(envelope.data),
      status: outcome.status,
      answered,
      latency_ms: Math.round(performance.now() - started),
      redelivery: eventId !== null && seen.has(eventId),
      error: outcome.error,
      refused: null,
    };
    if (eventId !== null) {
      seen.add(eventId);
      // Bounded memory over a long session: only recent ids matter for the "redelivery" mark.
      if (seen.size > 100_000) seen.delete(seen.values().next().value!);
    }
    report(record);
  };
  const report = (record: ForwardRecord): void => {
    output.out(format === 'json' ? jsonLine(record) : formatRecord(record));
    emitter.emit('delivery', record);
  };
  const server = http.createServer((req, res) => {
    const run = handle(req, res)
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      })
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new CliError(`cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0} (${error.code ?? error.message})`, 'pick another --port, or 0 for any free one')));
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const receiverUrl = new URL(`http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/`).href;
  if (Number(forwardTo.port || (forwardTo.protocol === 'https:' ? 443 : 80)) === address.port && ['127.0.0.1', 'localhost', '[::1]', address.address].includes(forwardTo.hostname)) {
    server.close();
    throw new CliError(`--forward-to ${forwardTo.href} is listen's own receiver: every delivery would come back to it`, 'forward to your app\'s port, or pass another --port');
  }

  /** Points listen's endpoint at this receiver: a stopped or crashed session's is reused, else one is registered. */
  const claim = async (): Promise<{ id: number; secret: string; reused: boolean }> => {
    const mine = (await listEndpoints(api)).filter((e) => e.description === LISTEN_DESCRIPTION).reverse();
    for (const endpoint of mine) {
      if (endpoint.url !== receiverUrl && endpoint.status === 'active' && (await isLiveSession(endpoint.url))) continue;
      const path = { endpoint_id: endpoint.id };
      const changes = { ...(endpoint.url !== receiverUrl ? { url: receiverUrl } : {}), ...(!sameEvents(endpoint.events, events) ? { events } : {}) };
      if (Object.keys(changes).length > 0) await api.call('updateWebhookEndpoint', { path, body: changes }, { quiet: true });
      if (endpoint.status !== 'active') await api.call('enableWebhookEndpoint', { path }, { quiet: true });
      const { secret } = (await api.call('getWebhookEndpointSecret', { path }, { quiet: true })).body.data as { secret: string };
      return { id: endpoint.id, secret, reused: true };
    }
    const created = (await api.call('createWebhookEndpoint', { body: { url: receiverUrl, events, description: LISTEN_DESCRIPTION } }, { quiet: true })).body.data as { id: number; secret: string };
    return { id: created.id, secret: created.secret, reused: false };
  };

  const claiming = claim();
  claimed = claiming;
  try {
    endpoint = await claiming;
  } catch (error) {
    server.close();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let down = false;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // A session that ends with an error rejects `done`; one nobody awaits must not crash the process for it.
  done.catch(() => undefined);

  const closeReceiver = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Forwards in flight finish (each is bounded by forwardTimeoutMs), then idle connections go.
    await Promise.race([Promise.allSettled([...inFlight]), new Promise((resolve) => setTimeout(resolve, forwardTimeoutMs + 1000).unref())]);
    server.closeAllConnections();
    await closed;
  };

  const beat = async (): Promise<void> => {
    try {
      const listed = await listEndpoints(api);
      if (down) {
        down = false;
        output.log(`listen: the sandbox at ${target.baseUrl} is back`);
        emitter.emit('status', 'up');
      }
      const current = listed.find((e) => e.id === endpoint.id);
      if (current === undefined || current.url !== receiverUrl) {
        endpoint = await claim();
        output.log(`listen: the sandbox no longer has this session's endpoint (restarted without --db?): ${endpoint.reused ? 'reused' : 'registered'} endpoint ${endpoint.id}`);
        output.log(`> Your webhook signing secret is now ${terminalSafe(endpoint.secret)}`);
        emitter.emit('endpoint', endpoint.id);
      } else if (current.status !== 'active') {
        await api.call('enableWebhookEndpoint', { path: { endpoint_id: endpoint.id } }, { quiet: true });
        output.log(`listen: endpoint ${endpoint.id} was disabled (${terminalSafe(current.disabled_reason ?? 'manual')}); enabled it again. Deliveries cancelled or failed meanwhile: gen-card-api events resend <event_id>`);
        emitter.emit('endpoint', endpoint.id);
      }
    } catch (error) {
      if (error instanceof UnreachableError) {
        if (!down) {
          down = true;
          output.log(`listen: ${error.message}; waiting for it to come back (a sandbox restarted on the same --db keeps this endpoint)`);
          emitter.emit('status', 'down');
        }
      } else if (error instanceof TokenRefusedError) {
        output.log(`listen: ${error.message}; stopping`);
        void finish(error);
        return;
      } else {
        output.log(`listen: checking the endpoint failed: ${terminalSafe(error instanceof Error ? error.message : String(error))}`);
      }
    }
    if (stopping === undefined) timer = setTimeout(() => void beat(), heartbeatMs);
  };

  const finish = (error?: unknown): Promise<void> =>
    (stopping ??= (async () => {
      clearTimeout(timer);
      if (error === undefined) {
        // Counted first (up to a bound), because disabling cancels them; a failed count must not stop the disable.
        const waiting = await listDeliveries(api, { endpoint_id: endpoint.id, status: 'pending', limit: 1000 }).then(
          (list) => list.length,
          () => 0,
        );
        try {
          await api.call('disableWebhookEndpoint', { path: { endpoint_id: endpoint.id } }, { quiet: true });
          output.log(
            `listen: disabled endpoint ${endpoint.id}; the next listen reuses it with the same secret${waiting > 0 ? ` (${waiting === 1000 ? '1000 or more' : waiting} deliver${waiting === 1 ? 'y' : 'ies'} waiting for a retry cancelled: gen-card-api events resend <event_id> sends one again)` : ''}`,
          );
        } catch (failure) {
          output.log(`listen: could not disable endpoint ${endpoint.id} (${failure instanceof Error ? failure.message : String(failure)}); the next listen reuses it`);
        }
      }
      await closeReceiver();
      if (error === undefined) settle.resolve();
      else settle.reject(error);
    })());

  timer = setTimeout(() => void beat(), heartbeatMs);
  // Getters, not copies: a heartbeat may move the session to another endpoint (and secret).
  return Object.defineProperties(emitter, {
    endpointId: { get: () => endpoint.id, enumerable: true },
    secret: { get: () => endpoint.secret, enumerable: true },
    reused: { get: () => endpoint.reused, enumerable: true },
    receiverUrl: { value: receiverUrl, enumerable: true },
    done: { value: done, enumerable: true },
    stop: { value: () => finish(), enumerable: true },
  });
}
