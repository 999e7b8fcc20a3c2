import { describe, expect, it } from 'vitest';
import type { Context } from './context.js';
import { loadCard, loadOrder } from './orders.js';
import type { Sandbox } from './sandbox.js';
import { catchError, issueActiveCard, issueBody, newestCard, setup, tableColumns } from './test-support.js';
import { fmt, money } from './money.js';
import type { LedgerRow } from './types.js';

/** All ledger rows of the workspace, oldest first. */
function ledgerRows(sandbox: Sandbox, ws: number): LedgerRow[] {
  return sandbox.ledger.list(ws, { per_page: 100 }).data.reverse();
}

/** Rows as `reason direction account amount` lines, oldest first, skipping the seed deposit. */
function movements(sandbox: Sandbox, ws: number): string[] {
  return ledgerRows(sandbox, ws)
    .filter((r) => r.reason_code !== 'usdt_deposit')
    .map((r) => `${r.reason_code} ${r.direction} ${r.account_code} ${r.amount}`);
}

function usd(sandbox: Sandbox, ws: number) {
  return sandbox.wallet.get(ws).wallets.find((w) => w.currency === 'USD');
}

describe('catalogue', () => {
  it('annotates the platform products for the workspace (contract 2.1)', () => {
    const { sandbox, ws } = setup();
    const products = sandbox.catalogue.list(ws);
    expect(products.map((p) => [p.id, p.currency, p.currency_match, p.requires_subscription, p.subscription_satisfied, p.available])).toEqual([
      [1, 'USD', true, false, true, true],
      [2, 'USD', true, false, true, true],
      [3, 'EUR', false, false, true, true],
      [4, 'USD', true, true, false, false],
    ]);
    expect(products[0]).toMatchObject({ fees: { card_issue_fixed: '5.00', topup_fixed: '1.00', topup_percent: '0.0150' }, min_initial_topup_amount: '10.00', min_topup_amount: '5.00', required_subscription_product_code: null });
    sandbox.admin.addSubscription(ws, 'ads_pro');
    expect(sandbox.catalogue.list(ws)[3]).toMatchObject({ subscription_satisfied: true, available: true });
  });
});

