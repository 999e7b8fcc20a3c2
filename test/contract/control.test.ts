/**
 * The sandbox control API (`spec/sandbox/control.yaml`) over real HTTP on loopback, through the typed
 * `createControlClient`: every operation answers its documented success (the runtime checks each body against
 * the control document before sending it, so a drifting handler would be a 500 here), acts only on the token's
 * workspace, refuses bad input with the documented 4xx, and moves the public API's state as the contract says.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { controlRoutes, createControlClient, type RunningSandbox, type SandboxControlClient } from '@card-api/sandbox';
import { createWebhookHandler } from '@card-api/webhooks';
import { toNodeHandler } from '@card-api/webhooks/adapters';
import { publicKeyFingerprint } from '@card-api/webhooks/secrets';
import { clientFor, FAST_WAIT, issueBody, startTestSandbox } from './support.js';
import type { CardApiClient } from '@card-api/client';

let running: RunningSandbox;
let control: SandboxControlClient;
let api: CardApiClient;
/** operationIds answered with a 2xx, to prove every operation was exercised. */
const succeeded = new Set<string>();

/** The control routes with a matcher for concrete paths. */
function routesOfControl(): Array<{ operationId: string; method: string; pattern: RegExp }> {
  return controlRoutes.map((r) => ({ operationId: r.operationId, method: r.method, pattern: new RegExp(`^${r.url.replace(/:[a-z_]+/g, '[^/]+')}$`) }));
}

/** Records the operation of every 2xx answer (matched on method and path template). */
function recordingFetch(): typeof fetch {
  const routes = routesOfControl();
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const path = new URL(request.url).pathname;
    const route = routes.find((r) => r.method === request.method && r.pattern.test(path));
    if (route && response.ok) succeeded.add(route.operationId);
    return response;
  };
}

/** A two-decimal money string as exact cents (money is never a float, not even in a test). */
function cents(amount: string): bigint {
  expect(amount).toMatch(/^-?\d+\.\d{2}$/);
  return BigInt(amount.replace('.', ''));
}

async function issueCard(client: CardApiClient = api, overrides: Record<string, unknown> = {}): Promise<string> {
  const order = await client.cards.create(issueBody(overrides));
  const done = await client.orders.wait(order.uuid, FAST_WAIT);
  expect(done.status).toBe('completed');
  return done.related_card_uuid!;
}

beforeAll(async () => {
  running = await startTestSandbox({ sandboxOptions: { closeDelayMs: null } });
  control = createControlClient({ baseUrl: running.origin, token: running.token!, fetch: recordingFetch() });
  api = clientFor(running.baseUrl, running.token!);
});

afterAll(async () => {
  await running?.close();
});

