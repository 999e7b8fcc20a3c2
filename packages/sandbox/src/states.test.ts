import { describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS } from './orders.js';
import { catchError, issueActiveCard, issueBody, setup } from './test-support.js';

/** The ledger rows of one reason, oldest first. */
function rowsOf(sandbox: ReturnType<typeof setup>['sandbox'], ws: number, reason: string) {
  return sandbox.ledger.list(ws, { reason, per_page: 100 }).data.reverse();
}

describe('transient order failures (D42)', () => {
  it('retries on the sandbox clock, processing between attempts, then completes once the supplier answers', () => {
    const { sandbox, ws } = setup();
    sandbox.admin.failNextOrder('next-issue', 'timeout', 1);
    const order = sandbox.cards.create(ws, issueBody());
    sandbox.advance(100);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('processing');
    sandbox.advance(RETRY_DELAYS_MS[0]! - 1_000);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('processing');
    sandbox.advance(1_000);
    expect(sandbox.orders.get(ws, order.uuid)).toMatchObject({ status: 'completed', failure_reason: null });
    expect(sandbox.admin.audit()).toEqual([]);
  });

  it('waits in awaiting_platform after the retry budget; an admin retry completes it', () => {
    const { sandbox, ws } = setup();
    sandbox.admin.failNextOrder('next-issue', 'supplier5xx');
    const order = sandbox.cards.create(ws, issueBody());
    sandbox.advance(600_000);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('awaiting_platform');
    expect(sandbox.wallet.get(ws).wallets[0]!.held_balance).toBe('105.00');
    expect(sandbox.admin.resolveOrder(ws, order.uuid, 'retry').status).toBe('processing');
    sandbox.advance(1_000);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('completed');
    expect(catchError(() => sandbox.admin.resolveOrder(ws, order.uuid, 'retry')).status).toBe(409);
  });

  it('an admin refund-close fails it with admin_refund_close and releases the hold as held_release_admin', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.admin.failNextOrder(card, 'signature');
    const order = sandbox.cards.topup(ws, card, { amount: '20.00' });
    sandbox.advance(600_000);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('awaiting_platform');
    const failed = sandbox.admin.resolveOrder(ws, order.uuid, 'refund_close');
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'admin_refund_close', type: 'topup_card' });
    const released = rowsOf(sandbox, ws, 'held_release_admin');
    expect(released.map((r) => [r.direction, r.account_code, r.amount])).toEqual([
      ['debit', 'wallet.held', order.held_amount],
      ['credit', 'wallet.available', order.held_amount],
    ]);
    expect(sandbox.wallet.get(ws).wallets[0]!.held_balance).toBe('0.00');
    expect(sandbox.admin.audit()).toEqual([]);
  });

  it('async_issue_failed goes through awaiting_platform (the asynchronous fallback) and fails', () => {
    const { sandbox, ws } = setup();
    sandbox.admin.failNextOrder('next-issue', 'async_issue_failed');
    const order = sandbox.cards.create(ws, issueBody());
    sandbox.advance(100);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('awaiting_platform');
    sandbox.advance(100);
    expect(sandbox.orders.get(ws, order.uuid)).toMatchObject({ status: 'failed', failure_reason: 'async_issue_failed' });
    expect(sandbox.cards.get(ws, order.related_card_uuid!).status).toBe('issue_failed');
  });
});

