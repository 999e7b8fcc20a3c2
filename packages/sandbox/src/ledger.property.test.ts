import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SandboxError } from './errors.js';
import { Money } from './money.js';
import type { Sandbox } from './sandbox.js';
import { issueBody, newestCard, setup } from './test-support.js';
import { LEDGER_REASON_CODES, ORDER_FAILURE_REASONS } from './types.js';

/** Amounts in cents rendered as 2-decimal strings, biased to the interesting low range. */
const amount = fc
  .oneof({ arbitrary: fc.integer({ min: 500, max: 50_000 }), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: 1_000 }), weight: 1 }, { arbitrary: fc.integer({ min: 0, max: 2_000_000 }), weight: 1 })
  .map((cents) => (cents / 100).toFixed(2));

/** Card spend: small against the usual card balances, zero (a probe) now and then. */
const spend = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 6_000 }), weight: 9 }, { arbitrary: fc.constant(0), weight: 1 }).map((cents) => (cents / 100).toFixed(2));

/** Mostly no key, sometimes one of a few shared keys, so that replays and 409 reuse both happen. */
const key = fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom('k1', 'k2', 'k3'), weight: 1 });

type Op =
  | { op: 'issue'; product: number; amount: string; key: string | undefined }
  | { op: 'topup'; card: number; amount: string }
  | { op: 'freeze' | 'unfreeze' | 'close' | 'finishClose'; card: number }
  | { op: 'deposit'; amount: string; fee: string; currency: 'USD' | 'EUR' }
  | { op: 'failNext'; card: number | 'next-issue'; reason: (typeof ORDER_FAILURE_REASONS)[number]; attempts: number | undefined }
  | { op: 'resolveOrder'; action: 'retry' | 'refund_close' }
  | { op: 'withdraw'; amount: string; fee: string }
  | { op: 'settleWithdrawal'; outcome: 'completed' | 'canceled' | 'rejected' }
  | { op: 'subscribe'; price: string }
  | { op: 'adjust'; direction: 'credit' | 'debit'; amount: string }
  | { op: 'ledgerReversal'; group: number }
  | { op: 'walletFreeze'; frozen: boolean }
  | { op: 'unmatched'; card: number; late: boolean; type: 'capture' | 'refund' | 'chargeback_opened'; amount: string }
  | { op: 'advance'; ms: number }
  | { op: 'authorize'; card: number; amount: string; fx: boolean }
  | { op: 'capture' | 'refund' | 'chargeback'; purchase: number; partial: boolean }
  | { op: 'reverse'; purchase: number }
  | { op: 'resolve'; purchase: number; outcome: 'cardholder' | 'merchant' }
  | { op: 'decline'; card: number; amount: string; penaltyFee: string | undefined }
  | { op: 'issueFee'; product: number; mode: 'on_top' | 'deducted' }
  | { op: 'penalty'; card: number; amount: string }
  | { op: 'riskFreeze'; card: number; origin: 'platform_risk' | 'issuer' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('issue' as const), product: fc.constantFrom(1, 1, 2, 3, 4), amount, key }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('topup' as const), card: fc.nat(5), amount }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constantFrom('freeze' as const, 'unfreeze' as const, 'close' as const, 'finishClose' as const), card: fc.nat(5) }), weight: 4 },
  // Closing more often, so that late rows after close (D49) find closed cards.
  { arbitrary: fc.record({ op: fc.constant('close' as const), card: fc.nat(5) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('deposit' as const), amount, fee: fc.constantFrom('0.00', '0.50', '1.99'), currency: fc.constantFrom('USD' as const, 'EUR' as const) }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('failNext' as const), card: fc.oneof(fc.nat(5), fc.constant('next-issue' as const)), reason: fc.constantFrom(...ORDER_FAILURE_REASONS), attempts: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }) }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant('resolveOrder' as const), action: fc.constantFrom('retry' as const, 'refund_close' as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('withdraw' as const), amount: spend, fee: fc.constantFrom('0.00', '1.50') }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('settleWithdrawal' as const), outcome: fc.constantFrom('completed' as const, 'canceled' as const, 'rejected' as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('subscribe' as const), price: fc.constantFrom('49.00', '20000.00') }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('adjust' as const), direction: fc.constantFrom('credit' as const, 'debit' as const), amount: spend }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('ledgerReversal' as const), group: fc.nat(10) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('walletFreeze' as const), frozen: fc.boolean() }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('unmatched' as const), card: fc.nat(5), late: fc.boolean(), type: fc.constantFrom('capture' as const, 'refund' as const, 'chargeback_opened' as const), amount: spend }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('unmatched' as const), card: fc.nat(5), late: fc.constant(true), type: fc.constant('capture' as const), amount: spend }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(0, 10, 50, 100, 1000, 5000) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('authorize' as const), card: fc.nat(5), amount: spend, fx: fc.boolean() }), weight: 5 },
  { arbitrary: fc.record({ op: fc.constantFrom('capture' as const, 'capture' as const, 'refund' as const, 'chargeback' as const), purchase: fc.nat(8), partial: fc.boolean() }), weight: 6 },
  { arbitrary: fc.record({ op: fc.constant('reverse' as const), purchase: fc.nat(8) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('resolve' as const), purchase: fc.nat(8), outcome: fc.constantFrom('cardholder' as const, 'merchant' as const) }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('decline' as const), card: fc.nat(5), amount, penaltyFee: fc.option(fc.constantFrom('0.50', '25.00', '20000.00'), { nil: undefined }) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('issueFee' as const), product: fc.constantFrom(1, 2, 3, 4), mode: fc.constantFrom('on_top' as const, 'deducted' as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('penalty' as const), card: fc.nat(5), amount: spend }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('riskFreeze' as const), card: fc.nat(5), origin: fc.constantFrom('platform_risk' as const, 'issuer' as const) }), weight: 1 },
);

