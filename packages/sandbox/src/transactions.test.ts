import { describe, expect, it } from 'vitest';
import { SpecValidator } from '../../../test/helpers/spec-validator.js';
import type { Sandbox } from './sandbox.js';
import { catchError, issueActiveCard, setup } from './test-support.js';
import { Money } from './money.js';
import type { CardTransaction } from './types.js';

const spec = new SpecValidator({ strict: true });

/** Card balances as the detail reports them. */
function balances(sandbox: Sandbox, ws: number, card: string) {
  const c = sandbox.cards.get(ws, card);
  return { card_balance: c.card_balance, held_amount: c.held_amount, available_balance: c.available_balance };
}

/** `card.transaction.*` events of a card since `after`, as [event, transaction type]. */
function txnEvents(sandbox: Sandbox, card: string, after = 0): [string, string][] {
  return sandbox.events
    .since(after)
    .filter((e) => e.event.startsWith('card.transaction.') && e.data.card_uuid === card)
    .map((e) => [e.event, (e.data.transaction as CardTransaction).type]);
}

/** Ledger rows of one reason, as [account, direction, amount]. */
function postings(sandbox: Sandbox, ws: number, reason: string): [string | null, string, string][] {
  return sandbox.ledger
    .list(ws, { reason, per_page: 100 })
    .data.reverse()
    .map((r) => [r.account_code, r.direction, r.amount]);
}

function bills(sandbox: Sandbox, ws: number, card: string) {
  return sandbox.cards.listConsumptionBills(ws, card).data;
}

/** Every output of the transaction features, checked against the spec's schemas. */
function conformance(sandbox: Sandbox, ws: number, card: string): string[] {
  return [
    ...spec.schemaErrors('CardTransactionPage', sandbox.cards.listTransactions(ws, card, { per_page: 100 })),
    ...spec.schemaErrors('ConsumptionBillPage', sandbox.cards.listConsumptionBills(ws, card, { per_page: 100 })),
    ...sandbox.events.since(0).flatMap((e) => spec.webhookErrors(e)),
  ];
}