describe('issue', () => {
  it('holds top-up plus fee, then captures to the card and platform revenue (D21)', () => {
    const { sandbox, ws } = setup();
    const order = sandbox.cards.create(ws, issueBody({ initial_topup_amount: '100.00' }));
    const cardUuid = newestCard(sandbox, ws);
    expect(order).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'issue_card',
      status: 'pending',
      // D29: the order names the new card from the 202 on, as GET /cards lists it from then; D8: related_card_id is
      // the card's numeric id, as every *_id of the contract.
      related_card_uuid: cardUuid,
      related_card_id: 1,
      held_amount: '105.00',
      currency: 'USD',
      created_at: '2026-03-01T12:00:00.000Z',
      failure_reason: null,
    });
    expect(usd(sandbox, ws)).toMatchObject({ balance: '10000.00', held_balance: '105.00', available: '9895.00' });
    expect(sandbox.cards.get(ws, cardUuid)).toMatchObject({ status: 'pending_issue', card_balance: '0.00', issued_at: null });

    sandbox.advance(50);
    expect(sandbox.orders.get(ws, order.uuid)).toMatchObject({ status: 'processing', related_card_uuid: cardUuid });
    sandbox.advance(50);
    expect(sandbox.orders.get(ws, order.uuid)).toMatchObject({ status: 'completed', failure_reason: null, related_card_uuid: cardUuid });

    expect(usd(sandbox, ws)).toMatchObject({ balance: '9895.00', held_balance: '0.00', available: '9895.00' });
    const card = sandbox.cards.get(ws, cardUuid);
    expect(card).toMatchObject({
      status: 'active',
      card_balance: '100.00',
      available_balance: '100.00',
      held_amount: '0.00',
      lifetime_topup_amount: '100.00',
      issued_at: '2026-03-01T12:00:00.100Z',
      currency: 'USD',
      card_product_id: 1,
      workspace_id: ws,
      pan_bin: '411111',
      supports_freeze: true,
      supports_unfreeze: false,
      supports_balance_query: true,
    });
    expect(card.masked_pan).toBe(`411111******${card.pan_last4}`);
    expect(movements(sandbox, ws)).toEqual([
      'card_issue_held debit wallet.available 105.00',
      'card_issue_held credit wallet.held 105.00',
      'held_capture debit wallet.held 100.00',
      'held_capture credit card 100.00',
      'card_issue_fee debit wallet.held 5.00',
      'card_issue_fee credit platform.revenue 5.00',
    ]);
    const rows = ledgerRows(sandbox, ws).filter((r) => r.reason_code !== 'usdt_deposit');
    expect(new Set(rows.map((r) => r.txn_group_id)).size).toBe(3);
    expect(rows.every((r) => r.reference_type === 'Card' && r.reference_uuid === cardUuid)).toBe(true);
    expect(rows.filter((r) => r.account_code === 'card').map((r) => r.account_card_uuid)).toEqual([cardUuid]);

    const events = sandbox.events.since(0);
    expect(events.map((e) => e.event)).toEqual(['order.completed']);
    expect(events[0]).toEqual({
      event: 'order.completed',
      event_id: 1,
      occurred_at: '2026-03-01T12:00:00.100Z',
      workspace_id: ws,
      data: { order_uuid: order.uuid, type: 'issue_card', held_amount: '105.00', currency: 'USD', card_uuid: cardUuid, completed_at: '2026-03-01T12:00:00.100Z' },
    });
  });

  it('releases the hold when the order fails and marks the card issue_failed', () => {
    const { sandbox, ws } = setup();
    const seen: string[] = [];
    sandbox.events.onEvent((e) => seen.push(e.event));
    sandbox.admin.failNextOrder('next-issue', 'not_found');
    const order = sandbox.cards.create(ws, issueBody());
    sandbox.advance(100);
    expect(sandbox.orders.get(ws, order.uuid)).toMatchObject({ status: 'failed', failure_reason: 'not_found' });
    const failed = newestCard(sandbox, ws);
    // D29: the issue_failed card is named by its order, so no listed card is left without one.
    expect(sandbox.orders.get(ws, order.uuid).related_card_uuid).toBe(failed);
    expect(sandbox.cards.get(ws, failed)).toMatchObject({ status: 'issue_failed', card_balance: '0.00' });
    expect(usd(sandbox, ws)).toMatchObject({ balance: '10000.00', held_balance: '0.00', available: '10000.00' });
    expect(movements(sandbox, ws)).toEqual([
      'card_issue_held debit wallet.available 105.00',
      'card_issue_held credit wallet.held 105.00',
      'held_release debit wallet.held 105.00',
      'held_release credit wallet.available 105.00',
    ]);
    // D29: order.failed of an issue order names the card it was issuing.
    expect(sandbox.events.since(0)[0]?.data).toEqual({ order_uuid: order.uuid, type: 'issue_card', card_uuid: failed, failure_reason: 'not_found', failed_at: '2026-03-01T12:00:00.100Z' });
    expect(seen).toEqual(['order.failed']);
    // The queued failure was consumed: the next issue succeeds.
    const next = sandbox.cards.create(ws, issueBody());
    sandbox.advance(100);
    expect(sandbox.orders.get(ws, next.uuid).status).toBe('completed');
  });

  it('deducts the issue fee from the initial top-up for a product switched to that reading (D21, contract 2.1)', () => {
    const { sandbox, ws } = setup();
    expect(sandbox.admin.setIssueFeeMode(2, 'deducted')).toEqual({ id: 2, code: 'mc_usd_premium', issue_fee: 'deducted' });
    const order = sandbox.cards.create(ws, issueBody({ card_product_id: 2, initial_topup_amount: '100.00' }));
    // The hold is the initial top-up alone; the card gets it less the 10.00 fee.
    expect(order.held_amount).toBe('100.00');
    sandbox.advance(1000);
    expect(sandbox.cards.get(ws, order.related_card_uuid!)).toMatchObject({ status: 'active', card_balance: '90.00', lifetime_topup_amount: '90.00' });
    expect(movements(sandbox, ws)).toEqual([
      'card_issue_held debit wallet.available 100.00',
      'card_issue_held credit wallet.held 100.00',
      'held_capture debit wallet.held 90.00',
      'held_capture credit card 90.00',
      'card_issue_fee debit wallet.held 10.00',
      'card_issue_fee credit platform.revenue 10.00',
    ]);
    expect(usd(sandbox, ws)).toMatchObject({ balance: '9900.00', held_balance: '0.00' });
    // The other products keep the default; switching back restores it for later orders.
    expect(sandbox.cards.create(ws, issueBody({ initial_topup_amount: '100.00' })).held_amount).toBe('105.00');
    sandbox.admin.setIssueFeeMode(2, 'on_top');
    expect(sandbox.cards.create(ws, issueBody({ card_product_id: 2, initial_topup_amount: '100.00' })).held_amount).toBe('110.00');
    expect(catchError(() => sandbox.admin.setIssueFeeMode(99, 'deducted'))).toMatchObject({ status: 404 });
    expect(catchError(() => sandbox.admin.setIssueFeeMode(2, 'later' as 'deducted'))).toMatchObject({ status: 422 });
  });

  it('issues a product without supports_custom_holder_name only in the account holder\'s name (D41)', () => {
    const { sandbox, ws } = setup();
    const eur = sandbox.admin.createWorkspace({ name: 'Travel', baseCurrency: 'EUR', holderFirstName: 'Grace', holderLastName: 'Hopper' }).id;
    sandbox.admin.deposit(eur, { amount: '500.00' });
    expect(sandbox.catalogue.list(eur)[2]).toMatchObject({ id: 3, supports_custom_holder_name: false });
    const refused = catchError(() => sandbox.cards.create(eur, issueBody({ card_product_id: 3, initial_topup_amount: '20.00' })));
    expect(refused).toMatchObject({ status: 422, code: 'validation.failed' });
    expect(refused.fieldErrors?.cardholder_first_name?.[0]).toContain('Grace Hopper');
    // The holder's own name, in any case and with spaces around it, is accepted.
    const order = sandbox.cards.create(eur, issueBody({ card_product_id: 3, initial_topup_amount: '20.00', cardholder_first_name: ' grace', cardholder_last_name: 'HOPPER ' }));
    expect(order.held_amount).toBe('23.00');
    // A product with custom names takes any name.
    expect(sandbox.cards.create(ws, issueBody({ card_product_id: 1, cardholder_first_name: 'Alan', cardholder_last_name: 'Turing' })).type).toBe('issue_card');
  });

  it('answers 402 when the available balance cannot cover amount plus fee, and holds nothing', () => {
    const { sandbox, ws } = setup();
    const error = catchError(() => sandbox.cards.create(ws, issueBody({ initial_topup_amount: '9995.01' })));
    expect(error).toMatchObject({ status: 402, code: 'wallet.insufficient_balance' });
    expect(usd(sandbox, ws)?.held_balance).toBe('0.00');
    // Exactly the available balance is enough.
    expect(sandbox.cards.create(ws, issueBody({ initial_topup_amount: '9995.00' })).held_amount).toBe('10000.00');
    expect(usd(sandbox, ws)?.available).toBe('0.00');
    // A EUR product needs EUR money, whatever the USD balance.
    expect(catchError(() => sandbox.cards.create(ws, issueBody({ card_product_id: 3, initial_topup_amount: '20.00' }))).status).toBe(402);
    sandbox.admin.deposit(ws, { amount: '50.00', currency: 'EUR' });
    expect(sandbox.cards.create(ws, issueBody({ card_product_id: 3, initial_topup_amount: '20.00' }))).toMatchObject({ held_amount: '23.00', currency: 'EUR' });
    expect(sandbox.orders.list(ws).meta.total).toBe(2);
  });

  it.each([
    ['below the product minimum', { initial_topup_amount: '9.99' }, { initial_topup_amount: ['must be at least 10.00 USD for this product'] }],
    ['unknown product', { card_product_id: 99 }, { card_product_id: ['no card product 99'] }],
    ['amount not a decimal string', { initial_topup_amount: '1e3' }, { initial_topup_amount: ['must be a non-negative decimal string with at most 2 decimals, such as "100.00"'] }],
    // D28: at most 2 decimals, as the spec's AmountInput; trailing zeros beyond the cent are refused too.
    ['amount with sub-cent value', { initial_topup_amount: '10.005' }, { initial_topup_amount: ['must be a non-negative decimal string with at most 2 decimals, such as "100.00"'] }],
    ['amount with 4 decimals', { initial_topup_amount: '10.5000' }, { initial_topup_amount: ['must be a non-negative decimal string with at most 2 decimals, such as "100.00"'] }],
    // D35: 50 characters per name, as the spec.
    ['a name over 50 characters', { cardholder_first_name: 'A'.repeat(51) }, { cardholder_first_name: ['must be at most 50 characters'] }],
    ['missing names', { cardholder_first_name: '', cardholder_last_name: undefined }, { cardholder_first_name: ['must not be empty'], cardholder_last_name: ['is required'] }],
    [
      'custom billing address on a product without it, with a bad country',
      { billing_address: { line1: 'x', line2: null, city: 'y', state: null, postal_code: '1', country: 'usa' } },
      { 'billing_address.country': ['must be at most 2 characters', 'must be a 2-letter ISO country code'], billing_address: ['this card product does not accept a custom billing address'] },
    ],
  ])('answers 422 validation.failed: %s', (_name, overrides, fieldErrors) => {
    const { sandbox, ws } = setup();
    const error = catchError(() => sandbox.cards.create(ws, issueBody(overrides as never)));
    expect(error).toMatchObject({ status: 422, code: 'validation.failed', fieldErrors });
    expect(sandbox.orders.list(ws).meta.total).toBe(0);
  });

  it('answers 422 card_product.unavailable for a product needing a missing subscription', () => {
    const { sandbox, ws } = setup();
    expect(catchError(() => sandbox.cards.create(ws, issueBody({ card_product_id: 4 })))).toMatchObject({ status: 422, code: 'card_product.unavailable' });
  });

  it('keeps a custom billing address where the product allows one', () => {
    const { sandbox, ws } = setup();
    const address = { line1: '5 Main St', line2: null, city: 'Austin', state: 'TX', postal_code: '73301', country: 'US' };
    const card = issueActiveCard(sandbox, ws, { card_product_id: 2, initial_topup_amount: '50.00', billing_address: address });
    expect(sandbox.cards.get(ws, card).avs_billing_address).toEqual(address);
  });
});