/** Half of a decimal string, rounded down to cents (a partial amount that is always valid when the whole is). */
const half = (value: string): string => new Money(value).dividedBy(2).toDecimalPlaces(2, Money.ROUND_DOWN).toFixed(2);

function apply(sandbox: Sandbox, ws: number, cards: string[], o: Op, purchases: string[] = []): void {
  const card = (i: number): string => cards[i % Math.max(1, cards.length)] ?? '00000000-0000-4000-8000-000000000000';
  const purchase = (i: number): string => purchases[i % Math.max(1, purchases.length)] ?? 'sbx_txn_none';
  try {
    switch (o.op) {
      case 'issue': {
        sandbox.cards.create(ws, issueBody({ card_product_id: o.product, initial_topup_amount: o.amount }), o.key);
        // D29: the 202 names the new card, the newest listed one.
        const uuid = newestCard(sandbox, ws);
        if (!cards.includes(uuid)) cards.push(uuid);
        break;
      }
      case 'topup':
        sandbox.cards.topup(ws, card(o.card), { amount: o.amount });
        break;
      case 'freeze':
      case 'unfreeze':
      case 'close':
        sandbox.cards[o.op](ws, card(o.card));
        break;
      case 'finishClose':
        sandbox.admin.finishClose(card(o.card));
        break;
      case 'deposit':
        sandbox.admin.deposit(ws, { amount: o.amount, fee: o.fee, currency: o.currency });
        break;
      case 'failNext':
        sandbox.admin.failNextOrder(o.card === 'next-issue' ? 'next-issue' : card(o.card), o.reason, o.attempts);
        break;
      case 'resolveOrder': {
        const waiting = sandbox.orders.list(ws, { status: 'awaiting_platform' }).data.at(-1);
        if (waiting !== undefined) sandbox.admin.resolveOrder(ws, waiting.uuid, o.action);
        break;
      }
      case 'withdraw':
        sandbox.admin.withdraw(ws, { amount: o.amount === '0.00' ? '1.00' : o.amount, fee: o.fee });
        break;
      case 'settleWithdrawal': {
        const held = sandbox.db.prepare(`SELECT uuid FROM withdrawals WHERE workspace_id = ? AND status = 'held' ORDER BY id LIMIT 1`).get(ws) as { uuid: string } | undefined;
        if (held !== undefined) sandbox.admin.settleWithdrawal(ws, held.uuid, o.outcome);
        break;
      }
      case 'subscribe':
        sandbox.admin.subscribe(ws, { product_code: 'ads_pro', price: o.price });
        break;
      case 'adjust':
        sandbox.admin.adjust(ws, { direction: o.direction, amount: o.amount === '0.00' ? '0.01' : o.amount });
        break;
      case 'ledgerReversal': {
        // Groups whose reversal the other invariants allow: money in and out of the wallet only.
        const groups = sandbox.db
          .prepare(`SELECT DISTINCT txn_group_id FROM ledger_entries WHERE workspace_id = ? AND reason_code IN ('card_reconcile_adjustment', 'usdt_deposit', 'subscription_charge') ORDER BY id`)
          .all(ws) as { txn_group_id: string }[];
        const group = groups[o.group % Math.max(1, groups.length)];
        if (group !== undefined) sandbox.admin.reverse(ws, group.txn_group_id);
        break;
      }
      case 'walletFreeze':
        sandbox.admin.setWalletFrozen(ws, { frozen: o.frozen, reason: 'property test' });
        break;
      case 'unmatched': {
        // Late rows on a closed card when asked and there is one (card_post_close_clawback, card_post_close_refund).
        const findClosed = () => cards.find((uuid) => sandbox.cards.get(ws, uuid).status === 'closed');
        if (o.late && findClosed() === undefined) {
          // No closed card yet: close this one through both stages first (each step may be refused, as in any run).
          sandbox.cards.close(ws, card(o.card));
          sandbox.advance(1_000);
        }
        const closed = o.late ? findClosed() : undefined;
        purchases.push(sandbox.simulate.unmatched(ws, closed ?? card(o.card), { type: o.type, amount: o.amount === '0.00' ? '0.01' : o.amount }).supplier_txn_id);
        break;
      }
      case 'advance':
        sandbox.advance(o.ms);
        break;
      case 'authorize': {
        const fx = o.fx && o.amount !== '0.00' ? { merchant_currency: 'EUR', merchant_amount: half(o.amount) === '0.00' ? o.amount : half(o.amount) } : {};
        const row = sandbox.simulate.authorize(ws, card(o.card), { amount: o.amount, ...fx });
        if (row.type === 'authorization') purchases.push(row.supplier_txn_id);
        break;
      }
      case 'capture':
      case 'refund':
      case 'chargeback': {
        const rows = sandbox.db.prepare('SELECT amount FROM card_transactions WHERE supplier_txn_id = ? ORDER BY id LIMIT 1').get(purchase(o.purchase)) as { amount: string } | undefined;
        const partial = o.partial && rows !== undefined && half(rows.amount) !== '0.00' ? { amount: half(rows.amount) } : undefined;
        sandbox.simulate[o.op](ws, purchase(o.purchase), partial);
        break;
      }
      case 'reverse':
        sandbox.simulate.reverse(ws, purchase(o.purchase));
        break;
      case 'resolve': {
        // An open dispute when there is one: picking among all purchases would rarely find it.
        const open = sandbox.db.prepare(`SELECT supplier_txn_id FROM card_transactions WHERE workspace_id = ? AND type = 'chargeback_opened' AND status = 'pending' ORDER BY id`).all(ws) as { supplier_txn_id: string }[];
        sandbox.simulate.resolveChargeback(ws, open[o.purchase % Math.max(1, open.length)]?.supplier_txn_id ?? purchase(o.purchase), { outcome: o.outcome });
        break;
      }
      case 'decline':
        sandbox.simulate.decline(ws, card(o.card), { merchant_amount: o.amount, reason: 'other', ...(o.penaltyFee !== undefined ? { penalty_fee: o.penaltyFee } : {}) });
        break;
      case 'issueFee':
        sandbox.admin.setIssueFeeMode(o.product, o.mode);
        break;
      case 'penalty':
        sandbox.risk.penalty(ws, card(o.card), { amount: o.amount });
        break;
      case 'riskFreeze':
        sandbox.risk.freeze(ws, card(o.card), { origin: o.origin });
        break;
    }
  } catch (error) {
    // Refusals (4xx) are part of the game; anything else is a bug.
    if (!(error instanceof SandboxError) || error.status >= 500) throw error;
  }
}