describe('control API: workspace, tokens, money', () => {
  it('creates a funded workspace whose token works on the public API', async () => {
    const { data, error } = await control.POST('/sandbox/workspaces', { body: { name: 'Acme Ltd', initial_deposit: '250.00' } });
    expect(error).toBeUndefined();
    expect(data!.data.workspace).toMatchObject({ name: 'Acme Ltd', slug: 'acme-ltd', base_currency: 'USD', status: 'active' });
    expect(data!.data.token.token).toMatch(/^sbx_sk_[0-9a-f]+$/);
    const acme = clientFor(running.baseUrl, data!.data.token.token);
    expect((await acme.ping()).workspace_slug).toBe('acme-ltd');
    expect((await acme.wallet.get()).wallets[0]).toMatchObject({ currency: 'USD', balance: '250.00' });
  });

  it('deposits with a channel fee, as usdt_deposit and usdt_deposit_fee', async () => {
    const before = (await api.wallet.get()).wallets[0]!.balance;
    const { data } = await control.POST('/sandbox/deposits', { body: { amount: '100.00', fee: '1.50' } });
    const after = data!.data.wallets[0]!.balance;
    expect(cents(after) - cents(before)).toBe(9850n);
    // Both legs of each posting are listed, newest first.
    const ledger = await api.ledger.list({ per_page: 4 });
    expect(new Set(ledger.data.map((e) => e.reason_code))).toEqual(new Set(['usdt_deposit', 'usdt_deposit_fee']));
  });

  it('mints a token with chosen abilities, and revokes it', async () => {
    const { data } = await control.POST('/sandbox/tokens', { body: { name: 'read only', abilities: ['cards.read'] } });
    const reader = clientFor(running.baseUrl, data!.data.token);
    await expect(reader.cards.list()).resolves.toBeDefined();
    await expect(reader.wallet.get()).rejects.toMatchObject({ status: 403 });
    const revoked = await control.DELETE('/sandbox/tokens/{token_id}', { params: { path: { token_id: data!.data.id } } });
    expect(revoked.data).toEqual({ data: { id: data!.data.id, revoked: true } });
    await expect(reader.cards.list()).rejects.toMatchObject({ status: 401 });
    // A revoked token cannot use the control API either.
    const asRevoked = createControlClient({ baseUrl: running.origin, token: data!.data.token });
    expect((await asRevoked.GET('/sandbox/workspace')).response.status).toBe(401);
  });

  it('mints a token that expires on the sandbox clock: 401 on both APIs from expires_at on (D18)', async () => {
    // One hour from the moment it was minted, which lies between two readings of the clock (however slow the machine).
    const clock = async (): Promise<number> => Date.parse((await control.GET('/sandbox/clock')).data!.data.now);
    const before = await clock();
    const { data } = await control.POST('/sandbox/tokens', { body: { name: 'one hour', abilities: ['cards.read'], expires_in_seconds: 3600 } });
    const after = await clock();
    const expiresAt = Date.parse(data!.data.expires_at!);
    // expires_at is whole seconds or milliseconds: allow the rounding down of the mint time to the second.
    expect(expiresAt - 3_600_000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(expiresAt - 3_600_000).toBeLessThanOrEqual(after);
    const brief = clientFor(running.baseUrl, data!.data.token);
    await expect(brief.cards.list()).resolves.toBeDefined();
    expect((await control.POST('/sandbox/clock/advance', { body: { seconds: 3600 } })).response.status).toBe(200);
    await expect(brief.cards.list()).rejects.toMatchObject({ status: 401, code: 'api.unauthenticated' });
    expect((await createControlClient({ baseUrl: running.origin, token: data!.data.token }).GET('/sandbox/workspace')).response.status).toBe(401);
    // Tokens minted without a lifetime never expire.
    await expect(api.ping()).resolves.toBeDefined();
    const bad = await control.POST('/sandbox/tokens', { body: { name: 'bad', abilities: [], expires_in_seconds: 0 } });
    expect(bad.response.status).toBe(422);
  });

  it('keeps the account holder on file, the only name a product without custom holder names issues in (D41)', async () => {
    const { data } = await control.POST('/sandbox/workspaces', { body: { name: 'Hopper EU', base_currency: 'EUR', initial_deposit: '300.00', holder_first_name: 'Grace', holder_last_name: 'Hopper' } });
    expect(data!.data.workspace).toMatchObject({ holder_first_name: 'Grace', holder_last_name: 'Hopper' });
    const eu = clientFor(running.baseUrl, data!.data.token.token);
    const product = (await eu.cardProducts.list()).find((p) => p.currency === 'EUR' && !p.supports_custom_holder_name)!;
    await expect(eu.cards.create(issueBody({ card_product_id: product.id, initial_topup_amount: '20.00' }))).rejects.toMatchObject({
      status: 422,
      code: 'validation.failed',
      fieldErrors: { cardholder_first_name: [expect.stringContaining('Grace Hopper')], cardholder_last_name: [expect.stringContaining('Grace Hopper')] },
    });
    const order = await eu.cards.create(issueBody({ card_product_id: product.id, initial_topup_amount: '20.00', cardholder_first_name: 'Grace', cardholder_last_name: 'Hopper' }));
    expect(order.related_card_uuid).toEqual(expect.any(String));
    expect((await control.GET('/sandbox/workspace')).data!.data).toMatchObject({ holder_first_name: 'Ada', holder_last_name: 'Lovelace' });
  });

  it('switches a product to the issue fee deducted from the initial top-up, and back (D21)', async () => {
    const product = (await api.cardProducts.list()).find((p) => p.id === 2)!;
    const set = await control.PATCH('/sandbox/card-products/{id}', { params: { path: { id: 2 } }, body: { issue_fee: 'deducted' } });
    expect(set.data).toEqual({ data: { id: 2, code: product.code, issue_fee: 'deducted' } });
    try {
      const order = await api.cards.create(issueBody({ card_product_id: 2, initial_topup_amount: '100.00' }));
      expect(order.held_amount).toBe('100.00');
      await api.orders.wait(order.uuid, FAST_WAIT);
      const fee = cents(product.fees.card_issue_fixed);
      expect(cents((await api.cards.get(order.related_card_uuid!)).card_balance)).toBe(10000n - fee);
    } finally {
      expect((await control.PATCH('/sandbox/card-products/{id}', { params: { path: { id: 2 } }, body: { issue_fee: 'on_top' } })).data!.data.issue_fee).toBe('on_top');
    }
    expect((await api.cards.create(issueBody({ card_product_id: 2, initial_topup_amount: '100.00' }))).held_amount).toBe('110.00');
    expect((await control.PATCH('/sandbox/card-products/{id}', { params: { path: { id: 99 } }, body: { issue_fee: 'deducted' } })).response.status).toBe(404);
  });

  it('does not count control calls against the token rate limit', async () => {
    const { data } = await control.POST('/sandbox/tokens', { body: { name: 'tight', abilities: ['cards.read'], rate_limit_per_minute: 2 } });
    const tight = createControlClient({ baseUrl: running.origin, token: data!.data.token });
    for (let i = 0; i < 5; i++) expect((await tight.GET('/sandbox/clock')).response.status).toBe(200);
  });

  it('freezes the workspace (public API 403) and, with the same token, makes it active again', async () => {
    const { data } = await control.POST('/sandbox/workspaces', { body: { name: 'Frozen Co' } });
    const token = data!.data.token.token;
    const own = createControlClient({ baseUrl: running.origin, token, fetch: recordingFetch() });
    expect((await own.PATCH('/sandbox/workspace', { body: { status: 'frozen' } })).data!.data.status).toBe('frozen');
    await expect(clientFor(running.baseUrl, token).ping()).rejects.toMatchObject({ status: 403, code: 'api.workspace_inactive' });
    expect((await own.GET('/sandbox/workspace')).data!.data.status).toBe('frozen');
    expect((await own.PATCH('/sandbox/workspace', { body: { status: 'active' } })).data!.data.status).toBe('active');
    await expect(clientFor(running.baseUrl, token).ping()).resolves.toMatchObject({ workspace_slug: 'frozen-co' });
  });
});

describe('control API: refusals', () => {
  it('answers 401 without a token and 404 api.not_found for an unknown route, in the error shape', async () => {
    const anonymous = await fetch(`${running.origin}/sandbox/workspace`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 'api.unauthenticated' } });
    const missing = await fetch(`${running.origin}/sandbox/nothing-here`, { headers: { authorization: `Bearer ${running.token}` } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'api.not_found', request_id: expect.stringMatching(/^req_/) } });
  });

  it('refuses floats, unknown fields and a foreign currency without its amount with 422 field errors', async () => {
    const card = await issueCard();
    const float = await fetch(`${running.origin}/sandbox/cards/${card}/authorizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' },
      body: '{"amount": 12.5}',
    });
    expect(float.status).toBe(422);
    expect(await float.json()).toMatchObject({ error: { code: 'validation.failed', errors: { amount: expect.any(Array) } } });
    const unknown = await control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: card } }, body: { amount: '1.00', tip: '1' } as never });
    expect(unknown.response.status).toBe(422);
    const fx = await control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: card } }, body: { amount: '10.00', merchant_currency: 'EUR' } });
    expect(fx.response.status).toBe(422);
    expect(fx.error!.error.errors).toHaveProperty('merchant_amount');
  });

  it('never reaches into another workspace: its cards are 404, its tokens 404', async () => {
    const card = await issueCard();
    const { data } = await control.POST('/sandbox/workspaces', { body: { name: 'Other' } });
    const other = createControlClient({ baseUrl: running.origin, token: data!.data.token.token });
    const auth = await other.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: card } }, body: { amount: '1.00' } });
    expect(auth.response.status).toBe(404);
    expect(auth.error!.error.code).toBe('card.not_found');
    for (const attempt of [
      other.POST('/sandbox/cards/{uuid}/risk-freeze', { params: { path: { uuid: card } }, body: { origin: 'issuer' } }),
      other.POST('/sandbox/cards/{uuid}/finish-close', { params: { path: { uuid: card } } }),
      other.POST('/sandbox/forced-failures', { body: { card_uuid: card, failure_reason: 'business4xx' } }),
    ]) {
      expect((await attempt).response.status).toBe(404);
    }
    const revoke = await other.DELETE('/sandbox/tokens/{token_id}', { params: { path: { token_id: running.tokenId! } } });
    expect(revoke.response.status).toBe(404);
    await expect(api.ping()).resolves.toBeDefined();
  });

  it('refuses a private key as the public key without echoing it', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { error, response } = await control.PUT('/sandbox/public-key', { body: { public_key_pem: pem } });
    expect(response.status).toBe(422);
    expect(JSON.stringify(error)).not.toContain(pem.split('\n')[1]!);
  });
});

describe('control API: simulations move the public API state', () => {
  it('authorize, capture, refund; probe; foreign currency; decline; reversal; chargeback and its resolution', async () => {
    const card = await issueCard();
    const path = { uuid: card };
    const auth = await control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path }, body: { amount: '25.00', merchant: { raw_name: 'COFFEE BAR', mcc: '5814', country: 'US' } } });
    expect(auth.response.status).toBe(201);
    const txn = auth.data!.data;
    expect(txn).toMatchObject({ type: 'authorization', status: 'pending', amount: '25.00', currency: 'USD' });
    expect((await api.cards.get(card)).card_balance).toBe('100.00');

    const purchase = { supplier_txn_id: txn.supplier_txn_id! };
    const capture = await control.POST('/sandbox/purchases/{supplier_txn_id}/capture', { params: { path: purchase } });
    expect(capture.data!.data).toMatchObject({ type: 'capture', amount: '25.00' });
    expect((await api.cards.get(card)).card_balance).toBe('75.00');
    const refund = await control.POST('/sandbox/purchases/{supplier_txn_id}/refund', { params: { path: purchase }, body: { amount: '5.00' } });
    expect(refund.data!.data).toMatchObject({ type: 'refund', amount: '5.00' });
    expect((await api.cards.get(card)).card_balance).toBe('80.00');
    const chargeback = await control.POST('/sandbox/purchases/{supplier_txn_id}/chargeback', { params: { path: purchase } });
    expect(chargeback.data!.data.type).toBe('chargeback_opened');
    const resolved = await control.POST('/sandbox/purchases/{supplier_txn_id}/chargeback-resolution', { params: { path: purchase }, body: { outcome: 'cardholder' } });
    expect(resolved.data!.data.type).toBe('chargeback_resolved');

    const probe = await control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path }, body: { amount: '0.00' } });
    expect(probe.data!.data).toMatchObject({ type: 'authorization', amount: '0.00' });
    const fx = await control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path }, body: { amount: '10.80', merchant_currency: 'EUR', merchant_amount: '10.00' } });
    expect(fx.data!.data).toMatchObject({ amount: '10.80', merchant_amount: '10.00', merchant_currency: 'EUR', fx_rate: expect.any(String) });
    const reversal = await control.POST('/sandbox/purchases/{supplier_txn_id}/reversal', { params: { path: { supplier_txn_id: fx.data!.data.supplier_txn_id! } } });
    expect(reversal.data!.data.type).toBe('reversal');
    const decline = await control.POST('/sandbox/cards/{uuid}/declines', { params: { path }, body: { merchant_amount: '900.00', reason: 'insufficient_funds' } });
    expect(decline.data!.data).toMatchObject({ type: 'decline', status: 'failed', amount: '0.00', decline_reason: 'insufficient_funds' });

    const rows = await api.cards.listTransactions(card, { per_page: 50 });
    expect(rows.data.map((r) => r.type).sort()).toEqual(
      ['authorization', 'authorization', 'authorization', 'capture', 'chargeback_opened', 'chargeback_resolved', 'decline', 'refund', 'reversal'].sort(),
    );
    // A settled purchase cannot be reversed: 409 in the error shape.
    const conflict = await control.POST('/sandbox/purchases/{supplier_txn_id}/reversal', { params: { path: purchase } });
    expect(conflict.response.status).toBe(409);
    expect(conflict.error!.error.code).toBe('card.state_conflict');
  });

  it('freezes as platform risk, applies a penalty, and shows both on the card', async () => {
    const card = await issueCard();
    const frozen = await control.POST('/sandbox/cards/{uuid}/risk-freeze', { params: { path: { uuid: card } }, body: { origin: 'platform_risk', reason: 'velocity' } });
    expect(frozen.data!.data.status).toBe('frozen');
    const again = await control.POST('/sandbox/cards/{uuid}/risk-freeze', { params: { path: { uuid: card } }, body: { origin: 'issuer' } });
    expect(again.response.status).toBe(409);
    const penalty = await control.POST('/sandbox/cards/{uuid}/risk-penalty', { params: { path: { uuid: card } }, body: { amount: '12.34' } });
    expect(penalty.data!.data).toEqual({ card_uuid: card, penalty_amount: '12.34', currency: 'USD', balance_after: '87.66' });
    expect((await api.cards.get(card)).card_balance).toBe('87.66');
    // D40: the ruling is in no transaction feed; a risk_penalty is the fee of a declined transaction, from the wallet.
    expect((await api.ledger.list({ reference_uuid: card, per_page: 100 })).data.map((r) => r.reason_code)).not.toContain('risk_penalty');
    const declined = await control.POST('/sandbox/cards/{uuid}/declines', { params: { path: { uuid: card } }, body: { merchant_amount: '900.00', reason: 'risk_blocked', penalty_fee: '1.25' } });
    expect(declined.data!.data).toMatchObject({ type: 'decline', amount: '0.00' });
    const fees = await api.ledger.list({ reason: 'risk_penalty', reference_uuid: card });
    expect(fees.data.map((r) => [r.account_code, r.direction, r.amount]).sort()).toEqual([
      ['platform.revenue', 'credit', '1.25'],
      ['wallet.available', 'debit', '1.25'],
    ]);
  });

  it('makes the next order of a card, or the next issue, fail with the given reason', async () => {
    const card = await issueCard();
    const armed = await control.POST('/sandbox/forced-failures', { body: { card_uuid: card, failure_reason: 'business4xx' } });
    expect(armed.data!.data).toEqual({ target: card, failure_reason: 'business4xx' });
    const topup = await api.cards.topup(card, { amount: '10.00' });
    const failed = await api.orders.wait(topup.uuid, FAST_WAIT).catch((error: { order?: unknown }) => error.order);
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'business4xx' });

    await control.POST('/sandbox/forced-failures', { body: { failure_reason: 'preempted_by_risk' } });
    const issue = await api.cards.create(issueBody());
    const issueFailed = await api.orders.wait(issue.uuid, FAST_WAIT).catch((error: { order?: unknown }) => error.order);
    expect(issueFailed).toMatchObject({ status: 'failed', failure_reason: 'preempted_by_risk' });
  });

  it('finishes close stage 2 on demand: the card is closed and its balance is back in the wallet', async () => {
    const card = await issueCard();
    const early = await control.POST('/sandbox/cards/{uuid}/finish-close', { params: { path: { uuid: card } } });
    expect(early.response.status).toBe(409);
    const before = (await api.wallet.get()).wallets[0]!.balance;
    const close = await api.cards.close(card);
    await api.orders.wait(close.uuid, FAST_WAIT);
    expect((await api.cards.get(card)).status).toBe('pending_close');
    const closed = await control.POST('/sandbox/cards/{uuid}/finish-close', { params: { path: { uuid: card } } });
    expect(closed.data!.data).toMatchObject({ uuid: card, status: 'closed', card_balance: '0.00' });
    const after = (await api.wallet.get()).wallets[0]!.balance;
    expect(cents(after) - cents(before)).toBe(10000n);
  });
});

describe('control API: the states the workspace does not drive (issue 33)', () => {
  /** A fresh funded workspace, with a control client and a public client of its own. */
  async function workspace(): Promise<{ control: SandboxControlClient; api: CardApiClient }> {
    const created = await control.POST('/sandbox/workspaces', { body: { name: `states-${Math.random().toString(36).slice(2)}`, initial_deposit: '5000.00' } });
    const token = created.data!.data.token.token;
    return { control: createControlClient({ baseUrl: running.origin, token, fetch: recordingFetch() }), api: clientFor(running.baseUrl, token) };
  }

  it('retries a transient failure on the sandbox clock, then the admin queue refund-closes it (held_release_admin)', async () => {
    const w = await workspace();
    const card = await issueCard(w.api);
    await w.control.POST('/sandbox/forced-failures', { body: { card_uuid: card, failure_reason: 'supplier5xx' } });
    const topup = await w.api.cards.topup(card, { amount: '20.00' });
    await w.control.POST('/sandbox/clock/advance', { body: { seconds: 1 } });
    expect((await w.api.orders.get(topup.uuid)).status).toBe('processing');
    await w.control.POST('/sandbox/clock/advance', { body: { seconds: 600 } });
    expect((await w.api.orders.get(topup.uuid)).status).toBe('awaiting_platform');
    const closed = await w.control.POST('/sandbox/orders/{uuid}/resolution', { params: { path: { uuid: topup.uuid } }, body: { action: 'refund_close' } });
    expect(closed.data!.data).toMatchObject({ status: 'failed', failure_reason: 'admin_refund_close' });
    const rows = await w.api.ledger.list({ reason: 'held_release_admin' });
    expect(rows.data.map((r) => [r.direction, r.amount])).toEqual(expect.arrayContaining([['credit', topup.held_amount], ['debit', topup.held_amount]]));
    const again = await w.control.POST('/sandbox/orders/{uuid}/resolution', { params: { path: { uuid: topup.uuid } }, body: { action: 'retry' } });
    expect(again.response.status).toBe(409);
  });

  it('withdraws, subscribes, adjusts, reverses and freezes the wallet, and the public API shows each', async () => {
    const w = await workspace();
    const held = await w.control.POST('/sandbox/withdrawals', { body: { amount: '100.00', fee: '1.00' } });
    expect((await w.api.wallet.get()).wallets[0]).toMatchObject({ held_balance: '101.00', available: '4899.00' });
    await w.control.PATCH('/sandbox/withdrawals/{uuid}', { params: { path: { uuid: held.data!.data.uuid } }, body: { status: 'completed' } });
    const products = async () => (await w.api.cardProducts.list()).find((p) => p.required_subscription_product_code === 'ads_pro')!;
    expect((await products()).available).toBe(false);
    await w.control.POST('/sandbox/subscriptions', { body: { product_code: 'ads_pro', price: '49.00' } });
    expect((await products()).available).toBe(true);
    const adjustment = await w.control.POST('/sandbox/ledger-adjustments', { body: { direction: 'credit', amount: '3.20' } });
    const group = adjustment.data!.data.txn_group_id;
    await w.control.POST('/sandbox/ledger-groups/{txn_group_id}/reversal', { params: { path: { txn_group_id: group } } });
    const frozen = await w.control.PATCH('/sandbox/wallet', { body: { frozen: true, reason: 'Compliance review' } });
    expect(frozen.data!.data.wallets[0]).toMatchObject({ frozen_reason: 'Compliance review', available: '4850.00', balance: '4850.00', held_balance: '0.00' });
    await expect(w.api.cards.create(issueBody())).rejects.toMatchObject({ status: 402 });
    await w.control.PATCH('/sandbox/wallet', { body: { frozen: false } });
    expect((await w.api.wallet.get()).wallets[0]).toMatchObject({ frozen_at: null, frozen_reason: null });
  });

  it('issues a staff card, and posts rows whose purchase is not in the feed', async () => {
    const w = await workspace();
    const accepted = await w.control.POST('/sandbox/staff-cards', { body: { card_product_id: 1, initial_topup_amount: '50.00', cardholder_first_name: 'Katherine', cardholder_last_name: 'Johnson' } });
    expect(accepted.response.status).toBe(202);
    const done = await w.api.orders.wait(accepted.data!.data.uuid, FAST_WAIT);
    const card = done.related_card_uuid!;
    expect((await w.api.cards.get(card)).cardholder_type).toBe('staff');
    const refund = await w.control.POST('/sandbox/cards/{uuid}/unmatched-transactions', { params: { path: { uuid: card } }, body: { type: 'refund', amount: '4.00' } });
    expect(refund.data!.data).toMatchObject({ type: 'refund', status: 'posted' });
    expect((await w.api.cards.listConsumptionBills(card)).data[0]).toMatchObject({ kind: 'refund', status: 'refunded' });
  });
});

describe('control API: webhooks and time', () => {
  let receiver: Server;
  let hookUrl: string;
  let status = 500;
  const bodies: string[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(status).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  });

  afterAll(() => {
    receiver?.close();
  });

  it('registers an endpoint (secret shown once), lists deliveries, retries on the advanced clock, disables the endpoint', async () => {
    const { data: ws } = await control.POST('/sandbox/workspaces', { body: { name: 'Hooks', initial_deposit: '1000.00' } });
    const token = ws!.data.token.token;
    const own = createControlClient({ baseUrl: running.origin, token: token, fetch: recordingFetch() });
    const created = await own.POST('/sandbox/webhook-endpoints', { body: { url: hookUrl, events: ['order.*'] } });
    expect(created.response.status).toBe(201);
    expect(created.data!.data.secret).toMatch(/^whsec_/);
    const listed = await own.GET('/sandbox/webhook-endpoints');
    expect(listed.data!.data).toHaveLength(1);
    expect(listed.data!.data[0]).not.toHaveProperty('secret');

    await issueCard(clientFor(running.baseUrl, token));
    await expect.poll(async () => (await own.GET('/sandbox/webhook-deliveries', { params: { query: { event: 'order.completed' } } })).data!.data[0]?.attempts ?? 0).toBe(1);

    const t0 = Date.parse((await own.GET('/sandbox/clock')).data!.data.now);
    const moved = await own.POST('/sandbox/clock/advance', { body: { seconds: 40 } });
    expect(Date.parse(moved.data!.data.now) - t0).toBeGreaterThanOrEqual(40_000);
    // The advance answers once the work is scheduled; the retries that fell due inside the 40 s (at +10 s and
    // +40 s) go out in the background, and the delivery list shows them.
    const firstDelivery = async () => (await own.GET('/sandbox/webhook-deliveries')).data!.data[0];
    await expect.poll(async () => (await firstDelivery())?.attempts).toBe(3);
    const delivery = await firstDelivery();
    expect(delivery).toMatchObject({ event: 'order.completed', status: 'pending', attempts: 3, last_status: 500 });
    // Every attempt sent the stored bytes.
    expect(new Set(bodies.filter((b) => b.includes(delivery!.body.slice(0, 40))))).toEqual(new Set([delivery!.body]));

    await own.POST('/sandbox/clock/advance', { body: { seconds: 24 * 3600 } });
    const failedOnes = async () => (await own.GET('/sandbox/webhook-deliveries', { params: { query: { status: 'failed' } } })).data!.data;
    await expect.poll(async () => (await failedOnes()).length).toBe(1);
    const [gaveUp] = await failedOnes();
    expect(gaveUp).toMatchObject({ attempts: 8 });
    expect((await own.GET('/sandbox/webhook-endpoints')).data!.data[0]).toMatchObject({ status: 'disabled', disabled_reason: 'failing' });

    // The receiver is fixed: re-enable the endpoint, resend the failed delivery, and it succeeds.
    status = 204;
    const endpointId = created.data!.data.id;
    const enabled = await own.POST('/sandbox/webhook-endpoints/{endpoint_id}/enable', { params: { path: { endpoint_id: endpointId } } });
    expect(enabled.data!.data).toMatchObject({ status: 'active', disabled_reason: null, disabled_at: null });
    // The resend answers once it is queued (attempts reset); the attempt follows in the background.
    const resent = await own.POST('/sandbox/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: gaveUp!.id } } });
    expect(resent.data!.data).toMatchObject({ id: gaveUp!.id, attempts: 0 });
    const current = async () => (await own.GET('/sandbox/webhook-deliveries', { params: { query: { endpoint_id: endpointId } } })).data!.data.find((d) => d.id === gaveUp!.id);
    await expect.poll(async () => (await current())?.status).toBe('succeeded');
    expect(await current()).toMatchObject({ status: 'succeeded', attempts: 1, last_status: 204 });
    // A succeeded delivery can be sent again on purpose: the same bytes, for testing a receiver's dedupe.
    const sentBefore = bodies.length;
    const duplicate = await own.POST('/sandbox/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: gaveUp!.id } } });
    expect(duplicate.data!.data).toMatchObject({ id: gaveUp!.id, attempts: 1 });
    await expect.poll(async () => (await current())?.attempts).toBe(2);
    expect((await current())?.status).toBe('succeeded');
    expect(bodies.slice(sentBefore)).toEqual([gaveUp!.body]);
    // Another workspace cannot see or resend it.
    const stranger = await control.POST('/sandbox/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: gaveUp!.id } } });
    expect(stranger.response.status).toBe(404);

    const second = await own.POST('/sandbox/webhook-endpoints', { body: { url: hookUrl } });
    const disabled = await own.DELETE('/sandbox/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: second.data!.data.id } } });
    expect(disabled.data!.data).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    const blocked = await own.POST('/sandbox/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: gaveUp!.id } } });
    expect(blocked.response.status).toBe(200);
    await own.DELETE('/sandbox/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpointId } } });
    const refused = await own.POST('/sandbox/webhook-deliveries/{delivery_id}/redeliver', { params: { path: { delivery_id: gaveUp!.id } } });
    expect(refused.response.status).toBe(409);
  });

  it('signs with real time, so a stock receiver on a real clock accepts deliveries after the clock moved hours ahead', async () => {
    const { data: ws } = await control.POST('/sandbox/workspaces', { body: { name: 'Real clock', initial_deposit: '500.00' } });
    const own = createControlClient({ baseUrl: running.origin, token: ws!.data.token.token });
    const seen: number[] = [];
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const endpoint = await own.POST('/sandbox/webhook-endpoints', { body: { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, events: ['order.completed'] } });
      const webhooks = createWebhookHandler({ secrets: endpoint.data!.data.secret, onUnknownEvent: () => {} }).on('order.completed', (e) => void seen.push(e.event_id));
      server.on('request', toNodeHandler(webhooks));
      const before = Date.parse((await own.GET('/sandbox/clock')).data!.data.now);
      await own.POST('/sandbox/clock/advance', { body: { seconds: 7200 } });
      expect(Date.parse((await own.GET('/sandbox/clock')).data!.data.now) - Date.now()).toBeGreaterThan(7000 * 1000 + (before - Date.now()));
      await issueCard(clientFor(running.baseUrl, ws!.data.token.token));
      await expect.poll(() => seen.length).toBe(1);
      const [delivery] = (await own.GET('/sandbox/webhook-deliveries')).data!.data;
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, last_status: 200 });
    } finally {
      server.close();
    }
  });

  it('moves an endpoint to another URL with the same secret and deliveries, reads its secret, filters deliveries by event id and limit', async () => {
    const { data: ws } = await control.POST('/sandbox/workspaces', { body: { name: 'Moving hooks', initial_deposit: '500.00' } });
    const own = createControlClient({ baseUrl: running.origin, token: ws!.data.token.token, fetch: recordingFetch() });
    const created = (await own.POST('/sandbox/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/nowhere', events: ['order.failed'] } })).data!.data;
    const path = { endpoint_id: created.id };
    const secret = await own.GET('/sandbox/webhook-endpoints/{endpoint_id}/secret', { params: { path } });
    expect(secret.data!.data).toEqual({ id: created.id, secret: created.secret });

    const moved = await own.PATCH('/sandbox/webhook-endpoints/{endpoint_id}', { params: { path }, body: { url: hookUrl, events: ['order.completed'] } });
    expect(moved.data!.data).toMatchObject({ id: created.id, url: hookUrl, events: ['order.completed'], status: 'active' });
    expect((await own.GET('/sandbox/webhook-endpoints/{endpoint_id}/secret', { params: { path } })).data!.data.secret).toBe(created.secret);
    expect((await own.PATCH('/sandbox/webhook-endpoints/{endpoint_id}', { params: { path }, body: {} as never })).response.status).toBe(422);
    expect((await own.PATCH('/sandbox/webhook-endpoints/{endpoint_id}', { params: { path }, body: { url: 'ftp://example.com' } })).response.status).toBe(422);
    expect((await control.GET('/sandbox/webhook-endpoints/{endpoint_id}/secret', { params: { path } })).response.status).toBe(404);

    const client = clientFor(running.baseUrl, ws!.data.token.token);
    await issueCard(client);
    await issueCard(client);
    const all = async () => (await own.GET('/sandbox/webhook-deliveries', { params: { query: { endpoint_id: created.id } } })).data!.data;
    await expect.poll(async () => (await all()).length).toBe(2);
    const [first, second] = await all();
    expect(first!.body).toContain('"event":"order.completed"');
    const byEvent = await own.GET('/sandbox/webhook-deliveries', { params: { query: { event_id: first!.event_id } } });
    expect(byEvent.data!.data.map((d) => d.id)).toEqual([first!.id]);
    const newest = await own.GET('/sandbox/webhook-deliveries', { params: { query: { endpoint_id: created.id, limit: 1 } } });
    expect(newest.data!.data.map((d) => d.id)).toEqual([second!.id]);
  });

  it('uploads, reads and removes the RSA public key with its D15 fingerprint', async () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const put = await control.PUT('/sandbox/public-key', { body: { public_key_pem: pem } });
    expect(put.data!.data.key_fingerprint).toBe(await publicKeyFingerprint(publicKey));
    expect((await control.GET('/sandbox/public-key')).data!.data).toMatchObject({ key_fingerprint: put.data!.data.key_fingerprint });
    expect((await control.DELETE('/sandbox/public-key')).data).toEqual({ data: null });
    expect((await control.GET('/sandbox/public-key')).data).toEqual({ data: null });
  });
});

describe('control API: its document', () => {
  it('is served at /sandbox/openapi.yaml and /sandbox/docs, and stays out of the public spec', async () => {
    const doc = YAML.parse(await (await fetch(`${running.origin}/sandbox/openapi.yaml`)).text()) as { info: { title: string }; paths: Record<string, unknown> };
    expect(doc.info.title).toBe('Card Issuing Sandbox Control API');
    expect((await fetch(`${running.origin}/sandbox/docs`)).status).toBe(200);
    const publicDoc = await (await fetch(`${running.baseUrl}/openapi.yaml`)).text();
    expect(publicDoc).not.toContain('/sandbox');
  });

  it('had every operation answered with a 2xx by the tests above', () => {
    const all = routesOfControl().map((r) => r.operationId);
    expect(all.filter((id) => !succeeded.has(id))).toEqual([]);
  });
});