describe('shared card details (the HTTP read path)', () => {
  it('hands out one frozen detail until the next commit, equal to what get returns, and never mutable', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const shared = sandbox.cards.getShared(ws, card);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(Object.isFrozen(shared.avs_billing_address)).toBe(true);
    expect(sandbox.cards.getShared(ws, card.toUpperCase())).toBe(shared);
    expect(shared).toEqual(sandbox.cards.get(ws, card));
    // get still hands out a copy the caller may change, which changes nothing shared.
    const copy = sandbox.cards.get(ws, card);
    copy.status = 'closed';
    copy.avs_billing_address!.city = 'Elsewhere';
    expect(sandbox.cards.getShared(ws, card)).toBe(shared);
    expect(shared.status).toBe('active');
    expect(shared.avs_billing_address!.city).not.toBe('Elsewhere');

    // Any commit ends the sharing: the next read is the card as it is now.
    sandbox.cards.topup(ws, card, { amount: '20.00' }, 'shared-topup');
    sandbox.advance(1000);
    const after = sandbox.cards.getShared(ws, card);
    expect(after).not.toBe(shared);
    expect(after.card_balance).not.toBe(shared.card_balance);
    expect(after).toEqual(sandbox.cards.get(ws, card));
  });

  it('answers 404 for a card of another workspace or none, as get does', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const other = sandbox.admin.createWorkspace({ name: 'Other' }).id;
    expect(catchError(() => sandbox.cards.getShared(other, card))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(catchError(() => sandbox.cards.getShared(ws, '00000000-0000-4000-8000-000000000000'))).toMatchObject({ status: 404, code: 'card.not_found' });
  });
});

