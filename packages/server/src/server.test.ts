/**
 * The generated package end to end: the real spec's route table and schemas, through a real Fastify server
 * on 127.0.0.1, with stub handlers. The runtime's own behaviour is tested in templates/server.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Order } from '@card-api/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, cardApi, cardApiServerOptions, openapiYaml, routes, type AuthResult, type CardApiHandlers } from './index.js';

const CARD = '3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14';
const order: Order = {
  uuid: '9b2e4c71-3a5d-4f86-b0c9-2d7e1f4a6b35',
  type: 'freeze',
  status: 'pending',
  related_card_uuid: CARD,
  held_amount: '0.00',
  currency: 'USD',
  created_at: '2026-11-20T10:00:00Z',
  failure_reason: null,
};
const emptyPage = { data: [], meta: { current_page: 1, per_page: 50, total: 0, last_page: 1, from: null, to: null }, links: { first: '/x?page=1', last: '/x?page=1', prev: null, next: null } };
const notImplemented = () => {
  throw new ApiError(501, 'api.not_implemented', 'Not in this test.');
};
const seen: Array<{ op: string; input: unknown }> = [];

const handlers: CardApiHandlers = {
  ping: ({ auth }) => ({ data: { workspace_slug: 'acme', workspace_name: 'Acme', abilities: auth.abilities as Array<'cards.read'> } }),
  listCards: ({ query }) => {
    seen.push({ op: 'listCards', input: { ...query } });
    return emptyPage;
  },
  createCard: ({ body, headers }) => {
    seen.push({ op: 'createCard', input: { body, key: headers['x-idempotency-key'] } });
    // An extra field the spec does not declare: fast-json-stringify leaves it out of the response.
    return { status: 202, body: { data: { ...order, type: 'issue_card', internal_note: 'not for callers' } as Order } };
  },
  freezeCard: ({ body }) => {
    seen.push({ op: 'freezeCard', input: body });
    return { data: order };
  },
  getCard: ({ params }) => {
    throw new ApiError(404, 'card.not_found', `No card ${params.uuid} in this workspace.`);
  },
  getOrder: () => ({ data: { ...order, held_amount: 12 as unknown as string } }),
  closeCard: notImplemented,
  unfreezeCard: notImplemented,
  topupCard: notImplemented,
  listCardProducts: notImplemented,
  listCardConsumptionBills: notImplemented,
  listCardTransactions: notImplemented,
  listOrders: notImplemented,
  getWallet: notImplemented,
  listLedgerEntries: notImplemented,
};

const auth: AuthResult = { workspace: { id: 42, status: 'active' }, abilities: ['cards.read', 'cards.write', 'orders.read'], ipAllowlist: [] };
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  app = Fastify();
  await app.register(cardApi, { prefix: '/api/v1', handlers, authenticate: (token) => (token === 'acme_sk_0123456789abcdef' ? auth : null) });
  base = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/v1`;
});
afterAll(() => app.close());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: 'Bearer acme_sk_0123456789abcdef', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text.startsWith('{') ? JSON.parse(text) : undefined };
}

describe('@card-api/server over the spec', () => {
  it('registers every operation of the spec', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /card-products',
      'GET /cards',
      'GET /cards/{uuid}',
      'GET /cards/{uuid}/consumption-bills',
      'GET /cards/{uuid}/transactions',
      'GET /orders',
      'GET /orders/{uuid}',
      'GET /ping',
      'GET /transactions',
      'GET /wallet',
      'POST /cards',
      'POST /cards/{uuid}/close',
      'POST /cards/{uuid}/freeze',
      'POST /cards/{uuid}/topup',
      'POST /cards/{uuid}/unfreeze',
    ]);
  });

  it('validates POST /cards against CreateCardRequest with field paths', async () => {
    const res = await call('POST', '/cards', {
      card_product_id: 0,
      initial_topup_amount: '-5',
      cardholder_first_name: 'Ada',
      cardholder_last_name: 'Lovelace',
      billing_address: { line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'usa' },
    });
    expect(res.status).toBe(422);
    expect(res.json.error.errors).toEqual({
      card_product_id: ['Must be at least 1.'],
      initial_topup_amount: ['Must match the pattern ^(0|[1-9][0-9]*)(\\.[0-9]{1,2})?$.'],
      'billing_address.country': ['Must match the pattern ^[A-Z]{2}$.'],
    });
  });

  it('answers 202 with the Order, passing the idempotency key, and drops fields the spec does not declare', async () => {
    const res = await call('POST', '/cards', { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' }, { 'X-Idempotency-Key': 'k-1' });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ data: { ...order, type: 'issue_card' } });
    expect(res.text).not.toContain('internal_note');
    expect(seen.find((s) => s.op === 'createCard')?.input).toMatchObject({ key: 'k-1' });
  });

  it('splits the comma-separated status of GET /cards and applies the D10 defaults', async () => {
    expect((await call('GET', '/cards?status=active,frozen')).status).toBe(200);
    expect(seen.find((s) => s.op === 'listCards')?.input).toEqual({ status: ['active', 'frozen'], page: 1, per_page: 50 });
    const bad = await call('GET', '/cards?status=active,melted&per_page=101');
    expect(bad.json.error.errors).toEqual({ 'status.1': [expect.stringMatching(/^Must be one of: pending_issue, active/)], per_page: ['Must be at most 100.'] });
  });

  it('accepts freeze without a body, and enforces the 500-character nullable reason', async () => {
    expect((await call('POST', `/cards/${CARD}/freeze`)).status).toBe(202);
    expect((await call('POST', `/cards/${CARD}/freeze`, { reason: null })).status).toBe(202);
    expect((await call('POST', `/cards/${CARD}/freeze`, { reason: 'x'.repeat(501) })).json.error.errors).toEqual({ reason: ['Must be at most 500 characters.'] });
  });

  it('sends documented errors in the D2 shape with the rate-limit headers', async () => {
    const res = await call('GET', `/cards/${CARD}`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: { code: 'card.not_found', message: `No card ${CARD} in this workspace.`, request_id: res.headers.get('x-request-id') } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
  });

  it('refuses a body the spec does not allow instead of coercing it', async () => {
    const res = await call('GET', `/orders/${order.uuid}`);
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('api.internal_error');
  });

  it('checks the abilities the spec declares', async () => {
    expect((await call('GET', '/wallet')).json.error.code).toBe('api.insufficient_ability');
    expect((await call('GET', '/ping', undefined, { authorization: 'Bearer nope_sk_0' })).json.error.code).toBe('api.unauthenticated');
  });

  it('serves the bundled spec and the docs page', async () => {
    const spec = await call('GET', '/openapi.yaml');
    expect(spec.text).toBe(openapiYaml);
    expect(spec.text).toMatch(/^openapi: 3\.1\.0\n/);
    expect((await call('GET', '/docs')).text).toContain('<title>Card Issuing Developer API</title>');
  });
});

describe('@card-api/server in an app created as the README says', () => {
  it('logs each request under the X-Request-Id its client sees', async () => {
    const lines: Array<{ reqId?: string; msg?: string }> = [];
    const logged = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line) as { reqId?: string; msg?: string }) } }, ...cardApiServerOptions() });
    try {
      await logged.register(cardApi, { prefix: '/api/v1', handlers, authenticate: (token) => (token === 'acme_sk_0123456789abcdef' ? auth : null) });
      const root = await logged.listen({ port: 0, host: '127.0.0.1' });
      const res = await fetch(`${root}/api/v1/cards/${CARD}`, { headers: { authorization: 'Bearer acme_sk_0123456789abcdef' } });
      const id = res.headers.get('x-request-id');
      expect(res.status).toBe(404);
      expect(id).toMatch(/^req_[0-9a-f]{32}$/);
      expect(((await res.json()) as { error: { request_id: string } }).error.request_id).toBe(id);
      await expect.poll(() => lines.filter((line) => line.reqId === id).map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
      expect(lines.filter((line) => line.reqId !== undefined && line.reqId !== id)).toEqual([]);
    } finally {
      await logged.close();
    }
  });
});