describe('purchase lifelines (contract 3.3)', () => {
  it('authorize -> capture -> refund: hold, settlement, refund, one event per row, one bill', () => {
    const { sandbox, ws, clock } = setup();
    const card = issueActiveCard(sandbox, ws);
    const mark = sandbox.events.since(0).at(-1)!.event_id;

    const auth = sandbox.simulate.authorize(ws, card, { amount: '25.00', merchant: { raw_name: 'AMZN Mktp US*2K4', canonical_name: 'Amazon', canonical_merchant_id: 'amazon', mcc: '5942' } });
    expect(auth).toMatchObject({ type: 'authorization', status: 'pending', amount: '25.00', currency: 'USD', merchant_amount: '25.00', merchant_currency: 'USD', fx_rate: null, decline_reason: null, posted_at: null });
    expect(auth.auth_code).toMatch(/^\d{6}$/);
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '100.00', held_amount: '25.00', available_balance: '75.00' });
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ kind: 'purchase', status: 'authorized', amount: '25.00', authorized_amount: '25.00', settled_amount: null, settled_at: null });

    clock.advance(2 * 86_400_000);
    const capture = sandbox.simulate.capture(ws, auth.supplier_txn_id);
    expect(capture).toMatchObject({ type: 'capture', status: 'posted', amount: '25.00', auth_code: auth.auth_code, supplier_txn_id: auth.supplier_txn_id });
    expect(capture.uuid).not.toBe(auth.uuid);
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '75.00', held_amount: '0.00', available_balance: '75.00' });
    expect(postings(sandbox, ws, 'card_spend')).toEqual([
      ['card', 'debit', '25.00'],
      ['platform.settlement', 'credit', '25.00'],
    ]);
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'settled', amount: '25.00', authorized_amount: null, settled_amount: '25.00', settled_at: capture.posted_at });

    clock.advance(86_400_000);
    expect(catchError(() => sandbox.simulate.refund(ws, auth.supplier_txn_id, { amount: '30.00' }))).toMatchObject({ status: 422 });
    const refund = sandbox.simulate.refund(ws, auth.supplier_txn_id, { amount: '10.00' });
    expect(refund).toMatchObject({ type: 'refund', status: 'posted', amount: '10.00' });
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '85.00', held_amount: '0.00', available_balance: '85.00' });
    expect(postings(sandbox, ws, 'card_spend_refund')).toEqual([
      ['platform.settlement', 'debit', '10.00'],
      ['card', 'credit', '10.00'],
    ]);
    const detail = sandbox.cards.get(ws, card);
    expect(detail).toMatchObject({ lifetime_spend_amount: '25.00', lifetime_refund_amount: '10.00', last_active_txn_at: refund.occurred_at });

    const [bill, ...others] = bills(sandbox, ws, card);
    expect(others).toEqual([]);
    expect(bill).toMatchObject({ id: expect.any(Number), kind: 'purchase', status: 'refunded', amount: '25.00', settled_amount: '25.00', occurred_at: refund.occurred_at, auth_code: auth.auth_code });
    expect(bill!.merchant).toEqual({ raw_name: 'AMZN Mktp US*2K4', canonical_name: 'Amazon', mcc: '5942', country: 'US' });
    expect(bill!.lines.map((l) => l.uuid)).toEqual([auth.uuid, capture.uuid, refund.uuid]);

    expect(txnEvents(sandbox, card, mark)).toEqual([
      ['card.transaction.authorized', 'authorization'],
      ['card.transaction.captured', 'capture'],
      ['card.transaction.refunded', 'refund'],
    ]);
    // The event carries exactly the row the list showed then; since, the authorization followed its hold (D30).
    const pushed = sandbox.events.since(mark).map((e) => e.data.transaction);
    const listed = sandbox.cards.listTransactions(ws, card).data.reverse();
    expect(listed[0]).toEqual({ ...auth, status: 'posted', posted_at: capture.posted_at });
    expect(pushed).toEqual([auth, ...listed.slice(1)]);
    expect(sandbox.cards.listTransactions(ws, card, { status: 'pending' }).meta.total).toBe(0);
    expect(sandbox.events.since(mark)[0]!.data).toEqual({ card_uuid: card, pan_last4: detail.pan_last4, transaction: auth });
    expect(sandbox.admin.audit()).toEqual([]);
    expect(conformance(sandbox, ws, card)).toEqual([]);
  });

  it('authorize -> reverse: the hold goes, no money moves, the purchase is closed', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const ledgerBefore = sandbox.ledger.list(ws).meta.total;
    const auth = sandbox.simulate.authorize(ws, card, { amount: '40.00' });
    const reversal = sandbox.simulate.reverse(ws, auth.supplier_txn_id);
    expect(reversal).toMatchObject({ type: 'reversal', status: 'reversed', amount: '40.00', auth_code: auth.auth_code });
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '100.00', held_amount: '0.00', available_balance: '100.00' });
    expect(sandbox.ledger.list(ws).meta.total).toBe(ledgerBefore);
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'reversed', authorized_amount: null, settled_amount: null });
    // D30: the authorization row follows its hold.
    expect(sandbox.cards.listTransactions(ws, card, { type: 'authorization' }).data).toEqual([{ ...auth, status: 'reversed', posted_at: reversal.posted_at }]);
    expect(sandbox.cards.listTransactions(ws, card, { status: 'pending' }).meta.total).toBe(0);
    for (const again of [() => sandbox.simulate.capture(ws, auth.supplier_txn_id), () => sandbox.simulate.reverse(ws, auth.supplier_txn_id), () => sandbox.simulate.refund(ws, auth.supplier_txn_id)]) {
      expect(catchError(again)).toMatchObject({ status: 409, code: 'card.state_conflict' });
    }
    expect(txnEvents(sandbox, card).map(([e]) => e)).toEqual(['card.transaction.authorized', 'card.transaction.reversed']);
    expect(conformance(sandbox, ws, card)).toEqual([]);
  });

  it('a zero-amount probe holds nothing and its bill expires silently', () => {
    const { sandbox, ws, clock } = setup();
    const card = issueActiveCard(sandbox, ws);
    const probe = sandbox.simulate.authorize(ws, card, { amount: '0.00' });
    expect(probe).toMatchObject({ type: 'authorization', amount: '0.00', merchant_amount: '0.00', fx_rate: null });
    expect(balances(sandbox, ws, card).held_amount).toBe('0.00');
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'authorized', authorized_amount: '0.00' });
    expect(catchError(() => sandbox.simulate.capture(ws, probe.supplier_txn_id))).toMatchObject({ status: 409 });
    const events = sandbox.events.since(0).length;
    clock.advance(7 * 86_400_000);
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'expired', authorized_amount: null });
    expect(sandbox.events.since(0)).toHaveLength(events);
  });

  it('the row of an expired probe reads reversed once the sandbox ran its expiry, and pushes nothing (D30)', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const probe = sandbox.simulate.authorize(ws, card, { amount: '0.00' });
    const hold = sandbox.simulate.authorize(ws, card, { amount: '10.00' });
    const events = sandbox.events.since(0).length;
    sandbox.advance(7 * 86_400_000 - 1);
    expect(sandbox.cards.listTransactions(ws, card, { status: 'pending' }).data.map((r) => r.uuid).sort()).toEqual([probe.uuid, hold.uuid].sort());
    sandbox.advance(1);
    const expiredAt = new Date(Date.parse(probe.occurred_at!) + 7 * 86_400_000).toISOString();
    expect(sandbox.cards.listTransactions(ws, card, { status: 'reversed' }).data).toEqual([{ ...probe, status: 'reversed', posted_at: expiredAt }]);
    // A real hold never expires silently: it stays pending until captured or reversed.
    expect(sandbox.cards.listTransactions(ws, card, { status: 'pending' }).data).toEqual([hold]);
    expect(bills(sandbox, ws, card).find((b) => b.lines[0]?.uuid === probe.uuid)).toMatchObject({ status: 'expired' });
    expect(sandbox.events.since(0)).toHaveLength(events);
  });

  it('a decline is a failed row with only the merchant leg; nothing moves', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const before = { wallet: sandbox.wallet.get(ws), ledger: sandbox.ledger.list(ws).meta.total, card: balances(sandbox, ws, card) };
    const decline = sandbox.simulate.decline(ws, card, { merchant_amount: '5000.00', merchant_currency: 'GBP', reason: 'risk_blocked', merchant: { raw_name: 'LUXURY WATCHES LTD', mcc: '5944', country: 'GB' } });
    expect(decline).toMatchObject({ type: 'decline', status: 'failed', amount: '0.00', currency: 'USD', merchant_amount: '5000.00', merchant_currency: 'GBP', fx_rate: null, auth_code: null, decline_reason: 'risk_blocked' });
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ kind: 'decline', status: 'declined', amount: '0.00', settled_amount: '0.00', merchant_amount: '5000.00', merchant_currency: 'GBP', fx_rate: null, decline_reason: 'risk_blocked' });
    expect({ wallet: sandbox.wallet.get(ws), ledger: sandbox.ledger.list(ws).meta.total, card: balances(sandbox, ws, card) }).toEqual(before);
    expect(txnEvents(sandbox, card)).toEqual([['card.transaction.declined', 'decline']]);
    expect(catchError(() => sandbox.simulate.decline(ws, card, { merchant_amount: '1.00', reason: 'nope' as never }))).toMatchObject({ status: 422 });
    expect(conformance(sandbox, ws, card)).toEqual([]);
  });

  it('declines by itself on insufficient funds and on a frozen or closing card', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.simulate.authorize(ws, card, { amount: '80.00' });
    expect(sandbox.simulate.authorize(ws, card, { amount: '20.01' })).toMatchObject({ type: 'decline', decline_reason: 'insufficient_funds', merchant_amount: '20.01', amount: '0.00' });
    expect(sandbox.simulate.authorize(ws, card, { amount: '20.00' })).toMatchObject({ type: 'authorization', amount: '20.00' });
    expect(balances(sandbox, ws, card).available_balance).toBe('0.00');

    const other = issueActiveCard(sandbox, ws);
    sandbox.risk.freeze(ws, other, { origin: 'issuer', reason: 'Issuer fraud check' });
    expect(sandbox.simulate.authorize(ws, other, { amount: '1.00' })).toMatchObject({ type: 'decline', decline_reason: 'card_frozen' });
    // D27: the workspace cannot lift the issuer's freeze, but it can close the card.
    expect(catchError(() => sandbox.cards.unfreeze(ws, other))).toMatchObject({ status: 409, code: 'card.state_conflict' });
    sandbox.cards.close(ws, other);
    expect(sandbox.simulate.authorize(ws, other, { amount: '1.00' })).toMatchObject({ type: 'decline', decline_reason: 'card_frozen' });
    sandbox.advance(5000);
    expect(sandbox.cards.get(ws, other).status).toBe('closed');
    expect(sandbox.simulate.authorize(ws, other, { amount: '1.00' })).toMatchObject({ type: 'decline', decline_reason: 'other' });
    expect(sandbox.cards.listTransactions(ws, other, { type: 'decline' }).meta.total).toBe(3);
  });

  it('a foreign-currency purchase carries the merchant leg and fx_rate = amount / merchant_amount', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const auth = sandbox.simulate.authorize(ws, card, { amount: '23.01', merchant_amount: '21.00', merchant_currency: 'EUR', merchant: { raw_name: 'BOOKSHOP BERLIN', country: 'DE' } });
    expect(auth).toMatchObject({ amount: '23.01', currency: 'USD', merchant_amount: '21.00', merchant_currency: 'EUR', fx_rate: '1.095714' });
    const capture = sandbox.simulate.capture(ws, auth.supplier_txn_id);
    expect(capture).toMatchObject({ amount: '23.01', merchant_amount: '21.00', merchant_currency: 'EUR', fx_rate: '1.095714' });
    // A partial refund converts at the purchase's rate.
    const refund = sandbox.simulate.refund(ws, auth.supplier_txn_id, { amount: '11.50' });
    expect(refund).toMatchObject({ amount: '11.50', merchant_amount: '10.50', merchant_currency: 'EUR' });
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'refunded', amount: '23.01', currency: 'USD', merchant_amount: '21.00', merchant_currency: 'EUR', fx_rate: '1.095714' });
    expect(sandbox.cards.get(ws, card).card_balance).toBe('88.49');
    for (const bad of [{ amount: '10.00', merchant_currency: 'EUR' }, { amount: '10.00', merchant_amount: '9.00' }, { amount: '0.00', merchant_amount: '1.00', merchant_currency: 'EUR' }]) {
      expect(catchError(() => sandbox.simulate.authorize(ws, card, bad))).toMatchObject({ status: 422, code: 'validation.failed' });
    }
    expect(conformance(sandbox, ws, card)).toEqual([]);
  });

  it('a partial capture settles part and releases the whole hold', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const auth = sandbox.simulate.authorize(ws, card, { amount: '50.00' });
    expect(catchError(() => sandbox.simulate.capture(ws, auth.supplier_txn_id, { amount: '50.01' }))).toMatchObject({ status: 422 });
    sandbox.simulate.capture(ws, auth.supplier_txn_id, { amount: '45.50' });
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '54.50', held_amount: '0.00', available_balance: '54.50' });
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'settled', amount: '45.50', settled_amount: '45.50' });
  });

  it('a chargeback opens on a settled purchase and, resolved for the cardholder, returns the money without an event', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const auth = sandbox.simulate.authorize(ws, card, { amount: '30.00' });
    expect(catchError(() => sandbox.simulate.chargeback(ws, auth.supplier_txn_id))).toMatchObject({ status: 409 });
    sandbox.simulate.capture(ws, auth.supplier_txn_id);
    const opened = sandbox.simulate.chargeback(ws, auth.supplier_txn_id);
    expect(opened).toMatchObject({ type: 'chargeback_opened', status: 'pending', amount: '30.00' });
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'chargeback_opened' });
    expect(catchError(() => sandbox.simulate.refund(ws, auth.supplier_txn_id))).toMatchObject({ status: 409 });
    const events = sandbox.events.since(0).length;
    const resolved = sandbox.simulate.resolveChargeback(ws, auth.supplier_txn_id, { outcome: 'cardholder' });
    expect(resolved).toMatchObject({ type: 'chargeback_resolved', status: 'posted', amount: '30.00' });
    expect(sandbox.events.since(0)).toHaveLength(events);
    expect(sandbox.cards.get(ws, card)).toMatchObject({ card_balance: '100.00', lifetime_spend_amount: '30.00', lifetime_refund_amount: '30.00' });
    expect(postings(sandbox, ws, 'card_spend_reversal')).toEqual([
      ['platform.settlement', 'debit', '30.00'],
      ['card', 'credit', '30.00'],
    ]);
    expect(bills(sandbox, ws, card)[0]).toMatchObject({ status: 'chargeback_resolved', lines: expect.arrayContaining([resolved]) });
    expect(catchError(() => sandbox.simulate.resolveChargeback(ws, auth.supplier_txn_id, { outcome: 'merchant' }))).toMatchObject({ status: 409 });
    expect(txnEvents(sandbox, card).map(([e]) => e)).toEqual(['card.transaction.authorized', 'card.transaction.captured', 'card.transaction.chargeback_opened']);
    expect(conformance(sandbox, ws, card)).toEqual([]);
  });
});