/** Recomputes every balance from the raw ledger rows and compares with what the services report. */
function checkInvariants(sandbox: Sandbox, ws: number): void {
  const rows = sandbox.db.prepare('SELECT txn_group_id, reason_code, direction, amount, currency, account_code, account_card_uuid FROM ledger_entries WHERE workspace_id = ?').all(ws) as {
    txn_group_id: string;
    reason_code: string;
    direction: 'debit' | 'credit';
    amount: string;
    currency: string;
    account_code: string;
    account_card_uuid: string | null;
  }[];
  const groups = new Map<string, Money>();
  const accounts = new Map<string, Money>();
  const reasons = new Map(rows.map((r) => [r.txn_group_id, r.reason_code]));
  for (const r of rows) {
    expect(r.amount).toMatch(/^[0-9]+\.[0-9]{2}$/);
    expect(new Money(r.amount).isPositive()).toBe(true);
    const signed = r.direction === 'credit' ? new Money(r.amount) : new Money(r.amount).negated();
    groups.set(r.txn_group_id, (groups.get(r.txn_group_id) ?? new Money(0)).plus(signed));
    const key = `${r.currency}|${r.account_code}|${r.account_card_uuid ?? ''}`;
    accounts.set(key, (accounts.get(key) ?? new Money(0)).plus(signed));
  }
  for (const [group, net] of groups) expect(net.toFixed(2), `group ${group} balances`).toBe('0.00');
  const get = (key: string): string => (accounts.get(key) ?? new Money(0)).toFixed(2);
  for (const w of sandbox.wallet.get(ws).wallets) {
    const available = get(`${w.currency}|wallet.available|`);
    const held = get(`${w.currency}|wallet.held|`);
    expect(w.held_balance).toBe(held);
    expect(w.available).toBe(available);
    expect(w.balance).toBe(new Money(available).plus(held).toFixed(2));
    // Only a risk_penalty fee (contract 2.11), a late charge after close and the admin's adjustments and reversals
    // may take the wallet below zero; nothing else ever does.
    const mayGoNegative = new Set(['risk_penalty', 'card_post_close_clawback', 'card_reconcile_adjustment', 'reversal']);
    const penalised = rows.some((r) => r.currency === w.currency && r.account_code === 'wallet.available' && mayGoNegative.has(reasons.get(r.txn_group_id)!));
    if (!penalised) expect(new Money(w.available).isNegative()).toBe(false);
  }
  for (const c of sandbox.cards.list(ws, { per_page: 100 }).data) {
    expect(c.card_balance).toBe(get(`${c.currency}|card|${c.uuid}`));
    // Holds: never negative, always covered by the balance, and exactly the open real-money authorizations.
    const detail = sandbox.cards.get(ws, c.uuid);
    expect(new Money(detail.held_amount).isNegative()).toBe(false);
    expect(new Money(detail.available_balance).isNegative()).toBe(false);
    const open = sandbox.db
      .prepare(
        `SELECT a.amount FROM card_transactions a WHERE a.card_uuid = ? AND a.type = 'authorization'
           AND NOT EXISTS (SELECT 1 FROM card_transactions b WHERE b.supplier_txn_id = a.supplier_txn_id AND b.type IN ('capture', 'reversal'))`,
      )
      .all(c.uuid) as { amount: string }[];
    expect(detail.held_amount).toBe(open.reduce((sum, r) => sum.plus(r.amount), new Money(0)).toFixed(2));
  }
  // What the networks got = captures - refunds - chargebacks won, from the rows alone.
  const txns = sandbox.db.prepare('SELECT type, amount, currency, resolution FROM card_transactions WHERE workspace_id = ?').all(ws) as { type: string; amount: string; currency: string; resolution: string | null }[];
  const settled = new Map<string, Money>();
  for (const r of txns) {
    const sign = r.type === 'capture' ? 1 : r.type === 'refund' || (r.type === 'chargeback_resolved' && r.resolution === 'cardholder') ? -1 : 0;
    settled.set(r.currency, (settled.get(r.currency) ?? new Money(0)).plus(new Money(r.amount).times(sign)));
  }
  for (const [currency, total] of settled) expect(get(`${currency}|platform.settlement|`)).toBe(total.toFixed(2));
  // One event per new row, none for chargeback_resolved (6.4 has no such event).
  const pushed = sandbox.events.since(0, { workspaceId: ws, limit: 100_000 }).filter((e) => e.event.startsWith('card.transaction.')).length;
  expect(pushed).toBe(txns.filter((r) => r.type !== 'chargeback_resolved').length);
  expect(sandbox.admin.audit()).toEqual([]);
}

