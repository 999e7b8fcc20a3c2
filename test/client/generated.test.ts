/**
 * The generated client (packages/client) with an injected fetch: what a user sees, end to end through the
 * generated resources and the runtime.
 */
import { describe, expect, it } from 'vitest';
import {
  CardApiClient,
  ConflictError,
  InsufficientBalanceError,
  NotFoundError,
  OrderFailedError,
  ValidationError,
  type Order,
} from '../../packages/client/src/index.js';
import { WAIT_MS } from '../helpers/limits.js';

type Handler = (req: Request) => Response | Promise<Response>;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function client(handler: Handler, extra: Partial<ConstructorParameters<typeof CardApiClient>[0]> = {}) {
  const calls: Request[] = [];
  const api = new CardApiClient({
    token: 'ws_sk_secret123',
    baseUrl: 'http://card.test/api/v1',
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      calls.push(req.clone());
      return handler(req);
    },
    ...extra,
  });
  return { api, calls };
}

const ORDER: Order = {
  uuid: '9b2e4c71-3a5d-4f86-b0c9-2d7e1f4a6b35',
  type: 'issue_card',
  status: 'pending',
  related_card_uuid: null,
  held_amount: '102.00',
  currency: 'USD',
  created_at: '2026-11-20T10:00:00Z',
  failure_reason: null,
};
const CREATE = { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };

describe('generated client', () => {
  it('sends a write that meets a 503 then a 202 twice with the same idempotency key', async () => {
    let n = 0;
    const { api, calls } = client(() => (++n === 1 ? json(503, { error: { code: 'api.internal_error', message: 'busy', request_id: null } }) : json(202, { data: ORDER })));
    const order = await api.cards.create(CREATE, { maxRetries: 2, timeoutMs: WAIT_MS });
    expect(order.uuid).toBe(ORDER.uuid);
    expect(calls).toHaveLength(2);
    const keys = calls.map((c) => c.headers.get('x-idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(order.lastResponse.idempotencyKey).toBe(keys[0]);
    expect(order.lastResponse.attempts).toBe(2);
    expect(await calls[1]!.json()).toEqual(CREATE);
  });

  // Issue 31: `cards.get('..')` was sent as `GET /api/v1/`, `cards.freeze('.')` as `POST /api/v1/cards/freeze`.
  it.each(['.', '..'])('sends no request for the id %j, from any method that takes one', async (id) => {
    const { api, calls } = client(() => json(200, { data: {} }));
    const methods: Array<[string, () => PromiseLike<unknown>]> = [
      ['cards.get', () => api.cards.get(id)],
      ['cards.freeze', () => api.cards.freeze(id, { reason: null })],
      ['cards.unfreeze', () => api.cards.unfreeze(id, { reason: null })],
      ['cards.close', () => api.cards.close(id, { reason: null })],
      ['cards.topup', () => api.cards.topup(id, { amount: '10.00' })],
      ['cards.listTransactions', () => api.cards.listTransactions(id)],
      ['cards.listConsumptionBills', () => api.cards.listConsumptionBills(id)],
      ['orders.get', () => api.orders.get(id)],
      ['orders.wait', () => api.orders.wait(id)],
    ];
    for (const [name, call] of methods) await expect(Promise.resolve().then(call), name).rejects.toThrow(new TypeError(`path parameter uuid must not be ${JSON.stringify(id)}: a dot segment, which URL parsers remove, so the request would go to another route; no request was sent`));
    expect(calls).toEqual([]);
  });

  it('uses the caller key and the spec path for path parameters', async () => {
    const { api, calls } = client(() => json(202, { data: { ...ORDER, type: 'freeze' } }));
    await api.cards.freeze('3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14', { reason: 'lost' }, { idempotencyKey: 'my-key-1' });
    expect(calls[0]!.method).toBe('POST');
    expect(new URL(calls[0]!.url).pathname).toBe('/api/v1/cards/3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14/freeze');
    expect(calls[0]!.headers.get('x-idempotency-key')).toBe('my-key-1');
    expect(calls[0]!.headers.get('authorization')).toBe('Bearer ws_sk_secret123');
  });

  it('serialises the status filter comma-separated, as the spec says', async () => {
    const { api, calls } = client(() => json(200, { data: [], meta: { current_page: 1, per_page: 50, total: 0, last_page: 1, from: null, to: null }, links: { first: '', last: '', prev: null, next: null } }));
    await api.cards.list({ status: ['active', 'frozen'], cardholder_type: 'user' });
    const url = new URL(calls[0]!.url);
    expect(url.searchParams.get('status')).toBe('active,frozen');
    expect(url.searchParams.get('cardholder_type')).toBe('user');
  });

  it('iterates every page of a list and honours maxItems', async () => {
    const pages = [
      ['a', 'b'],
      ['c', 'd'],
      ['e'],
    ];
    const { api, calls } = client((req) => {
      const page = Number(new URL(req.url).searchParams.get('page') ?? '1');
      const data = pages[page - 1]!.map((id) => ({ ...ORDER, uuid: id }));
      return json(200, { data, meta: { current_page: page, per_page: 2, total: 5, last_page: 3, from: 1, to: 2 }, links: { first: '', last: '', prev: null, next: null } });
    });
    const all: string[] = [];
    for await (const order of api.orders.list({ per_page: 2 })) all.push(order.uuid);
    expect(all).toEqual(['a', 'b', 'c', 'd', 'e']);
    calls.length = 0;
    const some: string[] = [];
    for await (const order of api.orders.list({ per_page: 2 }, { maxItems: 3 })) some.push(order.uuid);
    expect(some).toEqual(['a', 'b', 'c']);
    expect(calls).toHaveLength(2);
    const first = await api.orders.list({ per_page: 2 });
    expect(first.meta.last_page).toBe(3);
  });

  it.each([
    [402, 'wallet.insufficient_balance', InsufficientBalanceError],
    [404, 'card.not_found', NotFoundError],
    [409, 'card.state_conflict', ConflictError],
    [422, 'validation.failed', ValidationError],
  ] as const)('maps %i %s to a typed error, never retried, never holding the token', async (status, code, Class) => {
    const { api, calls } = client(() =>
      json(status, { error: { code, message: 'no', request_id: 'req_1', errors: { initial_topup_amount: ['too small'] } } }, { 'x-request-id': 'req_1' }),
    );
    const error = await api.cards.create(CREATE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    expect(error).toMatchObject({ status, code, requestId: 'req_1', attempts: 1 });
    expect((error as { idempotencyKey: string }).idempotencyKey).toBe(calls[0]!.headers.get('x-idempotency-key'));
    expect(calls).toHaveLength(1);
    expect(JSON.stringify(error) + String(error) + (error as Error).stack).not.toContain('secret123');
    if (error instanceof ValidationError) expect(error.fieldErrors).toEqual({ initial_topup_amount: ['too small'] });
  });

  it('waits for an order and rejects with OrderFailedError carrying failure_reason', async () => {
    const states = ['pending', 'processing', 'failed'];
    let i = 0;
    const { api } = client(() => {
      const status = states[Math.min(i++, states.length - 1)]!;
      return json(200, { data: { ...ORDER, status, failure_reason: status === 'failed' ? 'business4xx' : null } });
    });
    const error = await api.orders.wait(ORDER.uuid, { intervalMs: 1, timeoutMs: WAIT_MS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderFailedError);
    expect((error as OrderFailedError).failureReason).toBe('business4xx');
  });

  it('returns unwrapped data with lastResponse kept out of JSON', async () => {
    const { api } = client(() => json(200, { data: { workspace_slug: 'acme', workspace_name: 'Acme', abilities: ['cards.read'] } }, { 'x-request-id': 'req_9' }));
    const ping = await api.ping();
    expect(JSON.parse(JSON.stringify(ping))).toEqual({ workspace_slug: 'acme', workspace_name: 'Acme', abilities: ['cards.read'] });
    expect(ping.lastResponse.requestId).toBe('req_9');
  });
});