describe('closing with transactions in flight', () => {
  it('settles holds before stage 2, then refunds what is left; a later merchant refund goes to the wallet', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const auth = sandbox.simulate.authorize(ws, card, { amount: '30.00' });
    sandbox.cards.close(ws, card);
    sandbox.advance(60_000);
    expect(sandbox.cards.get(ws, card).status).toBe('pending_close');
    expect(catchError(() => sandbox.admin.finishClose(card))).toMatchObject({ status: 409 });
    sandbox.simulate.capture(ws, auth.supplier_txn_id);
    sandbox.advance(0);
    expect(sandbox.cards.get(ws, card)).toMatchObject({ status: 'closed', card_balance: '0.00' });
    const closed = sandbox.events.since(0).find((e) => e.event === 'card.closed')!;
    expect(closed.data).toMatchObject({ refund_amount: '70.00', currency: 'USD', status: 'closed' });

    const wallet = sandbox.wallet.get(ws).wallets[0]!.available;
    sandbox.simulate.refund(ws, auth.supplier_txn_id, { amount: '5.00' });
    expect(sandbox.cards.get(ws, card).card_balance).toBe('0.00');
    expect(sandbox.wallet.get(ws).wallets[0]!.available).toBe((Number(wallet) + 5).toFixed(2));
    expect(postings(sandbox, ws, 'card_post_close_refund')).toEqual([
      ['platform.settlement', 'debit', '5.00'],
      ['wallet.available', 'credit', '5.00'],
    ]);
    expect(sandbox.admin.audit()).toEqual([]);
  });
});