describe('topup', () => {
  it('holds amount + fixed + percent fee (half-up) and loads the amount', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    // 33.33 x 1.5 % = 0.49995 -> 0.50; fee 1.00 + 0.50.
    const order = sandbox.cards.topup(ws, card, { amount: '33.33' });
    expect(order).toMatchObject({ type: 'topup_card', held_amount: '34.83', related_card_uuid: card });
    sandbox.advance(100);
    expect(sandbox.cards.get(ws, card)).toMatchObject({ card_balance: '133.33', lifetime_topup_amount: '133.33' });
    expect(movements(sandbox, ws).slice(-6)).toEqual([
      'card_topup_held debit wallet.available 34.83',
      'card_topup_held credit wallet.held 34.83',
      'held_capture debit wallet.held 33.33',
      'held_capture credit card 33.33',
      'card_topup_fee debit wallet.held 1.50',
      'card_topup_fee credit platform.revenue 1.50',
    ]);
    expect(usd(sandbox, ws)).toMatchObject({ balance: '9860.17', held_balance: '0.00' });
  });

  it('validates the amount against the product minimum and the card', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '4.99' }))).toMatchObject({ status: 422, code: 'validation.failed', fieldErrors: { amount: ['must be at least 5.00'] } });
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '-5' }))).toMatchObject({ status: 422 });
    expect(catchError(() => sandbox.cards.topup(ws, '00000000-0000-4000-8000-000000000000', { amount: '10.00' }))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '99999.00' }))).toMatchObject({ status: 402, code: 'wallet.insufficient_balance' });
  });

  it('does not reveal cards of other workspaces', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const other = sandbox.admin.createWorkspace({ name: 'Other' });
    expect(catchError(() => sandbox.cards.get(other.id, card))).toMatchObject({ status: 404, code: 'card.not_found' });
    expect(catchError(() => sandbox.cards.freeze(other.id, card))).toMatchObject({ status: 404 });
    const order = sandbox.orders.list(ws).data[0]!;
    expect(catchError(() => sandbox.orders.get(other.id, order.uuid))).toMatchObject({ status: 404, code: 'order.not_found' });
  });
});

