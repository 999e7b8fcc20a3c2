/**
 * Money the platform's back office moves on a workspace's wallet, outside the five card writes: withdrawals
 * (D45), subscriptions (D46), reconciliation adjustments and reversals (D50), and wallet freezes (D47). None of
 * them has a public endpoint (the contract describes no API for them); the sandbox control API drives them, and
 * their ledger rows, wallet fields and product annotations are read back through the public API.
 */
import { timeOrderedUuid } from './ids.js';
import { subscriptionsOf } from './catalogue.js';
import type { Context } from './context.js';
import { FieldErrors, SandboxError } from './errors.js';
import { accountBalance, openWallet, post, requireWorkspace, type AccountCode, type Leg } from './ledger.js';
import { fmt, money, Money, parseRequestAmount } from './money.js';
import { loadCard } from './orders.js';

/** A withdrawal as the control API answers it. */
export interface Withdrawal {
  uuid: string;
  currency: string;
  amount: string;
  fee: string;
  status: WithdrawalStatus;
  created_at: string;
  updated_at: string;
}

export type WithdrawalStatus = 'held' | 'completed' | 'canceled' | 'rejected';

/** The end of a held withdrawal: paid out, cancelled by the owner, rejected by an admin. */
export type WithdrawalOutcome = Exclude<WithdrawalStatus, 'held'>;

/** A subscription the workspace took out. */
export interface Subscription {
  product_code: string;
  currency: string;
  price: string;
}

/** Input of a reconciliation adjustment (D50). */
export interface AdjustmentInput {
  /** `credit`: money into the workspace (its wallet, or the card); `debit`: out of it. */
  direction: 'credit' | 'debit';
  amount: string;
  currency?: string;
  /** Adjust this card's balance instead of the wallet. */
  card_uuid?: string;
  description?: string;
}

/** The freeze state of one wallet currency (contract 2.8 `frozen_at`, `frozen_reason`). */
export interface WalletFreeze {
  currency: string;
  frozen_at: string | null;
  frozen_reason: string | null;
}

export interface WalletAdmin {
  /** `withdrawal_held`: amount plus fee from the wallet's available balance to held. 402 when it cannot cover them or the wallet is frozen. */
  withdraw(workspaceId: number, input: { amount: string; fee?: string; currency?: string }): Withdrawal;
  /** Ends a held withdrawal: `completed` (`withdrawal_completed`), `canceled` or `rejected` (back to the balance). 409 once ended. */
  settleWithdrawal(workspaceId: number, uuid: string, outcome: WithdrawalOutcome): Withdrawal;
  /** Takes out a subscription: `subscription_charge` for `price`, and products requiring the code become available. 402 when short. */
  subscribe(workspaceId: number, input: { product_code: string; price?: string; currency?: string }): Subscription;
  /** `card_reconcile_adjustment` between the platform's reconciliation account and the wallet (or a card). */
  adjust(workspaceId: number, input: AdjustmentInput): string;
  /** `reversal`: the mirror of every row of one ledger group, once. */
  reverse(workspaceId: number, txnGroupId: string, description?: string): string;
  /** Freezes (with a reason) or unfreezes one wallet currency. */
  setWalletFrozen(workspaceId: number, input: { currency?: string; frozen: boolean; reason?: string | null }): WalletFreeze;
}

/** D47: whether the workspace's wallet in `currency` is frozen; refusals name the reason. Must run inside a transaction. */
export function walletFrozen(ctx: Context, workspaceId: number, currency: string): { frozen_at: string; frozen_reason: string | null } | undefined {
  return ctx.db.prepare<[number, string], { frozen_at: string; frozen_reason: string | null }>('SELECT frozen_at, frozen_reason FROM wallet_freezes WHERE workspace_id = ? AND currency = ?').get(workspaceId, currency);
}

/** D47: 402 `wallet.insufficient_balance` when the wallet is frozen: none of its balance is available to move out. */
export function refuseFrozenWallet(ctx: Context, workspaceId: number, currency: string, action: string): void {
  const frozen = walletFrozen(ctx, workspaceId, currency);
  if (frozen !== undefined) {
    throw new SandboxError(402, 'wallet.insufficient_balance', `The ${currency} wallet is frozen since ${frozen.frozen_at}${frozen.frozen_reason === null ? '' : ` (${frozen.frozen_reason})`}: nothing is available to ${action}.`);
  }
}