describe('risk and issuer actions', () => {
  it('freezes as platform_risk without an order', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const orders = sandbox.orders.list(ws).meta.total;
    sandbox.risk.freeze(ws, card, { origin: 'platform_risk', reason: 'Velocity rule' });
    expect(sandbox.cards.get(ws, card).status).toBe('frozen');
    expect(sandbox.orders.list(ws).meta.total).toBe(orders);
    expect(sandbox.events.since(0).at(-1)).toMatchObject({ event: 'card.frozen', data: { origin: 'platform_risk', reason: 'Velocity rule', status: 'frozen' } });
    expect(catchError(() => sandbox.risk.freeze(ws, card, { origin: 'issuer' }))).toMatchObject({ status: 409 });
    expect(catchError(() => sandbox.risk.freeze(ws, card, { origin: 'workspace' as never }))).toMatchObject({ status: 422 });
    expect(sandbox.events.since(0).flatMap((e) => spec.webhookErrors(e))).toEqual([]);
  });

  it('pushes one card.frozen when risk freezes a card while the workspace freeze order is in flight', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const order = sandbox.cards.freeze(ws, card, { reason: 'Lost phone' });
    sandbox.risk.freeze(ws, card, { origin: 'platform_risk', reason: 'Velocity rule' });
    sandbox.advance(1000);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('completed');
    expect(sandbox.cards.get(ws, card).status).toBe('frozen');
    const frozen = sandbox.events.since(0).filter((e) => e.event === 'card.frozen');
    expect(frozen.map((e) => (e.data as { origin: string }).origin)).toEqual(['platform_risk']);
    expect(sandbox.events.since(0).filter((e) => e.event === 'order.completed').at(-1)).toMatchObject({ data: { order_uuid: order.uuid, type: 'freeze' } });
  });

  it('applies a penalty from the available balance with card.risk.penalty_applied', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.simulate.authorize(ws, card, { amount: '60.00' });
    expect(catchError(() => sandbox.risk.penalty(ws, card, { amount: '40.01' }))).toMatchObject({ status: 422 });
    expect(sandbox.risk.penalty(ws, card, { amount: '15.00' })).toEqual({ card_uuid: card, penalty_amount: '15.00', currency: 'USD', balance_after: '85.00' });
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '85.00', held_amount: '60.00', available_balance: '25.00' });
    expect(sandbox.events.since(0).at(-1)).toMatchObject({ event: 'card.risk.penalty_applied', data: { card_uuid: card, penalty_amount: '15.00', currency: 'USD', balance_after: '85.00' } });
    // It appears in no transaction feed (6.4, D40): no card transaction row, no ledger row listed, not even under
    // risk_penalty, which the contract keeps for a fee per declined transaction. The books still balance.
    expect(sandbox.cards.listTransactions(ws, card).meta.total).toBe(1);
    expect(postings(sandbox, ws, 'risk_penalty')).toEqual([]);
    expect(sandbox.ledger.list(ws, { reference_uuid: card, per_page: 100 }).data.some((r) => r.amount === '15.00')).toBe(false);
    expect(sandbox.admin.audit()).toEqual([]);
    expect(sandbox.events.since(0).flatMap((e) => spec.webhookErrors(e))).toEqual([]);
  });

  it('charges a risk_penalty fee for a declined transaction from the wallet, below zero if need be (D40)', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const wallet = () => sandbox.wallet.get(ws).wallets.find((w) => w.currency === 'USD')!;
    const before = wallet().available;
    const row = sandbox.simulate.decline(ws, card, { merchant_amount: '500.00', reason: 'risk_blocked', penalty_fee: '2.50' });
    expect(row).toMatchObject({ type: 'decline', status: 'failed', amount: '0.00' });
    expect(postings(sandbox, ws, 'risk_penalty')).toEqual([
      ['wallet.available', 'debit', '2.50'],
      ['platform.revenue', 'credit', '2.50'],
    ]);
    expect(wallet().available).toBe(new Money(before).minus('2.50').toFixed(2));
    // The card did not move; a decline without a fee charges nothing.
    expect(balances(sandbox, ws, card)).toEqual({ card_balance: '100.00', held_amount: '0.00', available_balance: '100.00' });
    sandbox.simulate.decline(ws, card, { merchant_amount: '5.00', reason: 'other' });
    expect(postings(sandbox, ws, 'risk_penalty')).toHaveLength(2);
    // A fee larger than the wallet takes it below zero; a later hold is then refused with 402.
    sandbox.simulate.decline(ws, card, { merchant_amount: '5.00', reason: 'risk_blocked', penalty_fee: '20000.00' });
    expect(new Money(wallet().available).isNegative()).toBe(true);
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '10.00' }))).toMatchObject({ status: 402 });
    expect(catchError(() => sandbox.simulate.decline(ws, card, { merchant_amount: '5.00', reason: 'other', penalty_fee: '0.00' }))).toMatchObject({ status: 422 });
    expect(sandbox.admin.audit()).toEqual([]);
  });
});

