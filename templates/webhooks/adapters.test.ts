import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cardFrozen, orderCompleted, type TestEvent } from './__fixtures__/events.js';
import { fastifyWebhookPlugin } from './adapters/fastify.js';
import { toFetchHandler } from './adapters/fetch.js';
import { toExpressMiddleware, toNodeHandler } from './adapters/node.js';
import { createWebhookHandler } from './handler.js';
import { createWebhookHandler as createWebHandler } from './handler-web.js';
import { signPayload } from './signature.js';

const SECRET = 'whsec_adapters';
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

function handler() {
  const seen: TestEvent[] = [];
  const h = createWebhookHandler<TestEvent>({ secrets: SECRET, onUnknownEvent: () => {} })
    .on('card.frozen', (e) => void seen.push(e))
    .on('order.completed', () => {
      throw new Error('secret internals');
    });
  return { h, seen };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function post(url: string, body: string, header: string | undefined, contentType: string | null = 'application/json') {
  const headers: Record<string, string> = {};
  if (header !== undefined) headers['x-service-signature'] = header;
  if (contentType) headers['content-type'] = contentType;
  return fetch(url, { method: 'POST', body, headers });
}

/** The behaviour every adapter must show, run against a live URL. */
function sharedCases(start: (h: ReturnType<typeof handler>['h']) => Promise<string>) {
  it('answers 200 for a valid delivery and passes the typed event', async () => {
    const { h, seen } = handler();
    const url = await start(h);
    const body = JSON.stringify(cardFrozen(1), null, 2);
    const res = await post(url, body, signPayload(body, SECRET));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, outcome: 'handled' });
    expect(seen).toEqual([cardFrozen(1)]);
    const again = await post(url, body, signPayload(body, SECRET));
    expect(await again.json()).toEqual({ received: true, outcome: 'duplicate' });
  });

  it('verifies the exact bytes, including non-ASCII text and a charset parameter', async () => {
    const { h, seen } = handler();
    const url = await start(h);
    const event = { ...cardFrozen(2), data: { ...cardFrozen(2).data, reason: 'Überprüfung – 風險 ✓' } };
    const body = JSON.stringify(event);
    const res = await post(url, body, signPayload(body, SECRET), 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
    expect(seen[0]?.data).toMatchObject({ reason: 'Überprüfung – 風險 ✓' });
  });

  it('answers 400 with the reason for a bad signature or a missing header', async () => {
    const url = await start(handler().h);
    const body = JSON.stringify(cardFrozen(3));
    const bad = await post(url, body, signPayload(body, 'whsec_wrong'));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'no_matching_signature' } });
    const missing = await post(url, body, undefined);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_header' } });
  });

  it('answers 500 without leaking the error when a handler throws', async () => {
    const url = await start(handler().h);
    const body = JSON.stringify(orderCompleted(4));
    const res = await post(url, body, signPayload(body, SECRET));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).toContain('handler_failed');
    expect(text).not.toContain('secret internals');
  });
}

describe('node:http adapter', () => {
  const start = (h: ReturnType<typeof handler>['h']) => listen(createServer(toNodeHandler(h, { maxBodyBytes: 4096 })));
  sharedCases(start);

  it('answers 413 above maxBodyBytes', async () => {
    const url = await start(handler().h);
    const body = JSON.stringify({ ...cardFrozen(5), pad: 'x'.repeat(5000) });
    const res = await post(url, body, signPayload(body, SECRET));
    expect(res.status).toBe(413);
  });

  it('verifies a body without a content-type', async () => {
    const url = await start(handler().h);
    const body = JSON.stringify(cardFrozen(6));
    expect((await post(url, body, signPayload(body, SECRET), null)).status).toBe(200);
  });
});

describe('Express middleware', () => {
  describe('without any body parser', () => {
    sharedCases((h) => {
      const app = express();
      app.post('/webhooks', toExpressMiddleware(h));
      return listen(createServer(app)).then((u) => `${u}/webhooks`);
    });
  });

  describe('after express.raw()', () => {
    sharedCases((h) => {
      const app = express();
      app.post('/webhooks', express.raw({ type: 'application/json' }), toExpressMiddleware(h));
      return listen(createServer(app)).then((u) => `${u}/webhooks`);
    });
  });

  it('answers 400 payload_not_raw, with the fix, when express.json() already parsed the body', async () => {
    const { h, seen } = handler();
    const app = express();
    app.use(express.json());
    app.post('/webhooks', toExpressMiddleware(h));
    const url = `${await listen(createServer(app))}/webhooks`;
    const body = JSON.stringify(cardFrozen(7));
    const res = await post(url, body, signPayload(body, SECRET));
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('payload_not_raw');
    expect(json.error.message).toContain("express.raw({ type: 'application/json' })");
    expect(seen).toEqual([]);
  });

  it('still reads the stream when express.json() ran but skipped the content type', async () => {
    const { h, seen } = handler();
    const app = express();
    app.use(express.json());
    app.post('/webhooks', toExpressMiddleware(h));
    const url = `${await listen(createServer(app))}/webhooks`;
    const body = JSON.stringify(cardFrozen(8));
    expect((await post(url, body, signPayload(body, SECRET), 'text/plain')).status).toBe(200);
    expect(seen).toHaveLength(1);
  });
});

describe('Fastify plugin', () => {
  async function start(h: ReturnType<typeof handler>['h']) {
    const app = Fastify();
    await app.register(fastifyWebhookPlugin(h), { prefix: '/webhooks' });
    app.post('/echo', async (request) => ({ parsed: request.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }
  sharedCases((h) => start(h).then((u) => `${u}/webhooks`));

  it('keeps the raw parser inside its context: other routes still get parsed JSON', async () => {
    const base = await start(handler().h);
    const res = await post(`${base}/echo`, '{"a":1}', undefined);
    expect(await res.json()).toEqual({ parsed: { a: 1 } });
  });

  it('verifies a body sent without a content-type', async () => {
    const { h, seen } = handler();
    const base = await start(h);
    const body = JSON.stringify(cardFrozen(9));
    expect((await post(`${base}/webhooks`, body, signPayload(body, SECRET), null)).status).toBe(200);
    expect(seen).toHaveLength(1);
  });
});

describe('fetch adapter', () => {
  it('answers Requests through the WebCrypto handler', async () => {
    const onUnknownEvent = vi.fn();
    const fetchHandler = toFetchHandler(createWebHandler<TestEvent>({ secrets: SECRET, onUnknownEvent }));
    const body = JSON.stringify(cardFrozen(10));
    const ok = await fetchHandler(new Request('http://x/', { method: 'POST', body, headers: { 'x-service-signature': signPayload(body, SECRET) } }));
    expect([ok.status, await ok.json()]).toEqual([200, { received: true, outcome: 'unknown_event' }]);
    const bad = await fetchHandler(new Request('http://x/', { method: 'POST', body, headers: { 'x-service-signature': 't=1,v1=00' } }));
    expect(bad.status).toBe(400);
    expect(onUnknownEvent).toHaveBeenCalledTimes(1);
  });
});