describe('freeze and unfreeze', () => {
  it('flip the card on completion and push card.frozen / card.unfrozen', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const freeze = sandbox.cards.freeze(ws, card, { reason: 'lost phone' });
    expect(freeze).toMatchObject({ type: 'freeze', status: 'pending', held_amount: '0.00', currency: 'USD' });
    expect(sandbox.cards.get(ws, card).status).toBe('active');
    sandbox.advance(100);
    // D31: what the card allows now.
    expect(sandbox.cards.get(ws, card)).toMatchObject({ status: 'frozen', supports_freeze: false, supports_unfreeze: true, supports_balance_query: true });
    sandbox.cards.unfreeze(ws, card, null);
    sandbox.advance(100);
    expect(sandbox.cards.get(ws, card).status).toBe('active');
    const events = sandbox.events.since(1);
    expect(events.map((e) => e.event)).toEqual(['card.frozen', 'order.completed', 'card.unfrozen', 'order.completed']);
    const pan4 = sandbox.cards.get(ws, card).pan_last4;
    expect(events[0]?.data).toEqual({ card_uuid: card, workspace_id: ws, cardholder_type: 'user', pan_last4: pan4, status: 'frozen', origin: 'workspace', reason: 'lost phone', frozen_at: '2026-03-01T12:00:01.100Z' });
    expect(events[2]?.data).toEqual({ card_uuid: card, workspace_id: ws, cardholder_type: 'user', pan_last4: pan4, status: 'active', reason: null, unfrozen_at: '2026-03-01T12:00:01.200Z' });
  });

  it('rejects a reason over 500 characters', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    expect(catchError(() => sandbox.cards.freeze(ws, card, { reason: 'x'.repeat(501) }))).toMatchObject({ status: 422, fieldErrors: { reason: ['must be at most 500 characters'] } });
  });
});

describe('409 card.state_conflict matrix', () => {
  type Action = 'topup' | 'freeze' | 'unfreeze' | 'close';
  /** Brings a fresh card into the named situation. */
  const situations: Record<string, (s: Sandbox, ws: number) => string> = {
    pending_issue: (s, ws) => {
      s.cards.create(ws, issueBody());
      return newestCard(s, ws);
    },
    active: (s, ws) => issueActiveCard(s, ws),
    'active, freeze pending': (s, ws) => {
      const c = issueActiveCard(s, ws);
      s.cards.freeze(ws, c);
      return c;
    },
    'active, topup pending': (s, ws) => {
      const c = issueActiveCard(s, ws);
      s.cards.topup(ws, c, { amount: '10.00' });
      return c;
    },
    frozen: (s, ws) => {
      const c = issueActiveCard(s, ws);
      s.cards.freeze(ws, c);
      s.advance(100);
      return c;
    },
    'frozen, unfreeze pending': (s, ws) => {
      const c = issueActiveCard(s, ws);
      s.cards.freeze(ws, c);
      s.advance(100);
      s.cards.unfreeze(ws, c);
      return c;
    },
    pending_close: (s, ws) => {
      const c = issueActiveCard(s, ws);
      s.cards.close(ws, c);
      return c;
    },
    closed: (s, ws) => {
      const c = issueActiveCard(s, ws);
      s.cards.close(ws, c);
      s.advance(5000);
      return c;
    },
    issue_failed: (s, ws) => {
      s.admin.failNextOrder('next-issue', 'business4xx');
      s.cards.create(ws, issueBody());
      s.advance(100);
      return newestCard(s, ws);
    },
  };
  const expected: Record<string, Record<Action, 'ok' | 409>> = {
    pending_issue: { topup: 409, freeze: 409, unfreeze: 409, close: 409 },
    active: { topup: 'ok', freeze: 'ok', unfreeze: 409, close: 'ok' },
    'active, freeze pending': { topup: 'ok', freeze: 409, unfreeze: 409, close: 409 },
    'active, topup pending': { topup: 'ok', freeze: 'ok', unfreeze: 409, close: 409 },
    frozen: { topup: 'ok', freeze: 409, unfreeze: 'ok', close: 'ok' },
    'frozen, unfreeze pending': { topup: 'ok', freeze: 409, unfreeze: 409, close: 409 },
    pending_close: { topup: 409, freeze: 409, unfreeze: 409, close: 409 },
    closed: { topup: 409, freeze: 409, unfreeze: 409, close: 409 },
    issue_failed: { topup: 409, freeze: 409, unfreeze: 409, close: 409 },
  };
  const cases = Object.entries(expected).flatMap(([situation, byAction]) => Object.entries(byAction).map(([action, outcome]) => [situation, action as Action, outcome] as const));

  it.each(cases)('%s + %s -> %s', (situation, action, outcome) => {
    const { sandbox, ws } = setup();
    const card = situations[situation]!(sandbox, ws);
    const before = sandbox.orders.list(ws).meta.total;
    const run = () => (action === 'topup' ? sandbox.cards.topup(ws, card, { amount: '10.00' }) : sandbox.cards[action](ws, card));
    if (outcome === 'ok') {
      expect(run()).toMatchObject({ status: 'pending', related_card_uuid: card });
    } else {
      expect(catchError(run)).toMatchObject({ status: 409, code: 'card.state_conflict' });
      expect(sandbox.orders.list(ws).meta.total).toBe(before);
    }
  });
});

