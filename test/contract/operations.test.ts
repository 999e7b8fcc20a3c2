/**
 * The generated client drives every operation of the spec against the running sandbox (real HTTP on
 * 127.0.0.1), through a recording fetch; every response, success and error, must match the spec strictly:
 * a declared status, JSON, the body schema, no undeclared field.
 */
import type { RunningSandbox } from '@card-api/sandbox';
import { CardApiError, type CardApiClient } from '@card-api/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, FAST_WAIT, freshWorkspace, issueBody, OPERATIONS, Recorder, startTestSandbox } from './support.js';

let running: RunningSandbox;
let recorder: Recorder;
let client: CardApiClient;
let workspaceId: number;
let token: string;

beforeAll(async () => {
  running = await startTestSandbox();
  recorder = new Recorder(running.baseUrl);
  const ws = freshWorkspace(running.sandbox, 'operations', '1000.00');
  workspaceId = ws.workspaceId;
  token = ws.token;
  client = clientFor(running.baseUrl, ws.token, { fetch: recorder.fetch, maxRetries: 0 });
});

afterAll(async () => {
  await running?.close();
});

/** The error a call rejects with, as status and code. */
async function failure(call: PromiseLike<unknown>): Promise<{ status: number | undefined; code: string; fieldErrors?: Record<string, string[]> }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof CardApiError) return { status: error.status, code: error.code, ...('fieldErrors' in error ? { fieldErrors: error.fieldErrors as Record<string, string[]> } : {}) };
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('every operation through the generated client', () => {
  it('answers each one as the spec says, on success and on error', async () => {
    const ping = await client.ping();
    expect(ping.workspace_slug).toBe('operations');
    expect(ping.abilities).toContain('cards.write');

    const products = await client.cardProducts.list();
    expect(products.map((p) => p.id)).toContain(1);
    expect(products.find((p) => p.id === 4)?.available).toBe(false);

    // Issue, wait for completion, read the card.
    const accepted = await client.cards.create(issueBody(), { idempotencyKey: 'ops-issue-1' });
    expect(accepted.status).toBe('pending');
    expect(accepted.held_amount).toBe('105.00');
    const issued = await client.orders.wait(accepted.uuid, FAST_WAIT);
    expect(issued.status).toBe('completed');
    const cardUuid = issued.related_card_uuid!;
    const card = await client.cards.get(cardUuid);
    expect(card).toMatchObject({ uuid: cardUuid, status: 'active', card_balance: '100.00' });

    // A second card so that the list has two pages of one.
    const second = await client.cards.create(issueBody({ cardholder_first_name: 'Grace', cardholder_last_name: 'Hopper' }));
    await client.orders.wait(second.uuid, FAST_WAIT);
    const page1 = await client.cards.list({ status: ['active'], per_page: 1 });
    expect(page1.meta).toMatchObject({ total: 2, last_page: 2, per_page: 1 });
    // Links are absolute URLs under the prefix and keep the filters.
    expect(page1.links.next).toMatch(new RegExp(`^${running.baseUrl.replace(/[.]/g, '\\.')}/cards\\?`));
    expect(new URL(page1.links.next!).searchParams.get('status')).toBe('active');
    const viaLink = await fetch(page1.links.next!, { headers: { authorization: `Bearer ${token}` } });
    const followed = await recorder.record('GET', page1.links.next!, viaLink);
    expect(followed.body).toMatchObject({ meta: { current_page: 2, total: 2 }, links: { next: null } });
    const all: string[] = [];
    for await (const row of client.cards.list({ per_page: 1 })) all.push(row.uuid);
    expect(all).toHaveLength(2);
    expect((await client.cards.list({ search: 'hopper' })).data).toHaveLength(1);

    // Card transactions and bills: a purchase simulated on the card network, then read through the API.
    const auth = running.sandbox.simulate.authorize(workspaceId, cardUuid, { amount: '12.34', merchant: { raw_name: 'COFFEE SHOP' } });
    running.sandbox.simulate.capture(workspaceId, (auth as { supplier_txn_id?: string }).supplier_txn_id ?? '');
    running.sandbox.simulate.decline(workspaceId, cardUuid, { merchant_amount: '5000.00', reason: 'insufficient_funds' });
    const txns = await client.cards.listTransactions(cardUuid);
    expect(txns.data.map((t) => t.type).sort()).toEqual(['authorization', 'capture', 'decline']);
    expect((await client.cards.listTransactions(cardUuid, { type: 'capture' })).data).toHaveLength(1);
    const bills = await client.cards.listConsumptionBills(cardUuid);
    expect(bills.data.map((b) => b.kind).sort()).toEqual(['decline', 'purchase']);

    // Top up, freeze, unfreeze, close: each a 202 Order that completes.
    const topup = await client.cards.topup(cardUuid, { amount: '10.00' });
    expect(topup.held_amount).toBe('11.15');
    expect((await client.orders.wait(topup.uuid, FAST_WAIT)).status).toBe('completed');
    const freeze = await client.cards.freeze(cardUuid, { reason: 'contract test' });
    await client.orders.wait(freeze.uuid, FAST_WAIT);
    expect((await client.cards.get(cardUuid)).status).toBe('frozen');
    const unfreeze = await client.cards.unfreeze(cardUuid);
    await client.orders.wait(unfreeze.uuid, FAST_WAIT);
    const close = await client.cards.close(cardUuid, { reason: null });
    expect((await client.orders.wait(close.uuid, FAST_WAIT)).type).toBe('close_card');

    const orders = await client.orders.list({ type: 'issue_card' });
    expect(orders.meta.total).toBe(2);
    expect((await client.orders.get(accepted.uuid)).uuid).toBe(accepted.uuid);
    const wallet = await client.wallet.get();
    expect(wallet.wallets.map((w) => w.currency)).toEqual(['USD']);
    const ledger = await client.ledger.list({ reason: 'card_issue_held', per_page: 100 });
    expect(ledger.data).toHaveLength(4); // two holds, two legs each

    // Documented errors, each from the domain, never a 500.
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await failure(client.cards.get(unknown))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(await failure(client.orders.get(unknown))).toMatchObject({ status: 404, code: 'order.not_found' });
    expect(await failure(client.cards.listTransactions(unknown))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(await failure(client.cards.listConsumptionBills(unknown))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(await failure(client.cards.topup(unknown, { amount: '10.00' }))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(await failure(client.cards.freeze(cardUuid))).toMatchObject({ status: 409, code: 'card.state_conflict' });
    expect(await failure(client.cards.unfreeze(cardUuid))).toMatchObject({ status: 409, code: 'card.state_conflict' });
    expect(await failure(client.cards.close(cardUuid))).toMatchObject({ status: 409, code: 'card.state_conflict' });
    const low = await failure(client.cards.create(issueBody({ initial_topup_amount: '1.00' })));
    expect(low).toMatchObject({ status: 422, code: 'validation.failed' });
    expect(low.fieldErrors).toHaveProperty('initial_topup_amount');
    expect(await failure(client.cards.create(issueBody({ card_product_id: 4 })))).toMatchObject({ status: 422, code: 'card_product.unavailable' });
    expect(await failure(client.cards.create(issueBody({ initial_topup_amount: '5000.00' })))).toMatchObject({ status: 402, code: 'wallet.insufficient_balance' });
    expect(await failure(client.cards.create(issueBody({ cardholder_first_name: 'Other' }), { idempotencyKey: 'ops-issue-1' }))).toMatchObject({
      status: 409,
      code: 'idempotency.key_reused',
    });
    expect(await failure(client.cards.list({ per_page: 1000 }))).toMatchObject({ status: 422, code: 'validation.failed' });
    expect(await failure(client.ledger.list({ reference_uuid: 'nope' }))).toMatchObject({ status: 422, code: 'validation.failed' });

    // Every operation of the spec was called, and every response matches it.
    const called = new Set(recorder.captured.map((c) => c.operation?.operationId));
    expect([...called].sort()).toEqual(OPERATIONS.map((op) => op.operationId).sort());
    expect(recorder.captured.length).toBeGreaterThan(40);
    expect(recorder.problems()).toEqual([]);
    expect(recorder.captured.filter((c) => c.status >= 500)).toEqual([]);
  });

  it('serves the spec and the docs under the prefix', async () => {
    const spec = await fetch(`${running.baseUrl}/openapi.yaml`);
    expect(spec.status).toBe(200);
    expect(await spec.text()).toMatch(/^openapi: 3\.1/);
    const docs = await fetch(`${running.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  });
});

// Issue 31: `cards.get('..')` was `GET /api/v1/` and `cards.freeze('.')` was `POST /api/v1/cards/freeze`.
describe('path parameters that would name another route', () => {
  it('are refused by the generated client before anything reaches the sandbox; a near miss goes to its own route', async () => {
    const before = recorder.captured.length;
    const calls: Array<[string, () => PromiseLike<unknown>]> = [];
    for (const id of ['.', '..', '%2e%2e', 'x/..', '?']) {
      calls.push(
        [`cards.get(${JSON.stringify(id)})`, () => client.cards.get(id)],
        [`cards.freeze(${JSON.stringify(id)})`, () => client.cards.freeze(id, { reason: null })],
        [`cards.close(${JSON.stringify(id)})`, () => client.cards.close(id, { reason: null })],
        [`cards.listTransactions(${JSON.stringify(id)})`, () => client.cards.listTransactions(id)],
        [`orders.get(${JSON.stringify(id)})`, () => client.orders.get(id)],
      );
    }
    for (const [name, call] of calls) await expect(Promise.resolve().then(call), name).rejects.toThrow(/^path parameter uuid must not be .+; no request was sent$/);
    expect(recorder.captured.slice(before)).toEqual([]);
    // The route of GET /cards/{uuid}, whose uuid it refuses as not a uuid (a dot segment would have been GET / or GET /cards/).
    expect(await failure(client.cards.get('..a'))).toMatchObject({ status: 422, code: 'validation.failed', fieldErrors: { uuid: expect.any(Array) } });
    expect(recorder.captured.slice(before).map((c) => `${c.method} ${c.path}`)).toEqual(['GET /cards/..a']);
  });
});