describe('wallet money outside the card writes', () => {
  it('withdrawals: held, then completed (pool plus fee), canceled or rejected (back to the balance)', () => {
    const { sandbox, ws } = setup();
    const before = sandbox.wallet.get(ws).wallets[0]!;
    const a = sandbox.admin.withdraw(ws, { amount: '100.00', fee: '2.00' });
    expect(sandbox.wallet.get(ws).wallets[0]!).toMatchObject({ held_balance: '102.00', balance: before.balance });
    sandbox.admin.settleWithdrawal(ws, a.uuid, 'completed');
    const b = sandbox.admin.withdraw(ws, { amount: '10.00' });
    sandbox.admin.settleWithdrawal(ws, b.uuid, 'canceled');
    const c = sandbox.admin.withdraw(ws, { amount: '10.00' });
    sandbox.admin.settleWithdrawal(ws, c.uuid, 'rejected');
    expect(catchError(() => sandbox.admin.settleWithdrawal(ws, c.uuid, 'completed')).status).toBe(409);
    const after = sandbox.wallet.get(ws).wallets[0]!;
    expect(after).toMatchObject({ held_balance: '0.00', available: '9898.00', balance: '9898.00' });
    expect(rowsOf(sandbox, ws, 'withdrawal_completed').map((r) => [r.direction, r.account_code, r.amount])).toEqual([
      ['debit', 'wallet.held', '102.00'],
      ['credit', 'platform.payout_pool', '100.00'],
      ['credit', 'platform.revenue', '2.00'],
    ]);
    for (const reason of ['withdrawal_held', 'withdrawal_canceled', 'withdrawal_rejected']) expect(rowsOf(sandbox, ws, reason).length).toBeGreaterThan(0);
    expect(sandbox.admin.audit()).toEqual([]);
  });

  it('a subscription is charged and satisfies the product that requires it', () => {
    const { sandbox, ws } = setup();
    const ads = () => sandbox.catalogue.list(ws).find((p) => p.required_subscription_product_code === 'ads_pro')!;
    expect(ads()).toMatchObject({ subscription_satisfied: false, available: false });
    expect(catchError(() => sandbox.cards.create(ws, issueBody({ card_product_id: ads().id }))).code).toBe('card_product.unavailable');
    sandbox.admin.subscribe(ws, { product_code: 'ads_pro', price: '49.00' });
    expect(ads()).toMatchObject({ subscription_satisfied: true, available: true });
    expect(rowsOf(sandbox, ws, 'subscription_charge').map((r) => [r.direction, r.account_code, r.amount])).toEqual([
      ['debit', 'wallet.available', '49.00'],
      ['credit', 'platform.revenue', '49.00'],
    ]);
    sandbox.cards.create(ws, issueBody({ card_product_id: ads().id }));
    expect(catchError(() => sandbox.admin.subscribe(ws, { product_code: 'ads_pro' })).status).toBe(409);
  });

  it('reconcile adjustments move money against the reconciliation account; a reversal mirrors a group once', () => {
    const { sandbox, ws } = setup();
    const group = sandbox.admin.adjust(ws, { direction: 'credit', amount: '3.20' });
    expect(sandbox.wallet.get(ws).wallets[0]!.available).toBe('10003.20');
    const reversal = sandbox.admin.reverse(ws, group);
    expect(sandbox.wallet.get(ws).wallets[0]!.available).toBe('10000.00');
    const rows = sandbox.ledger.list(ws, { reason: 'reversal' }).data;
    expect(rows.every((r) => r.txn_group_id === reversal && r.reference_uuid === group)).toBe(true);
    expect(catchError(() => sandbox.admin.reverse(ws, group)).status).toBe(409);
    expect(catchError(() => sandbox.admin.reverse(ws, reversal)).status).toBe(409);
    expect(sandbox.admin.audit()).toEqual([]);
  });

  it('a frozen wallet shows frozen_at and frozen_reason and refuses to hold money (402), while money still comes in', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.admin.setWalletFrozen(ws, { frozen: true, reason: 'Compliance review' });
    expect(sandbox.wallet.get(ws).wallets[0]).toMatchObject({ frozen_reason: 'Compliance review', frozen_at: expect.any(String) });
    expect(catchError(() => sandbox.cards.create(ws, issueBody())).code).toBe('wallet.insufficient_balance');
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '20.00' })).status).toBe(402);
    expect(catchError(() => sandbox.admin.withdraw(ws, { amount: '1.00' })).status).toBe(402);
    sandbox.admin.deposit(ws, { amount: '5.00' });
    expect(sandbox.simulate.authorize(ws, card, { amount: '5.00' }).type).toBe('authorization');
    sandbox.admin.setWalletFrozen(ws, { frozen: false });
    expect(sandbox.wallet.get(ws).wallets[0]).toMatchObject({ frozen_at: null, frozen_reason: null });
    sandbox.cards.topup(ws, card, { amount: '20.00' });
  });
});

describe('card states the workspace does not drive', () => {
  it('capability flags follow the state and the freeze origin; appeal_terminated follows a final ruling', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const flags = () => {
      const d = sandbox.cards.get(ws, card);
      return [d.supports_freeze, d.supports_unfreeze, d.supports_balance_query, d.appeal_terminated];
    };
    expect(flags()).toEqual([true, false, true, false]);
    sandbox.cards.freeze(ws, card);
    sandbox.advance(1_000);
    expect(flags()).toEqual([false, true, true, false]);
    sandbox.cards.unfreeze(ws, card);
    sandbox.advance(1_000);
    sandbox.risk.freeze(ws, card, { origin: 'platform_risk', appeal_terminated: true });
    expect(flags()).toEqual([false, false, true, true]);
    const decline = sandbox.simulate.authorize(ws, card, { amount: '1.00' });
    expect(decline).toMatchObject({ type: 'decline', decline_reason: 'card_frozen' });
  });

  it('a closed card answers no capability', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.cards.close(ws, card);
    sandbox.advance(5_000);
    const d = sandbox.cards.get(ws, card);
    expect([d.status, d.supports_freeze, d.supports_unfreeze, d.supports_balance_query]).toEqual(['closed', false, false, false]);
  });

  it('staff cards: cardholder_type staff, in the staff member\'s name', () => {
    const { sandbox, ws } = setup();
    // Product 3 issues user cards in the account holder's name only (D41); a staff card names the staff member.
    sandbox.admin.deposit(ws, { amount: '200.00', currency: 'EUR' });
    const order = sandbox.cards.create(ws, { ...issueBody({ card_product_id: 3, cardholder_first_name: 'Katherine', cardholder_last_name: 'Johnson' }), cardholder_type: 'staff' } as ReturnType<typeof issueBody>);
    sandbox.advance(1_000);
    const card = sandbox.cards.get(ws, sandbox.orders.get(ws, order.uuid).related_card_uuid!);
    expect(card).toMatchObject({ cardholder_type: 'staff', status: 'active', cardholder_first_name: 'Katherine' });
    expect(sandbox.cards.list(ws, { cardholder_type: 'staff' }).data.map((c) => c.uuid)).toEqual([card.uuid]);
  });
});