describe('double-entry invariants under random operation sequences, simulated card transactions included', () => {
  // Up to 60 operations per run, invariants checked after each: a few seconds, hence the own timeout.
  it('balances every group and every wallet after any sequence, and releases every hold in the end', () => {
    // The reason codes the runs booked: the sequences must reach every reason of the contract (2.11), so that the
    // invariants were checked on each.
    const booked = new Set<string>();
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 60, size: 'medium' }), (ops) => {
        const { sandbox, ws } = setup({ orderLatencyMs: 50, closeDelayMs: 500 });
        try {
          const cards: string[] = [];
          const purchases: string[] = [];
          for (const o of ops) {
            apply(sandbox, ws, cards, o, purchases);
            checkInvariants(sandbox, ws);
          }
          // The admin ends what waits for it (orders awaiting the platform, held withdrawals), and the retries run.
          sandbox.admin.setWalletFrozen(ws, { frozen: false });
          for (const waiting of sandbox.orders.list(ws, { status: 'awaiting_platform', per_page: 100 }).data) sandbox.admin.resolveOrder(ws, waiting.uuid, 'refund_close');
          for (const w of sandbox.db.prepare(`SELECT uuid FROM withdrawals WHERE workspace_id = ? AND status = 'held'`).all(ws) as { uuid: string }[]) sandbox.admin.settleWithdrawal(ws, w.uuid, 'completed');
          sandbox.advance(600_000);
          for (const waiting of sandbox.orders.list(ws, { status: 'awaiting_platform', per_page: 100 }).data) sandbox.admin.resolveOrder(ws, waiting.uuid, 'refund_close');
          checkInvariants(sandbox, ws);
          // Once everything has run, nothing is left on hold and no order is still open.
          for (const w of sandbox.wallet.get(ws).wallets) expect(w.held_balance).toBe('0.00');
          expect(['pending', 'processing', 'awaiting_platform'].map((status) => sandbox.orders.list(ws, { status }).meta.total)).toEqual([0, 0, 0]);
          // Closed cards hold no money.
          for (const c of sandbox.cards.list(ws, { status: 'closed,issue_failed', per_page: 100 }).data) expect(c.card_balance).toBe('0.00');
          for (const r of sandbox.db.prepare('SELECT DISTINCT reason_code FROM ledger_entries WHERE workspace_id = ?').all(ws) as { reason_code: string }[]) booked.add(r.reason_code);
        } finally {
          sandbox.close();
        }
      }),
      { numRuns: 80 },
    );
    expect(LEDGER_REASON_CODES.filter((reason) => !booked.has(reason))).toEqual([]);
  });
});