describe('two-stage close', () => {
  it('stops the card at once, completes the order, then refunds the balance to the wallet', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws, { initial_topup_amount: '250.00' });
    const walletBefore = usd(sandbox, ws)!;
    const order = sandbox.cards.close(ws, card, { reason: 'project over' });
    expect(order).toMatchObject({ type: 'close_card', held_amount: '0.00' });
    // Stage 1 on acceptance.
    expect(sandbox.cards.get(ws, card)).toMatchObject({ status: 'pending_close', card_balance: '250.00', supports_freeze: false });
    sandbox.advance(100);
    expect(sandbox.orders.get(ws, order.uuid).status).toBe('completed');
    expect(sandbox.cards.get(ws, card).status).toBe('pending_close');
    expect(usd(sandbox, ws)?.balance).toBe(walletBefore.balance);
    // Stage 2 after closeDelayMs (1000 ms after completion).
    sandbox.advance(999);
    expect(sandbox.cards.get(ws, card).status).toBe('pending_close');
    sandbox.advance(1);
    expect(sandbox.cards.get(ws, card)).toMatchObject({ status: 'closed', card_balance: '0.00', closed_at: '2026-03-01T12:00:02.100Z' });
    expect(walletBefore.balance).toBe('9745.00');
    expect(usd(sandbox, ws)).toMatchObject({ balance: '9995.00', available: '9995.00', held_balance: '0.00' });
    expect(movements(sandbox, ws).slice(-2)).toEqual(['card_close_refund debit card 250.00', 'card_close_refund credit wallet.available 250.00']);
    const events = sandbox.events.since(1);
    expect(events.map((e) => e.event)).toEqual(['card.close_initiated', 'order.completed', 'card.closed']);
    expect(events[0]?.data).toMatchObject({ card_uuid: card, status: 'pending_close', origin: 'workspace', reason: 'project over', close_initiated_at: '2026-03-01T12:00:01.000Z' });
    expect(events[2]?.data).toMatchObject({ card_uuid: card, status: 'closed', refund_amount: '250.00', currency: 'USD', closed_at: '2026-03-01T12:00:02.100Z' });
    expect(sandbox.db.prepare('SELECT close_refund_amount FROM cards WHERE uuid = ?').get(card)).toEqual({ close_refund_amount: '250.00' });
  });

  it('finishes on demand with admin.finishClose, and only after the close order completed', () => {
    const { sandbox, ws } = setup({ closeDelayMs: null });
    const card = issueActiveCard(sandbox, ws);
    sandbox.cards.close(ws, card);
    expect(catchError(() => sandbox.admin.finishClose(card))).toMatchObject({ status: 409, code: 'card.state_conflict' });
    sandbox.advance(24 * 3600 * 1000);
    expect(sandbox.cards.get(ws, card).status).toBe('pending_close');
    sandbox.admin.finishClose(card);
    expect(sandbox.cards.get(ws, card).status).toBe('closed');
    expect(usd(sandbox, ws)?.balance).toBe('9995.00');
    expect(catchError(() => sandbox.admin.finishClose(card))).toMatchObject({ status: 409 });
  });

  it('keeps the card pending_close when the close order fails, and takes a new close (D32)', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.admin.failNextOrder(card, 'business4xx');
    const order = sandbox.cards.close(ws, card, null, 'close-1');
    sandbox.advance(10_000);
    expect(sandbox.orders.get(ws, order.uuid)).toMatchObject({ status: 'failed', failure_reason: 'business4xx' });
    // The card never spends again without an event: it stays where card.close_initiated left it.
    expect(sandbox.cards.get(ws, card)).toMatchObject({ status: 'pending_close', card_balance: '100.00' });
    expect(sandbox.simulate.authorize(ws, card, { amount: '1.00' })).toMatchObject({ type: 'decline', decline_reason: 'card_frozen' });
    expect(catchError(() => sandbox.admin.finishClose(card))).toMatchObject({ status: 409, code: 'card.state_conflict' });
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '10.00' }))).toMatchObject({ status: 409 });
    const failed = sandbox.events.since(0).find((e) => e.event === 'order.failed');
    expect(failed?.data).toMatchObject({ order_uuid: order.uuid, type: 'close_card', card_uuid: card, failure_reason: 'business4xx' });
    // The same key replays the failed order; a new key closes the card, with no second close_initiated.
    expect(sandbox.cards.close(ws, card, null, 'close-1').uuid).toBe(order.uuid);
    const retry = sandbox.cards.close(ws, card, null, 'close-2');
    expect(retry.uuid).not.toBe(order.uuid);
    expect(catchError(() => sandbox.cards.close(ws, card, null, 'close-3'))).toMatchObject({ status: 409 });
    sandbox.advance(10_000);
    expect(sandbox.cards.get(ws, card)).toMatchObject({ status: 'closed', card_balance: '0.00' });
    expect(sandbox.events.since(0).filter((e) => e.event === 'card.close_initiated')).toHaveLength(1);
  });
});