describe('reads', () => {
  it('filters transactions, pages bills by their latest event, and answers 404 and 422', () => {
    const { sandbox, ws, clock } = setup();
    const card = issueActiveCard(sandbox, ws);
    const other = sandbox.admin.createWorkspace({ name: 'Other' }).id;
    const first = sandbox.simulate.authorize(ws, card, { amount: '5.00' });
    const start = clock.now().toISOString();
    clock.advance(60_000);
    const second = sandbox.simulate.authorize(ws, card, { amount: '6.00' });
    sandbox.simulate.decline(ws, card, { merchant_amount: '1.00', reason: 'cvv_mismatch' });
    clock.advance(60_000);
    sandbox.simulate.capture(ws, first.supplier_txn_id);

    expect(sandbox.cards.listTransactions(ws, card, { type: 'authorization' }).data.map((t) => t.uuid)).toEqual([second.uuid, first.uuid]);
    expect(sandbox.cards.listTransactions(ws, card, { status: 'failed' }).meta.total).toBe(1);
    expect(sandbox.cards.listTransactions(ws, card, { from: new Date(Date.parse(start) + 1).toISOString() }).meta.total).toBe(3);
    const page = sandbox.cards.listConsumptionBills(ws, card, { per_page: 2 });
    expect(page.meta).toMatchObject({ total: 3, last_page: 2, per_page: 2 });
    expect(page.links.next).toBe(`/cards/${card}/consumption-bills?page=2&per_page=2`);
    // The first purchase's latest event is its capture, two minutes in: `to` before it leaves it out.
    const early = sandbox.cards.listConsumptionBills(ws, card, { to: new Date(Date.parse(start) + 90_000).toISOString() });
    expect(early.data.map((b) => b.kind)).toEqual(['decline', 'purchase']);
    expect(early.data[1]!.lines[0]!.uuid).toBe(second.uuid);

    const missing = '00000000-0000-4000-8000-000000000000';
    for (const read of [() => sandbox.cards.listTransactions(ws, missing), () => sandbox.cards.listConsumptionBills(ws, missing), () => sandbox.cards.listTransactions(other, card), () => sandbox.simulate.authorize(other, card, { amount: '1.00' })]) {
      expect(catchError(read)).toMatchObject({ status: 404, code: 'card.not_found' });
    }
    for (const bad of [{ type: 'purchase' }, { status: 'settled' }, { from: 'yesterday' }, { per_page: 500 }]) {
      expect(catchError(() => sandbox.cards.listTransactions(ws, card, bad))).toMatchObject({ status: 422, code: 'validation.failed' });
    }
    expect(conformance(sandbox, ws, card)).toEqual([]);
  });
});
