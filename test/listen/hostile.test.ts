/**
 * `listen`, `trigger` and `events` against hostile input (issue 31). listen's receiver is a port anyone on the
 * machine can POST to: a delivery whose signature does not verify with the endpoint's secret is answered 400, never
 * reaches the app, and is printed as refused; a verified one reaches the app with only the headers a webhook is made
 * of. Whatever a delivery or a server says (escape sequences, CR, bidi overrides, arbitrary code units), the lines
 * printed hold no raw control character and no line break. A real sandbox on loopback owns listen's endpoint; the
 * hostile deliveries are posted straight to the receiver, signed (or not) with `@card-api/webhooks/testing`.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type RunningSandbox } from '@card-api/sandbox';
import { signPayload } from '@card-api/webhooks/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../packages/cli/src/sandbox-tools/api.js';
import { loadDocs } from '../../packages/cli/src/sandbox-tools/docs.js';
import { formatRecord, startListen, type ForwardRecord, type ListenSession } from '../../packages/cli/src/sandbox-tools/listen.js';
import { runTrigger } from '../../packages/cli/src/sandbox-tools/trigger.js';
import { headerHostileText, RAW_TERMINAL_CONTROL, terminalHostileText } from '../helpers/hostile-payloads.js';
import { runCli as cli } from '../helpers/processes.js';

const docs = await loadDocs();

/** The app listen forwards to: keeps every request's headers and body, answers 200. */
class Spy {
  readonly requests: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  readonly #server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/webhooks`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

let sandbox: RunningSandbox;
let spy: Spy;
let session: ListenSession;
const lines: string[] = [];
const records: ForwardRecord[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, sandboxOptions: { rateLimits: { tokenPerMinute: 0, ipPerMinute: 0 }, onError: () => {} } });
  spy = await new Spy().start();
  session = await startListen({ target: resolveTarget({ baseUrl: sandbox.baseUrl, token: sandbox.token! }, docs), docs, forwardTo: spy.url, output: { out: (l) => void lines.push(l), log: (l) => void lines.push(l) }, heartbeatMs: 60_000 });
  session.on('delivery', (r) => void records.push(r));
});

afterAll(async () => {
  await session?.stop();
  await spy?.close();
  await sandbox?.close();
});