describe('freezes by platform risk or the issuer (D27)', () => {
  it.each(['platform_risk', 'issuer'] as const)('a %s freeze is not lifted by a workspace unfreeze', (origin) => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.risk.freeze(ws, card, { origin, reason: 'fraud pattern' });
    const error = catchError(() => sandbox.cards.unfreeze(ws, card));
    expect(error).toMatchObject({ status: 409, code: 'card.state_conflict' });
    expect(error.message).toContain(origin);
    expect(sandbox.cards.get(ws, card).status).toBe('frozen');
    expect(sandbox.orders.list(ws, { type: 'unfreeze' }).meta.total).toBe(0);
  });

  it('a workspace freeze is still lifted by the workspace, and a risk freeze during a freeze order keeps its origin', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.cards.freeze(ws, card);
    sandbox.advance(100);
    sandbox.cards.unfreeze(ws, card);
    sandbox.advance(100);
    expect(sandbox.cards.get(ws, card).status).toBe('active');
    sandbox.cards.freeze(ws, card);
    sandbox.risk.freeze(ws, card, { origin: 'platform_risk' });
    sandbox.advance(100);
    expect(sandbox.cards.get(ws, card).status).toBe('frozen');
    expect(catchError(() => sandbox.cards.unfreeze(ws, card))).toMatchObject({ status: 409 });
  });
});

describe('capability flags (D31)', () => {
  it('follow the status within what the product allows', () => {
    const { sandbox, ws } = setup({ closeDelayMs: null });
    const card = issueActiveCard(sandbox, ws);
    const flags = () => {
      const c = sandbox.cards.get(ws, card);
      return [c.status, c.supports_freeze, c.supports_unfreeze, c.supports_balance_query];
    };
    expect(flags()).toEqual(['active', true, false, true]);
    sandbox.cards.freeze(ws, card);
    sandbox.advance(100);
    expect(flags()).toEqual(['frozen', false, true, true]);
    sandbox.cards.close(ws, card);
    expect(flags()).toEqual(['pending_close', false, false, true]);
    sandbox.advance(100);
    sandbox.admin.finishClose(card);
    expect(flags()).toEqual(['closed', false, false, false]);
  });

  it('a product without the capability refuses the action with 409', () => {
    const { sandbox, ws } = setup();
    sandbox.db.prepare('UPDATE card_products SET supports_freeze = 0 WHERE id = 1').run();
    const card = issueActiveCard(sandbox, ws);
    expect(sandbox.cards.get(ws, card).supports_freeze).toBe(false);
    expect(catchError(() => sandbox.cards.freeze(ws, card))).toMatchObject({ status: 409, code: 'card.state_conflict' });
  });
});