describe('network rows without a purchase in the feed (D49) and late money after close', () => {
  it('a late charge on a closed card is taken from the wallet; a late refund goes to the wallet', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const auth = sandbox.simulate.authorize(ws, card, { amount: '30.00' });
    sandbox.simulate.capture(ws, auth.supplier_txn_id);
    sandbox.cards.close(ws, card);
    sandbox.advance(5_000);
    const before = sandbox.wallet.get(ws).wallets[0]!.available;
    const late = sandbox.simulate.unmatched(ws, card, { type: 'capture', amount: '12.40' });
    sandbox.simulate.refund(ws, auth.supplier_txn_id, { amount: '10.00' });
    expect(rowsOf(sandbox, ws, 'card_post_close_clawback').map((r) => [r.direction, r.account_code, r.amount])).toEqual([
      ['debit', 'wallet.available', '12.40'],
      ['credit', 'platform.settlement', '12.40'],
    ]);
    expect(rowsOf(sandbox, ws, 'card_post_close_refund').map((r) => [r.direction, r.account_code])).toEqual([
      ['debit', 'platform.settlement'],
      ['credit', 'wallet.available'],
    ]);
    expect(sandbox.wallet.get(ws).wallets[0]!.available).toBe((Number(before) - 12.4 + 10).toFixed(2));
    const bills = sandbox.cards.listConsumptionBills(ws, card).data;
    expect(bills.find((b) => b.lines[0]!.uuid === late.uuid)).toMatchObject({ kind: 'other', status: 'settled' });
    expect(sandbox.admin.audit()).toEqual([]);
  });

  it('an unmatched refund and chargeback make bills of kind refund and chargeback', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.simulate.unmatched(ws, card, { type: 'refund', amount: '4.00' });
    const dispute = sandbox.simulate.unmatched(ws, card, { type: 'chargeback_opened', amount: '7.00' });
    sandbox.simulate.resolveChargeback(ws, dispute.supplier_txn_id, { outcome: 'cardholder' });
    const kinds = sandbox.cards.listConsumptionBills(ws, card).data.map((b) => [b.kind, b.status, b.settled_amount]);
    expect(kinds).toEqual([
      ['chargeback', 'chargeback_resolved', null],
      ['refund', 'refunded', '4.00'],
    ]);
    expect(sandbox.cards.get(ws, card).card_balance).toBe('111.00');
    expect(sandbox.admin.audit()).toEqual([]);
  });
});

describe('D43: refunds and reversals of card spend credit the card (the workspace side), debiting the platform', () => {
  it('card_spend_refund and card_spend_reversal: platform.settlement debit, card credit, lifetime_refund_amount', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const a = sandbox.simulate.authorize(ws, card, { amount: '40.00' });
    sandbox.simulate.capture(ws, a.supplier_txn_id);
    sandbox.simulate.refund(ws, a.supplier_txn_id, { amount: '10.00' });
    sandbox.simulate.chargeback(ws, a.supplier_txn_id, { amount: '30.00' });
    sandbox.simulate.resolveChargeback(ws, a.supplier_txn_id, { outcome: 'cardholder' });
    for (const reason of ['card_spend_refund', 'card_spend_reversal']) {
      const rows = rowsOf(sandbox, ws, reason);
      expect(rows.map((r) => [r.direction, r.account_code, r.account_card_uuid])).toEqual([
        ['debit', 'platform.settlement', null],
        ['credit', 'card', card],
      ]);
    }
    expect(sandbox.cards.get(ws, card)).toMatchObject({ card_balance: '100.00', lifetime_refund_amount: '40.00' });
  });
});