/** POSTs a delivery straight to listen's receiver; resolves with the status and the record listen made of it. */
async function post(body: string, headers: Record<string, string>): Promise<{ status: number; record: ForwardRecord; line: string }> {
  const before = records.length;
  const response = await fetch(session.receiverUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  await response.arrayBuffer();
  // listen records a delivery before it answers a refused one, and right after it answered a forwarded one.
  await expect.poll(() => records.length).toBe(before + 1);
  return { status: response.status, record: records[before]!, line: lines.at(-1)! };
}

const event = (fields: { event?: string; event_id?: number; data?: unknown } = {}): string => JSON.stringify({ event: 'order.completed', event_id: 1, workspace_id: 1, occurred_at: '2026-11-27T00:00:00Z', data: { order_uuid: 'o' }, ...fields });
const signed = (body: string, secret = session.secret): Record<string, string> => ({ 'x-service-signature': signPayload(body, secret) });

describe('listen verifies every delivery before it forwards or prints it', () => {
  it.each([
    ['no signature header', () => ({}), 'missing_header'],
    ['a signature by another secret', (body: string) => signed(body, 'whsec_not_the_endpoints'), 'no_matching_signature'],
    ['a signature over other bytes', () => signed(event({ event_id: 2 })), 'no_matching_signature'],
    ['a replay from an hour ago', (body: string) => ({ 'x-service-signature': signPayload(body, session.secret, { timestamp: Math.floor(Date.now() / 1000) - 3600 }) }), 'timestamp_out_of_tolerance'],
    ['a malformed header', () => ({ 'x-service-signature': 'v1=abc' }), 'malformed_header'],
  ])('%s: answered 400, not forwarded, printed as refused with the reason', async (_name, headers, reason) => {
    const body = event({ event: 'order.completed', event_id: 1 });
    const forwarded = spy.requests.length;
    const { status, record, line } = await post(body, headers(body));
    expect(status).toBe(400);
    expect(spy.requests.length).toBe(forwarded);
    expect(record).toMatchObject({ event: null, event_id: null, ids: {}, status: null, answered: 400, refused: expect.stringMatching(new RegExp(`^${reason}: `)) });
    expect(line).toMatch(new RegExp(`^\\S+ \\S+  REFUSED \\(${reason}: .+\\); answered 400, not forwarded$`));
    // Whatever the forged body claimed is not printed.
    expect(line).not.toContain('order.completed');
  });

  it('forwards a verified delivery with only the headers a webhook is made of: never Authorization, Cookie or a proxy header', async () => {
    const body = event({ event_id: 7 });
    const { status, record } = await post(body, { ...signed(body), authorization: 'Bearer sbx_sk_stolen', cookie: 'session=1', 'x-forwarded-for': '10.0.0.1', 'x-custom': 'y', 'user-agent': 'card-api-sandbox-webhooks/1' });
    expect(status).toBe(200);
    expect(record).toMatchObject({ event: 'order.completed', event_id: 7, status: 200, refused: null });
    const got = spy.requests.at(-1)!;
    expect(got.body).toBe(body);
    // Connection is Node's own, for the one-request connection listen opens (agent: false).
    expect(Object.keys(got.headers).sort()).toEqual(['connection', 'content-length', 'content-type', 'host', 'user-agent', 'x-service-signature']);
    expect(got.headers.connection).toBe('close');
  });

  it('a verified body that is not JSON is the sandbox\'s: forwarded, printed as not an event', async () => {
    const body = 'not json \x1b[2J';
    const { status, record, line } = await post(body, signed(body));
    expect(status).toBe(200);
    expect(record).toMatchObject({ event: null, refused: null, status: 200 });
    expect(spy.requests.at(-1)!.body).toBe(body);
    expect(line).toContain('(not an event)');
  });

  it('arbitrary bodies under a forged signature are never forwarded', async () => {
    const forwarded = spy.requests.length;
    await fc.assert(
      fc.asyncProperty(terminalHostileText, headerHostileText, async (text, signature) => {
        const { status, record, line } = await post(event({ event: text, data: { card_uuid: text } }), { 'x-service-signature': signature });
        expect(status).toBe(400);
        expect(record.refused).not.toBeNull();
        expect(line).not.toMatch(RAW_TERMINAL_CONTROL);
      }),
      { numRuns: 30 },
    );
    expect(spy.requests.length).toBe(forwarded);
  });

  it('arbitrary strings in a verified delivery (event, ids) are printed escaped, on one line', async () => {
    let reached = 0;
    await fc.assert(
      fc.asyncProperty(terminalHostileText, terminalHostileText, fc.integer({ min: 1, max: 2 ** 31 }), async (name, id, eventId) => {
        const body = event({ event: name, event_id: eventId, data: { card_uuid: id, [`${id}_uuid`]: name, transaction: { uuid: id } } });
        const { status, record, line } = await post(body, signed(body));
        expect(status).toBe(200);
        expect(record.event).toBe(name);
        expect(line).not.toMatch(RAW_TERMINAL_CONTROL);
        if (RAW_TERMINAL_CONTROL.test(name) || RAW_TERMINAL_CONTROL.test(id)) reached++;
      }),
      { numRuns: 30 },
    );
    expect(reached).toBeGreaterThan(10);
  });

  it('a real delivery from the sandbox still verifies and reaches the app', async () => {
    const result = await runTrigger({ event: 'card.frozen', baseUrl: sandbox.baseUrl, token: sandbox.token! }, { out: () => {}, log: () => {} });
    await expect.poll(() => records.find((r) => r.event_id === result.eventId)?.status).toBe(200);
    expect(records.find((r) => r.event_id === result.eventId)?.refused).toBeNull();
  });
});

describe('formatRecord', () => {
  it('escapes the issue\'s forged line: an event name with CR and escape sequences cannot print over another line', () => {
    const line = formatRecord({ time: '2026-11-27T00:00:00.000Z', event: 'x\r\x1b[1Aorder.completed [1] -> 200\n', event_id: 1, ids: { 'a\x1b': 'b\u202e' }, status: 200, answered: 200, latency_ms: 1, redelivery: false, error: null, refused: null });
    expect(line).toBe('2026-11-27 00:00:00Z  x\\r\\x1b[1Aorder.completed [1] -> 200\\n [1]  a\\x1b=b\\u202e  → 200 in 1 ms');
  });
});

/** A sandbox impostor: every answer carries `text` in each string the CLI prints, and X-Request-Id `header`. */
async function impostor(text: string, header: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const headers = { 'content-type': 'application/json', 'x-request-id': header };
    if ((req.url ?? '').startsWith('/sandbox/webhook-deliveries')) {
      const delivery = { id: 1, event_id: 2, event: text, status: text, attempts: 1, last_status: null, last_error: text, endpoint_id: 3, created_at: text, body: text };
      res.writeHead(200, headers).end(JSON.stringify({ data: [delivery] }));
    } else res.writeHead(409, headers).end(JSON.stringify({ error: { code: text, message: text, request_id: text, errors: { [text]: [text] } } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('trigger and events against a server that answers with escape sequences (the real CLI)', () => {
  const text = 'x\x1b]0;owned\x07\x1b[2J\r\x1b[1Aall good\n2026-11-27 order.completed [1] → 200\u202e\x9b';
  const escaped = 'x\\x1b]0;owned\\x07\\x1b[2J\\r\\x1b[1Aall good\\n2026-11-27 order.completed [1] → 200\\u202e\\x9b';
  const noRawControl = (output: string): void => {
    for (const line of output.split('\n')) expect(line).not.toMatch(RAW_TERMINAL_CONTROL);
  };

  it('events list: the table, and JSON lines that still parse to the exact strings', async () => {
    const server = await impostor(text, 'req\x9b2J');
    try {
      const table = await cli(['events', 'list', '--base-url', server.baseUrl, '--token', 'sbx_sk_x']);
      expect(table.code, table.stderr).toBe(0);
      noRawControl(table.stdout);
      expect(table.stdout.split('\n').filter(Boolean)).toHaveLength(2);
      expect(table.stdout).toContain(escaped);
      const json = await cli(['events', 'list', '--base-url', server.baseUrl, '--token', 'sbx_sk_x', '--format', 'json']);
      expect(json.code, json.stderr).toBe(0);
      noRawControl(json.stdout);
      expect((JSON.parse(json.stdout) as { event: string }).event).toBe(text);
    } finally {
      await server.close();
    }
  });

  it('trigger: the calls it prints and the error the server answered, escaped, each on its own line', async () => {
    const server = await impostor(text, 'req\x9b2J');
    try {
      const run = await cli(['trigger', 'order.completed', '--base-url', server.baseUrl, '--token', 'sbx_sk_x']);
      expect(run.code).toBe(2);
      noRawControl(run.stdout);
      noRawControl(run.stderr);
      expect(run.stderr).toMatch(/^gen-card-api trigger: GET \/api\/v1\/card-products answered 409 x\\x1b\]0;owned/m);
      expect(run.stderr).toContain('request id req\\x9b2J');
      expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