describe('card read', () => {
  it('answers the stored row, field by field, for a card with a hold, an address and a freeze', () => {
    const { sandbox, ws } = setup();
    const address = { line1: '5 Main St', line2: null, city: 'Austin', state: 'TX', postal_code: '73301', country: 'US' };
    const uuid = issueActiveCard(sandbox, ws, { card_product_id: 2, initial_topup_amount: '50.00', billing_address: address });
    // An open authorization: a hold on the card, so that available_balance differs from card_balance.
    sandbox.simulate.authorize(ws, uuid, { amount: '12.34' });
    sandbox.cards.freeze(ws, uuid, { reason: 'read test' });
    sandbox.advance(1000);
    // The oracle: the same card read back as objects keyed by column, with no shared code.
    const row = sandbox.db.prepare<[string], Record<string, unknown>>('SELECT * FROM cards WHERE uuid = ?').get(uuid)!;
    const product = sandbox.db.prepare<[unknown], Record<string, number>>('SELECT supports_freeze, supports_unfreeze, supports_balance_query FROM card_products WHERE id = ?').get(row.card_product_id)!;
    const account = sandbox.db.prepare<[string], { balance: string }>(`SELECT balance FROM accounts WHERE code = 'card' AND card_uuid = ?`).get(uuid);
    const balance = account?.balance ?? '0.00';
    const detail = sandbox.cards.get(ws, uuid);
    expect(detail).toStrictEqual({
      uuid,
      status: row.status,
      cardholder_type: row.cardholder_type,
      cardholder_first_name: row.cardholder_first_name,
      cardholder_last_name: row.cardholder_last_name,
      masked_pan: `${String(row.pan_bin)}******${String(row.pan_last4)}`,
      pan_last4: row.pan_last4,
      pan_bin: row.pan_bin,
      currency: row.currency,
      card_balance: balance,
      card_product_id: row.card_product_id,
      issued_at: row.issued_at,
      last_active_txn_at: row.last_active_txn_at,
      created_at: row.created_at,
      workspace_id: ws,
      held_amount: row.held_amount,
      available_balance: fmt(money(balance).minus(String(row.held_amount))),
      lifetime_topup_amount: row.lifetime_topup_amount,
      lifetime_spend_amount: row.lifetime_spend_amount,
      lifetime_refund_amount: row.lifetime_refund_amount,
      avs_billing_address: address,
      // D31: the product's capability, while the card's state allows the action (frozen by the workspace here).
      supports_freeze: product.supports_freeze === 1 && row.status === 'active',
      supports_unfreeze: product.supports_unfreeze === 1 && row.status === 'frozen' && row.frozen_origin === 'workspace',
      supports_balance_query: product.supports_balance_query === 1 && ['active', 'frozen', 'pending_close'].includes(String(row.status)),
      appeal_terminated: row.appeal_terminated === 1,
      closed_at: row.closed_at,
      updated_at: row.updated_at,
    });
    expect(detail).toMatchObject({ status: 'frozen', card_balance: '50.00', held_amount: '12.34', available_balance: '37.66' });
  });

  it('hands out copies: changing a returned detail changes no later read', () => {
    const { sandbox, ws } = setup();
    const address = { line1: '5 Main St', line2: null, city: 'Austin', state: 'TX', postal_code: '73301', country: 'US' };
    const uuid = issueActiveCard(sandbox, ws, { card_product_id: 2, initial_topup_amount: '50.00', billing_address: address });
    const first = sandbox.cards.get(ws, uuid);
    first.status = 'closed';
    first.avs_billing_address!.city = 'Elsewhere';
    expect(sandbox.cards.get(ws, uuid)).toMatchObject({ status: 'active', avs_billing_address: address });
  });
});

describe('order and card rows read as arrays', () => {
  /** The columns a table has, from SQLite itself (so a column added by a later migration shows up here). */
  const columnsOf = (sandbox: Sandbox, table: string): string[] => tableColumns(sandbox.db, table);
  /** The bare minimum of a context these two loaders use. */
  const ctxOf = (sandbox: Sandbox) => ({ db: sandbox.db }) as unknown as Context;

  it('hold every column of the order, as an object-mode read gives it', () => {
    const { sandbox, ws } = setup();
    const uuid = issueActiveCard(sandbox, ws);
    const topup = sandbox.cards.topup(ws, uuid, { amount: '20.00' }, 'raw-topup');
    sandbox.admin.failNextOrder(uuid, 'business4xx');
    const failing = sandbox.cards.freeze(ws, uuid, { reason: 'raw read' }, 'raw-freeze');
    sandbox.advance(200);
    for (const orderUuid of [topup.uuid, failing.uuid]) {
      const viaObject = sandbox.db.prepare('SELECT * FROM orders WHERE uuid = ?').get(orderUuid) as Record<string, unknown>;
      const viaRaw = loadOrder(ctxOf(sandbox), orderUuid)!;
      expect(Object.keys(viaRaw).sort()).toEqual(columnsOf(sandbox, 'orders').sort());
      expect(viaRaw).toEqual(viaObject);
    }
    expect(loadOrder(ctxOf(sandbox), '00000000-0000-7000-8000-000000000000')).toBeUndefined();
  });

  it('hold every column of the card but its free-text notes, as an object-mode read gives them', () => {
    const { sandbox, ws } = setup();
    const uuid = issueActiveCard(sandbox, ws);
    sandbox.risk.freeze(ws, uuid, { origin: 'platform_risk', reason: 'raw read' });
    const viaObject = sandbox.db.prepare('SELECT * FROM cards WHERE uuid = ?').get(uuid) as Record<string, unknown>;
    const viaRaw = loadCard(ctxOf(sandbox), uuid)!;
    // purpose and notes are the issuer's free text: stored, never read back by the engine.
    expect(Object.keys(viaRaw).sort()).toEqual(columnsOf(sandbox, 'cards').filter((c) => c !== 'purpose' && c !== 'notes').sort());
    const { purpose: _purpose, notes: _notes, ...engineColumns } = viaObject;
    expect(viaRaw).toEqual(engineColumns);
    expect(viaRaw.frozen_origin).toBe('platform_risk');
  });
});
