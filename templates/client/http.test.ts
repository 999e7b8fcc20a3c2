/**
 * The runtime against Node's real fetch and a real HTTP server on localhost: what the injected
 * fetches of the other tests cannot show is whether a deadline or an abort really closes the
 * connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientCore, type OperationDescriptor } from './core.js';
import { NotFoundError, TimeoutError } from './errors.js';

const getCard = { method: 'get', path: '/cards/{uuid}', write: false } as const satisfies OperationDescriptor;
const createCard = { method: 'post', path: '/cards', write: true } as const satisfies OperationDescriptor;

let server: Server;
let baseUrl: string;
const closed = new Map<string, Promise<void>>();
/** Resolves when the server has received a request for the path (created on first ask, by either side). */
const arrivals = new Map<string, { promise: Promise<void>; resolve: () => void }>();
function arrival(id: string): { promise: Promise<void>; resolve: () => void } {
  let entry = arrivals.get(id);
  if (!entry) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    entry = { promise, resolve };
    arrivals.set(id, entry);
  }
  return entry;
}
const keys: string[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const id = req.url ?? '';
  closed.set(id, new Promise<void>((resolve) => res.on('close', () => resolve())));
  arrival(id).resolve();
  if (id === '/api/v1/cards/ok') {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_real' });
    res.end(JSON.stringify({ data: { uuid: 'ok', auth: req.headers.authorization, ua: req.headers['user-agent'] } }));
  } else if (id === '/api/v1/cards/stall-body') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":{"uuid":'); // and never more
  } else if (id === '/api/v1/cards/stall-headers') {
    // never answers
  } else if (id === '/api/v1/cards') {
    keys.push(String(req.headers['x-idempotency-key']));
    if (keys.length === 1) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: { code: 'api.internal_error', message: 'busy', request_id: 'r1' } }));
    } else {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { uuid: 'order-1', status: 'pending' } }));
    }
  } else {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'card.not_found', message: 'Card not found', request_id: 'r404' } }));
  }
}

beforeAll(async () => {
  server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('over real HTTP', () => {
  it('sends the headers and unwraps the body', async () => {
    const core = new ClientCore({ token: 'real_sk_abc', baseUrl });
    const card = await core.request<{ uuid: string; auth: string; ua: string }>(getCard, { path: { uuid: 'ok' } });
    expect(card).toMatchObject({ uuid: 'ok', auth: 'Bearer real_sk_abc' });
    expect(card.ua).toMatch(/^card-api-kit-client\//);
    expect(card.lastResponse.requestId).toBe('req_real');
  });

  it('maps a real 404', async () => {
    const core = new ClientCore({ token: 'real_sk_abc', baseUrl });
    await expect(core.request(getCard, { path: { uuid: 'nope' } })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('retries a 503 write with the same key', async () => {
    const core = new ClientCore({ token: 'real_sk_abc', baseUrl });
    const order = await core.request<{ uuid: string }>(createCard, { body: { card_product_id: 1 } });
    expect(order.uuid).toBe('order-1');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('closes the connection when the deadline passes mid-body', async () => {
    const core = new ClientCore({ token: 'real_sk_abc', baseUrl, timeoutMs: 100, maxRetries: 0 });
    await expect(core.request(getCard, { path: { uuid: 'stall-body' } })).rejects.toBeInstanceOf(TimeoutError);
    // Resolves only when the server sees the socket close; a connection left open fails by the test timeout.
    await closed.get('/api/v1/cards/stall-body');
  });

  it('closes the connection when the caller aborts before the headers', async () => {
    const core = new ClientCore({ token: 'real_sk_abc', baseUrl, maxRetries: 0 });
    const ac = new AbortController();
    const p = core.request(getCard, { path: { uuid: 'stall-headers' } }, { signal: ac.signal });
    // Abort once the server holds the request, so the abort really lands before the headers.
    await arrival('/api/v1/cards/stall-headers').promise;
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    await closed.get('/api/v1/cards/stall-headers');
  });
});