const CURRENCY = /^[A-Z]{3,5}$/;
const CODE = /^[a-z][a-z0-9_]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Price of a subscription when none is given. */
const DEFAULT_SUBSCRIPTION_PRICE = '49.00';

function positive(errors: FieldErrors, field: string, value: unknown, required: boolean): Money | undefined {
  if (value === undefined && !required) return undefined;
  const parsed = parseRequestAmount(value);
  if (!parsed.ok) errors.add(field, value === undefined ? 'is required' : parsed.message);
  else if (required && parsed.value.isZero()) errors.add(field, 'must be greater than 0');
  return parsed.ok ? parsed.value : undefined;
}

function currencyOf(errors: FieldErrors, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !CURRENCY.test(value)) errors.add('currency', 'must be a currency code such as USD');
  return value as string;
}

interface WithdrawalRow extends Withdrawal {
  id: number;
  workspace_id: number;
}

const toWithdrawal = ({ id: _id, workspace_id: _ws, ...w }: WithdrawalRow): Withdrawal => w;

export function createWalletAdmin(ctx: Context): WalletAdmin {
  /** 402 unless the wallet's available balance covers `amount` (the checks of a hold, D25). */
  const requireAvailable = (workspaceId: number, currency: string, amount: Money, action: string): void => {
    refuseFrozenWallet(ctx, workspaceId, currency, action);
    const available = accountBalance(ctx, workspaceId, currency, 'wallet.available');
    if (available.lessThan(amount)) throw new SandboxError(402, 'wallet.insufficient_balance', `The wallet's available ${currency} balance (${fmt(available)}) cannot cover ${fmt(amount)} ${currency}.`);
  };

  return {
    withdraw(workspaceId, input) {
      const errors = new FieldErrors();
      const raw = input ?? {};
      const amount = positive(errors, 'amount', raw.amount, true);
      const fee = positive(errors, 'fee', raw.fee, false) ?? new Money(0);
      const given = currencyOf(errors, raw.currency);
      errors.throwIfAny();
      return ctx.write(() => {
        const currency = given ?? requireWorkspace(ctx, workspaceId).base_currency;
        const total = amount!.plus(fee);
        requireAvailable(workspaceId, currency, total, 'withdraw');
        const uuid = timeOrderedUuid();
        const now = ctx.nowIso();
        post(ctx, {
          workspaceId,
          currency,
          reason: 'withdrawal_held',
          referenceType: 'Withdrawal',
          referenceUuid: uuid,
          description: `Withdrawal of ${fmt(amount!)} ${currency} requested (fee ${fmt(fee)})`,
          legs: [
            { account: 'wallet.available', direction: 'debit', amount: total },
            { account: 'wallet.held', direction: 'credit', amount: total },
          ],
        });
        ctx.db
          .prepare(`INSERT INTO withdrawals (uuid, workspace_id, currency, amount, fee, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'held', ?, ?)`)
          .run(uuid, workspaceId, currency, fmt(amount!), fmt(fee), now, now);
        return { uuid, currency, amount: fmt(amount!), fee: fmt(fee), status: 'held', created_at: now, updated_at: now };
      });
    },

    settleWithdrawal(workspaceId, uuid, outcome) {
      if (!['completed', 'canceled', 'rejected'].includes(outcome)) throw new SandboxError(422, 'validation.failed', 'The status is completed, canceled or rejected.', { status: ['must be completed, canceled or rejected'] });
      return ctx.write(() => {
        const row = ctx.db.prepare<[string, number], WithdrawalRow>('SELECT * FROM withdrawals WHERE uuid = ? AND workspace_id = ?').get(String(uuid).toLowerCase(), workspaceId);
        if (row === undefined) throw new SandboxError(404, 'api.not_found', `No withdrawal ${String(uuid)} in this workspace.`);
        if (row.status !== 'held') throw new SandboxError(409, 'card.state_conflict', `The withdrawal is already ${row.status}.`);
        const amount = money(row.amount);
        const fee = money(row.fee);
        const total = amount.plus(fee);
        const ref = { workspaceId, currency: row.currency, referenceType: 'Withdrawal', referenceUuid: row.uuid };
        if (outcome === 'completed') {
          // "held to pool plus revenue" (2.11): the amount leaves for the payout pool, the fee is the platform's.
          post(ctx, {
            ...ref,
            reason: 'withdrawal_completed',
            description: `Withdrawal of ${row.amount} ${row.currency} paid out`,
            legs: [
              { account: 'wallet.held', direction: 'debit', amount: total },
              { account: 'platform.payout_pool', direction: 'credit', amount },
              { account: 'platform.revenue', direction: 'credit', amount: fee },
            ],
          });
        } else {
          post(ctx, {
            ...ref,
            reason: outcome === 'canceled' ? 'withdrawal_canceled' : 'withdrawal_rejected',
            description: outcome === 'canceled' ? 'Withdrawal cancelled by the owner' : 'Withdrawal rejected by an admin',
            legs: [
              { account: 'wallet.held', direction: 'debit', amount: total },
              { account: 'wallet.available', direction: 'credit', amount: total },
            ],
          });
        }
        const now = ctx.nowIso();
        ctx.db.prepare('UPDATE withdrawals SET status = ?, updated_at = ? WHERE id = ?').run(outcome, now, row.id);
        return toWithdrawal({ ...row, status: outcome, updated_at: now });
      });
    },

    subscribe(workspaceId, input) {
      const errors = new FieldErrors();
      const raw = input ?? {};
      if (typeof raw.product_code !== 'string' || !CODE.test(raw.product_code)) errors.add('product_code', 'must be a subscription product code such as ads_pro');
      const price = raw.price === undefined ? money(DEFAULT_SUBSCRIPTION_PRICE) : positive(errors, 'price', raw.price, false);
      const given = currencyOf(errors, raw.currency);
      errors.throwIfAny();
      return ctx.write(() => {
        const currency = given ?? requireWorkspace(ctx, workspaceId).base_currency;
        if (subscriptionsOf(ctx, workspaceId).has(raw.product_code)) throw new SandboxError(409, 'card.state_conflict', `The workspace already subscribes to ${raw.product_code}.`);
        requireAvailable(workspaceId, currency, price!, 'pay the subscription');
        post(ctx, {
          workspaceId,
          currency,
          reason: 'subscription_charge',
          referenceType: 'Subscription',
          referenceUuid: timeOrderedUuid(),
          description: `Subscription ${raw.product_code}`,
          legs: [
            { account: 'wallet.available', direction: 'debit', amount: price! },
            { account: 'platform.revenue', direction: 'credit', amount: price! },
          ],
        });
        ctx.db.prepare('INSERT INTO workspace_subscriptions (workspace_id, product_code) VALUES (?, ?)').run(workspaceId, raw.product_code);
        return { product_code: raw.product_code, currency, price: fmt(price!) };
      });
    },

    adjust(workspaceId, input) {
      const errors = new FieldErrors();
      const raw = input ?? ({} as AdjustmentInput);
      if (raw.direction !== 'credit' && raw.direction !== 'debit') errors.add('direction', 'must be credit or debit');
      const amount = positive(errors, 'amount', raw.amount, true);
      const given = currencyOf(errors, raw.currency);
      if (raw.card_uuid !== undefined && (typeof raw.card_uuid !== 'string' || !UUID.test(raw.card_uuid.toLowerCase()))) errors.add('card_uuid', 'must be a card uuid');
      errors.throwIfAny();
      return ctx.write(() => {
        const ws = requireWorkspace(ctx, workspaceId);
        const card = raw.card_uuid === undefined ? undefined : loadCard(ctx, raw.card_uuid.toLowerCase());
        if (raw.card_uuid !== undefined && (card === undefined || card.workspace_id !== workspaceId)) throw new SandboxError(404, 'card.not_found', `No card ${raw.card_uuid} in this workspace.`);
        const currency = card?.currency ?? given ?? ws.base_currency;
        if (card !== undefined && given !== undefined && given !== card.currency) throw new SandboxError(422, 'validation.failed', 'The currency must be the card\'s.', { currency: [`must be ${card.currency}, the card's currency`] });
        openWallet(ctx, workspaceId, currency);
        const into = raw.direction === 'credit';
        const side: Leg = card === undefined ? { account: 'wallet.available', direction: into ? 'credit' : 'debit', amount: amount! } : { account: 'card', cardUuid: card.uuid, direction: into ? 'credit' : 'debit', amount: amount! };
        post(ctx, {
          workspaceId,
          currency,
          reason: 'card_reconcile_adjustment',
          ...(card === undefined ? {} : { referenceType: 'Card', referenceUuid: card.uuid }),
          description: raw.description ?? `Reconciliation adjustment (${raw.direction})`,
          legs: [side, { account: 'platform.reconciliation', direction: into ? 'debit' : 'credit', amount: amount! }],
        });
        return lastGroup(ctx, workspaceId);
      });
    },

    reverse(workspaceId, txnGroupId, description) {
      if (typeof txnGroupId !== 'string' || !UUID.test(txnGroupId.toLowerCase())) throw new SandboxError(422, 'validation.failed', 'The txn_group_id must be a ledger group id.', { txn_group_id: ['must be a txn_group_id of GET /transactions'] });
      return ctx.write(() => {
        const rows = ctx.db
          .prepare<[number, string], { reason_code: string; direction: 'debit' | 'credit'; amount: string; currency: string; account_code: AccountCode; account_card_uuid: string | null; reference_type: string | null; reference_uuid: string | null }>(
            'SELECT reason_code, direction, amount, currency, account_code, account_card_uuid, reference_type, reference_uuid FROM ledger_entries WHERE workspace_id = ? AND txn_group_id = ? ORDER BY id',
          )
          .all(workspaceId, txnGroupId.toLowerCase());
        if (rows.length === 0) throw new SandboxError(404, 'api.not_found', `No ledger group ${txnGroupId} in this workspace.`);
        const first = rows[0]!;
        if (first.reason_code === 'reversal') throw new SandboxError(409, 'card.state_conflict', 'A reversal is not reversed; post a new entry instead.');
        if (ctx.db.prepare('SELECT 1 FROM ledger_entries WHERE workspace_id = ? AND reason_code = ? AND reference_type = ? AND reference_uuid = ?').get(workspaceId, 'reversal', 'LedgerGroup', txnGroupId.toLowerCase()) !== undefined) {
          throw new SandboxError(409, 'card.state_conflict', `The ledger group ${txnGroupId} is already reversed.`);
        }
        // The mirror of every row: the same accounts, the other direction, so each account is back where it was.
        post(ctx, {
          workspaceId,
          currency: first.currency,
          reason: 'reversal',
          referenceType: 'LedgerGroup',
          referenceUuid: txnGroupId.toLowerCase(),
          description: description ?? `Reversal of ${first.reason_code} group ${txnGroupId}`,
          legs: rows.map((r) => ({
            account: r.account_code,
            ...(r.account_card_uuid === null ? {} : { cardUuid: r.account_card_uuid }),
            direction: r.direction === 'debit' ? 'credit' : 'debit',
            amount: money(r.amount),
          })),
        });
        return lastGroup(ctx, workspaceId);
      });
    },

    setWalletFrozen(workspaceId, input) {
      const errors = new FieldErrors();
      const raw = input ?? { frozen: false };
      if (typeof raw.frozen !== 'boolean') errors.add('frozen', 'must be true or false');
      const reason = raw.reason ?? null;
      if (reason !== null && (typeof reason !== 'string' || reason.length > 500)) errors.add('reason', 'must be a string of at most 500 characters');
      const given = currencyOf(errors, raw.currency);
      errors.throwIfAny();
      return ctx.write(() => {
        const currency = given ?? requireWorkspace(ctx, workspaceId).base_currency;
        openWallet(ctx, workspaceId, currency);
        if (raw.frozen) {
          ctx.db
            .prepare('INSERT INTO wallet_freezes (workspace_id, currency, frozen_at, frozen_reason) VALUES (?, ?, ?, ?) ON CONFLICT (workspace_id, currency) DO UPDATE SET frozen_reason = excluded.frozen_reason')
            .run(workspaceId, currency, ctx.nowIso(), reason);
        } else {
          ctx.db.prepare('DELETE FROM wallet_freezes WHERE workspace_id = ? AND currency = ?').run(workspaceId, currency);
        }
        const frozen = walletFrozen(ctx, workspaceId, currency);
        return { currency, frozen_at: frozen?.frozen_at ?? null, frozen_reason: frozen?.frozen_reason ?? null };
      });
    },
  };
}

/** The txn_group_id of the newest posting of the workspace (the one just written in this transaction). */
function lastGroup(ctx: Context, workspaceId: number): string {
  return ctx.db.prepare<[number], { txn_group_id: string }>('SELECT txn_group_id FROM ledger_entries WHERE workspace_id = ? ORDER BY id DESC LIMIT 1').get(workspaceId)!.txn_group_id;
}

