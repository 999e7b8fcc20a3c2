import { randomInt, randomUUID } from 'node:crypto';
import { timeOrderedUuid } from './ids.js';
import type { Context } from './context.js';
import { FieldErrors, SandboxError, stateConflict } from './errors.js';
import { recordEvent } from './events.js';
import { accountBalance, openWallet, parseTimeFilter, post, requireWorkspace } from './ledger.js';
import { fmt, money, Money, parseRequestAmount } from './money.js';
import { loadCard, openOrdersOfCard, setCard, type CardRow } from './orders.js';
import { paginate, parsePageQuery, type PageQuery } from './pagination.js';
import {
  DECLINE_REASONS,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  type CardTransaction,
  type ConsumptionBill,
  type ConsumptionBillKind,
  type ConsumptionBillStatus,
  type DeclineReason,
  type Merchant,
  type Paginated,
  type TransactionStatus,
  type TransactionType,
} from './types.js';

/** Merchant of a simulated transaction; every field has a sandbox default. */
export interface MerchantInput {
  raw_name?: string;
  canonical_merchant_id?: string | null;
  canonical_name?: string | null;
  /** Four digits. */
  mcc?: string | null;
  /** 2-letter country code. */
  country?: string | null;
}

/** Input of `simulate.authorize`. */
export interface AuthorizeInput {
  /** Settlement amount in the card's currency; `"0.00"` is a card-verification probe (no hold). */
  amount: string;
  /** Merchant's currency; default the card's. A different one makes a foreign-currency purchase. */
  merchant_currency?: string;
  /** What the merchant charged in `merchant_currency`; required for a foreign currency, else equal to `amount`. */
  merchant_amount?: string;
  merchant?: MerchantInput;
  /** Grouping key of the purchase (D23); default a fresh `sbx_txn_...`. Unique per workspace. */
  supplier_txn_id?: string;
}

/** Input of `simulate.decline`. */
export interface DeclineInput {
  /** What was attempted, in `merchant_currency`. */
  merchant_amount: string;
  merchant_currency?: string;
  reason: DeclineReason;
  merchant?: MerchantInput;
  supplier_txn_id?: string;
  /**
   * A risk-engine penalty fee for this decline (`risk_penalty`, contract 2.11), in the card's currency: it leaves
   * the wallet, which it may take below zero. Absent: nothing moves.
   */
  penalty_fee?: string;
}

/** Input of `simulate.capture`, `refund` and `chargeback`: an amount below the remaining one, with its merchant leg. */
export interface PartialAmountInput {
  /** Default: everything that remains (the hold, the refundable part, the disputable part). */
  amount?: string;
  /** Default: same currency, `amount`; foreign currency, the authorization's rate applied to `amount`. */
  merchant_amount?: string;
}

/** Input of `simulate.unmatched` (D49): a network row whose purchase has no earlier row in the card's feed. */
export interface UnmatchedInput {
  /**
   * `capture`: a charge posted without an authorization (a force post; on a closed card a late charge,
   * `card_post_close_clawback`); `refund`: a merchant refund of a purchase the feed does not hold; `chargeback_opened`:
   * a dispute of such a purchase.
   */
  type: 'capture' | 'refund' | 'chargeback_opened';
  /** In the card's currency. */
  amount: string;
  merchant_currency?: string;
  merchant_amount?: string;
  merchant?: MerchantInput;
  supplier_txn_id?: string;
}

/** Input of `simulate.resolveChargeback`. */
export interface ResolveChargebackInput {
  /** `cardholder`: the disputed amount goes back to the card (`card_spend_reversal`); `merchant`: nothing moves. */
  outcome: 'cardholder' | 'merchant';
}

/**
 * Card network events, simulated (contract 2.5, 3.3, D23). Each call adds one transaction row,
 * emits its one `card.transaction.*` event (none exists for `chargeback_resolved`) and moves
 * the money, all in one transaction. A purchase is named by its `supplier_txn_id`, which
 * `authorize` returns on the row. Calls that do not fit the purchase's state answer 409
 * `card.state_conflict`; a bad amount 422 `validation.failed`; an unknown card or purchase
 * 404 `card.not_found`.
 */
export interface SimulateService {
  /**
   * An authorization: places a hold of `amount` (card `held_amount` up, `available_balance`
   * down); `"0.00"` is a probe that holds nothing. Declined instead (and the decline row
   * returned) when the card is frozen or closing (`card_frozen`), closed (`other`) or its
   * available balance is short (`insufficient_funds`). 409 on a card not issued.
   */
  authorize(workspaceId: number, cardUuid: string, input: AuthorizeInput): CardTransaction;
  /** Settles a hold: the card balance drops by the captured amount (`card_spend`), the whole hold is released. */
  capture(workspaceId: number, supplierTxnId: string, input?: PartialAmountInput): CardTransaction;
  /** The merchant releases a hold: nothing moves, the hold is dropped. */
  reverse(workspaceId: number, supplierTxnId: string): CardTransaction;
  /** A merchant refund of a settled purchase: the card balance rises (`card_spend_refund`; after closure the wallet, `card_post_close_refund`). */
  refund(workspaceId: number, supplierTxnId: string, input?: PartialAmountInput): CardTransaction;
  /** A declined authorization: a `failed` row with amount `0.00`, only the merchant leg, nothing moves. */
  decline(workspaceId: number, cardUuid: string, input: DeclineInput): CardTransaction;
  /** Opens a chargeback on a settled purchase (nothing moves until it is resolved). */
  chargeback(workspaceId: number, supplierTxnId: string, input?: PartialAmountInput): CardTransaction;
  /** Resolves the open chargeback; the row has no webhook event (the catalogue of 6.4 has none). */
  resolveChargeback(workspaceId: number, supplierTxnId: string, input: ResolveChargebackInput): CardTransaction;
  /** D49: a capture, refund or chargeback whose purchase has no earlier row on the card; one row and its event. */
  unmatched(workspaceId: number, cardUuid: string, input: UnmatchedInput): CardTransaction;
}

/** Filters of `GET /cards/{uuid}/transactions`. */
export interface CardTransactionQuery extends PageQuery {
  type?: string | undefined;
  status?: string | undefined;
  /** ISO 8601; on `occurred_at`. */
  from?: string | undefined;
  to?: string | undefined;
}

/** Filters of `GET /cards/{uuid}/consumption-bills`; `from`/`to` apply to the bill's `occurred_at` (its latest event). */
export interface ConsumptionBillQuery extends PageQuery {
  from?: string | undefined;
  to?: string | undefined;
}

interface TxnRow {
  id: number;
  uuid: string;
  workspace_id: number;
  card_uuid: string;
  supplier_txn_id: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: string;
  currency: string;
  merchant_amount: string;
  merchant_currency: string;
  fx_rate: string | null;
  merchant: string;
  auth_code: string | null;
  decline_reason: DeclineReason | null;
  resolution: string | null;
  occurred_at: string;
  posted_at: string | null;
  created_at: string;
}

const EVENT_OF: Partial<Record<TransactionType, string>> = {
  authorization: 'card.transaction.authorized',
  capture: 'card.transaction.captured',
  reversal: 'card.transaction.reversed',
  decline: 'card.transaction.declined',
  refund: 'card.transaction.refunded',
  chargeback_opened: 'card.transaction.chargeback_opened',
};

/** Row shape of section 2.5 (plus D23's `supplier_txn_id`). */
export function toTransaction(row: TxnRow): CardTransaction {
  return {
    uuid: row.uuid,
    type: row.type,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    merchant_amount: row.merchant_amount,
    merchant_currency: row.merchant_currency,
    fx_rate: row.fx_rate,
    merchant: JSON.parse(row.merchant) as Merchant,
    auth_code: row.auth_code,
    decline_reason: row.decline_reason,
    occurred_at: row.occurred_at,
    posted_at: row.posted_at,
    created_at: row.created_at,
    supplier_txn_id: row.supplier_txn_id,
  };
}

const CURRENCY = /^[A-Z]{3,5}$/;
const DEFAULT_MERCHANT: Merchant = { raw_name: 'SANDBOX MERCHANT', canonical_merchant_id: null, canonical_name: null, mcc: '5999', country: 'US' };

function checkMerchant(errors: FieldErrors, input: MerchantInput | undefined): Merchant {
  if (input === undefined) return DEFAULT_MERCHANT;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    errors.add('merchant', 'must be an object');
    return DEFAULT_MERCHANT;
  }
  const m: Merchant = {
    raw_name: input.raw_name ?? DEFAULT_MERCHANT.raw_name,
    canonical_merchant_id: input.canonical_merchant_id === undefined ? null : input.canonical_merchant_id,
    canonical_name: input.canonical_name === undefined ? null : input.canonical_name,
    mcc: input.mcc === undefined ? DEFAULT_MERCHANT.mcc : input.mcc,
    country: input.country === undefined ? DEFAULT_MERCHANT.country : input.country,
  };
  if (typeof m.raw_name !== 'string' || m.raw_name.trim() === '' || m.raw_name.length > 255) errors.add('merchant.raw_name', 'must be a non-empty string of at most 255 characters');
  for (const f of ['canonical_merchant_id', 'canonical_name'] as const) if (m[f] !== null && (typeof m[f] !== 'string' || m[f].length > 255)) errors.add(`merchant.${f}`, 'must be a string or null');
  if (m.mcc !== null && (typeof m.mcc !== 'string' || !/^[0-9]{4}$/.test(m.mcc))) errors.add('merchant.mcc', 'must be four digits or null');
  if (m.country !== null && (typeof m.country !== 'string' || !/^[A-Z]{2}$/.test(m.country))) errors.add('merchant.country', 'must be a 2-letter country code or null');
  return m;
}

function amountField(errors: FieldErrors, field: string, value: unknown, required: boolean): Money | undefined {
  if (value === undefined) {
    if (required) errors.add(field, 'is required');
    return undefined;
  }
  const parsed = parseRequestAmount(value);
  if (!parsed.ok) {
    errors.add(field, parsed.message);
    return undefined;
  }
  return parsed.value;
}

/** `amount` / `merchant_amount` to 6 decimals (D12 allows 8), or null when no conversion happened. */
function fxRate(amount: Money, merchantAmount: Money, foreign: boolean): string | null {
  if (!foreign || merchantAmount.isZero()) return null;
  return amount.dividedBy(merchantAmount).toFixed(6, Money.ROUND_HALF_UP);
}

/** A request's `merchant_currency`: absent (the purchase is in the card's currency) or a currency code. */
function merchantCurrencyField(errors: FieldErrors, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && CURRENCY.test(value)) return value;
  errors.add('merchant_currency', 'must be a currency code such as EUR');
  return undefined;
}

function supplierId(value: unknown, errors: FieldErrors): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7E]{1,64}$/.test(value)) errors.add('supplier_txn_id', 'must be 1 to 64 visible ASCII characters');
  return value as string;
}

/** What is known about one purchase from its rows. */
interface Purchase {
  rows: TxnRow[];
  card: CardRow;
  auth: TxnRow | undefined;
  capture: TxnRow | undefined;
  reversal: TxnRow | undefined;
  refunded: Money;
  chargebackOpen: TxnRow | undefined;
  chargebackResolved: TxnRow | undefined;
}

export function createSimulateService(ctx: Context): SimulateService {
  const ownedCard = (workspaceId: number, uuid: string): CardRow => {
    const card = typeof uuid === 'string' ? loadCard(ctx, uuid.toLowerCase()) : undefined;
    if (card === undefined || card.workspace_id !== workspaceId) throw new SandboxError(404, 'card.not_found', `No card ${String(uuid)} in this workspace.`);
    if (card.status === 'pending_issue' || card.status === 'issue_failed') throw stateConflict(`The card is ${card.status}; the network does not know it yet.`);
    return card;
  };

  const purchase = (workspaceId: number, supplierTxnId: string): Purchase => {
    const rows = ctx.db.prepare<[number, string], TxnRow>('SELECT * FROM card_transactions WHERE workspace_id = ? AND supplier_txn_id = ? ORDER BY id').all(workspaceId, String(supplierTxnId));
    const first = rows[0];
    if (first === undefined) throw new SandboxError(404, 'card.not_found', `No purchase ${String(supplierTxnId)} on a card of this workspace.`);
    const of = (type: TransactionType) => rows.find((r) => r.type === type);
    return {
      rows,
      card: loadCard(ctx, first.card_uuid)!,
      auth: of('authorization'),
      capture: of('capture'),
      reversal: of('reversal'),
      refunded: rows.filter((r) => r.type === 'refund').reduce((sum, r) => sum.plus(r.amount), new Money(0)),
      chargebackOpen: of('chargeback_opened'),
      chargebackResolved: of('chargeback_resolved'),
    };
  };

  /** Inserts a row, stamps the card's activity and emits the row's event; returns the row. */
  const insertRow = (
    card: CardRow,
    fields: Omit<TxnRow, 'id' | 'uuid' | 'workspace_id' | 'card_uuid' | 'occurred_at' | 'created_at' | 'posted_at' | 'merchant' | 'resolution'> & { merchant: Merchant; posted: boolean; resolution?: string },
  ): CardTransaction => {
    const now = ctx.nowIso();
    const uuid = timeOrderedUuid();
    ctx.db
      .prepare(
        `INSERT INTO card_transactions (uuid, workspace_id, card_uuid, supplier_txn_id, type, status, amount, currency, merchant_amount, merchant_currency, fx_rate, merchant, auth_code, decline_reason, resolution, occurred_at, posted_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        uuid,
        card.workspace_id,
        card.uuid,
        fields.supplier_txn_id,
        fields.type,
        fields.status,
        fields.amount,
        fields.currency,
        fields.merchant_amount,
        fields.merchant_currency,
        fields.fx_rate,
        JSON.stringify(fields.merchant),
        fields.auth_code,
        fields.decline_reason,
        fields.resolution ?? null,
        now,
        fields.posted ? now : null,
        now,
      );
    const after = setCard(ctx, card.uuid, { last_active_txn_at: now });
    const transaction = toTransaction(ctx.db.prepare<[string], TxnRow>('SELECT * FROM card_transactions WHERE uuid = ?').get(uuid)!);
    const event = EVENT_OF[fields.type];
    if (event !== undefined) recordEvent(ctx, card.workspace_id, event, { card_uuid: after.uuid, pan_last4: after.pan_last4, transaction });
    return transaction;
  };

  /** Drops `amount` from the card's hold; re-arms a close stage 2 that waited for the last hold. */
  const releaseHold = (card: CardRow, amount: string): void => {
    const held = money(card.held_amount).minus(amount);
    const after = setCard(ctx, card.uuid, { held_amount: fmt(held.isNegative() ? new Money(0) : held) });
    if (after.status === 'pending_close' && !money(after.held_amount).greaterThan(0) && after.close_due_at_ms === null && ctx.options.closeDelayMs !== null && openOrdersOfCard(ctx, card.uuid).length === 0) {
      setCard(ctx, card.uuid, { close_due_at_ms: ctx.nowMs() });
    }
  };

  /** D30: a row that opened something (a hold, a chargeback) takes the status of its outcome, stamped now. */
  const settleOpenRow = (row: TxnRow, status: 'posted' | 'reversed', outcome: CardTransaction): CardTransaction => {
    ctx.db.prepare(`UPDATE card_transactions SET status = ?, posted_at = ? WHERE id = ? AND status = 'pending'`).run(status, outcome.posted_at ?? outcome.occurred_at, row.id);
    return outcome;
  };

  /** Merchant leg of a follow-up row: given, or the authorization's rate applied to `amount`. */
  const followUpLeg = (p: Purchase, amount: Money, given: Money | undefined): { merchant_amount: string; fx_rate: string | null } => {
    const base = p.capture ?? p.auth!;
    const foreign = base.merchant_currency !== base.currency;
    let merchantAmount: Money;
    if (given !== undefined) merchantAmount = given;
    else if (!foreign) merchantAmount = amount;
    else if (amount.equals(base.amount)) merchantAmount = money(base.merchant_amount);
    else merchantAmount = money(base.merchant_amount).times(amount).dividedBy(base.amount).toDecimalPlaces(2, Money.ROUND_HALF_UP);
    return { merchant_amount: fmt(merchantAmount), fx_rate: fxRate(amount, merchantAmount, foreign) };
  };

  const partial = (input: PartialAmountInput | undefined, remaining: Money, what: string): { amount: Money; merchant: Money | undefined } => {
    const errors = new FieldErrors();
    const raw = input ?? {};
    const amount = amountField(errors, 'amount', raw.amount, false) ?? remaining;
    const merchant = amountField(errors, 'merchant_amount', raw.merchant_amount, false);
    if (!errors.has('amount') && (!amount.greaterThan(0) || amount.greaterThan(remaining))) errors.add('amount', `must be greater than 0 and at most the ${what}, ${fmt(remaining)}`);
    if (merchant !== undefined && !merchant.greaterThan(0)) errors.add('merchant_amount', 'must be greater than 0');
    errors.throwIfAny();
    return { amount, merchant };
  };

  /** Money back to the cardholder: onto the card, or into the wallet once the card is closed. */
  const creditBack = (p: Pick<Purchase, 'card'>, amount: Money, reason: 'card_spend_refund' | 'card_spend_reversal', description: string): void => {
    const closed = p.card.status === 'closed';
    post(ctx, {
      workspaceId: p.card.workspace_id,
      currency: p.card.currency,
      reason: closed ? 'card_post_close_refund' : reason,
      referenceType: 'Card',
      referenceUuid: p.card.uuid,
      description: closed ? `${description} after the card closed` : description,
      legs: [
        { account: 'platform.settlement', direction: 'debit', amount },
        closed ? { account: 'wallet.available', direction: 'credit', amount } : { account: 'card', cardUuid: p.card.uuid, direction: 'credit', amount },
      ],
    });
    setCard(ctx, p.card.uuid, { lifetime_refund_amount: fmt(money(p.card.lifetime_refund_amount).plus(amount)) });
  };

  const newSupplierId = (workspaceId: number, given: string | undefined): string => {
    if (given !== undefined) {
      if (ctx.db.prepare('SELECT 1 FROM card_transactions WHERE workspace_id = ? AND supplier_txn_id = ?').get(workspaceId, given) !== undefined) throw stateConflict(`The purchase ${given} already exists.`);
      return given;
    }
    return `sbx_txn_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  };

  const declineRow = (card: CardRow, leg: { merchant_amount: string; merchant_currency: string }, reason: DeclineReason, merchant: Merchant, supplierTxnId: string): CardTransaction =>
    insertRow(card, {
      supplier_txn_id: supplierTxnId,
      type: 'decline',
      status: 'failed',
      amount: '0.00',
      currency: card.currency,
      merchant_amount: leg.merchant_amount,
      merchant_currency: leg.merchant_currency,
      fx_rate: null,
      merchant,
      auth_code: null,
      decline_reason: reason,
      posted: false,
    });

  return {
    authorize(workspaceId, cardUuid, input) {
      const errors = new FieldErrors();
      const raw = (input ?? {}) as AuthorizeInput;
      const amount = amountField(errors, 'amount', raw.amount, true);
      const merchantCurrency = merchantCurrencyField(errors, raw.merchant_currency);
      const merchantAmount = amountField(errors, 'merchant_amount', raw.merchant_amount, false);
      const merchant = checkMerchant(errors, raw.merchant);
      const given = supplierId(raw.supplier_txn_id, errors);
      errors.throwIfAny();
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        const card = ownedCard(workspaceId, cardUuid);
        const currency = merchantCurrency ?? card.currency;
        const foreign = currency !== card.currency;
        const value = amount!;
        const fieldErrors = new FieldErrors();
        if (foreign && merchantAmount === undefined) fieldErrors.add('merchant_amount', 'is required for a foreign-currency purchase');
        if (!foreign && merchantAmount !== undefined && !merchantAmount.equals(value)) fieldErrors.add('merchant_amount', 'must equal amount when the merchant charges in the card currency');
        if (merchantAmount !== undefined && value.isZero() !== merchantAmount.isZero()) fieldErrors.add('merchant_amount', 'must be 0 exactly when amount is 0 (a verification probe)');
        fieldErrors.throwIfAny();
        const leg = { merchant_amount: fmt(merchantAmount ?? value), merchant_currency: currency };
        const supplierTxnId = newSupplierId(workspaceId, given);

        const available = accountBalance(ctx, workspaceId, card.currency, 'card', card.uuid).minus(card.held_amount);
        const refusal: DeclineReason | null =
          card.status === 'frozen' || card.status === 'pending_close' ? 'card_frozen' : card.status === 'closed' ? 'other' : available.lessThan(value) ? 'insufficient_funds' : null;
        if (refusal !== null) return declineRow(card, leg, refusal, merchant, supplierTxnId);

        if (value.greaterThan(0)) setCard(ctx, card.uuid, { held_amount: fmt(money(card.held_amount).plus(value)) });
        return insertRow(loadCard(ctx, card.uuid)!, {
          supplier_txn_id: supplierTxnId,
          type: 'authorization',
          status: 'pending',
          amount: fmt(value),
          currency: card.currency,
          ...leg,
          fx_rate: fxRate(value, money(leg.merchant_amount), foreign),
          merchant,
          auth_code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
          decline_reason: null,
          posted: false,
        });
      });
    },

    capture(workspaceId, supplierTxnId, input) {
      return ctx.write(() => {
        const p = purchase(workspaceId, supplierTxnId);
        const auth = p.auth;
        if (auth === undefined || p.capture !== undefined || p.reversal !== undefined) throw stateConflict(`The purchase ${supplierTxnId} has no open hold to capture.`);
        if (money(auth.amount).isZero()) throw stateConflict('A verification probe holds nothing and cannot be captured.');
        const { amount, merchant } = partial(input, money(auth.amount), 'authorized amount');
        const leg = followUpLeg(p, amount, merchant);
        post(ctx, {
          workspaceId,
          currency: p.card.currency,
          reason: 'card_spend',
          referenceType: 'Card',
          referenceUuid: p.card.uuid,
          description: `Card spend settled: ${JSON.parse(auth.merchant).raw_name as string}`,
          legs: [
            { account: 'card', cardUuid: p.card.uuid, direction: 'debit', amount },
            { account: 'platform.settlement', direction: 'credit', amount },
          ],
        });
        setCard(ctx, p.card.uuid, { lifetime_spend_amount: fmt(money(p.card.lifetime_spend_amount).plus(amount)) });
        // The whole hold goes, also on a partial capture: the rest is released with it.
        releaseHold(loadCard(ctx, p.card.uuid)!, auth.amount);
        const captured = insertRow(loadCard(ctx, p.card.uuid)!, {
          supplier_txn_id: auth.supplier_txn_id,
          type: 'capture',
          status: 'posted',
          amount: fmt(amount),
          currency: auth.currency,
          ...leg,
          merchant_currency: auth.merchant_currency,
          merchant: JSON.parse(auth.merchant) as Merchant,
          auth_code: auth.auth_code,
          decline_reason: null,
          posted: true,
        });
        return settleOpenRow(auth, 'posted', captured);
      });
    },

    reverse(workspaceId, supplierTxnId) {
      return ctx.write(() => {
        const p = purchase(workspaceId, supplierTxnId);
        const auth = p.auth;
        if (auth === undefined || p.capture !== undefined || p.reversal !== undefined) throw stateConflict(`The purchase ${supplierTxnId} has no open hold to reverse.`);
        if (money(auth.amount).isZero()) throw stateConflict('A verification probe holds nothing; it expires without a reversal.');
        releaseHold(p.card, auth.amount);
        const reversal = insertRow(loadCard(ctx, p.card.uuid)!, {
          supplier_txn_id: auth.supplier_txn_id,
          type: 'reversal',
          status: 'reversed',
          amount: auth.amount,
          currency: auth.currency,
          merchant_amount: auth.merchant_amount,
          merchant_currency: auth.merchant_currency,
          fx_rate: auth.fx_rate,
          merchant: JSON.parse(auth.merchant) as Merchant,
          auth_code: auth.auth_code,
          decline_reason: null,
          posted: true,
        });
        return settleOpenRow(auth, 'reversed', reversal);
      });
    },

    refund(workspaceId, supplierTxnId, input) {
      return ctx.write(() => {
        const p = purchase(workspaceId, supplierTxnId);
        const capture = p.capture;
        if (capture === undefined) throw stateConflict(`The purchase ${supplierTxnId} is not settled; only a settled purchase can be refunded.`);
        if (p.chargebackOpen !== undefined) throw stateConflict(`The purchase ${supplierTxnId} is disputed; it cannot be refunded as well.`);
        const remaining = money(capture.amount).minus(p.refunded);
        if (!remaining.greaterThan(0)) throw stateConflict(`The purchase ${supplierTxnId} is already fully refunded.`);
        const { amount, merchant } = partial(input, remaining, 'refundable amount');
        const leg = followUpLeg(p, amount, merchant);
        creditBack(p, amount, 'card_spend_refund', `Merchant refund: ${JSON.parse(capture.merchant).raw_name as string}`);
        return insertRow(loadCard(ctx, p.card.uuid)!, {
          supplier_txn_id: capture.supplier_txn_id,
          type: 'refund',
          status: 'posted',
          amount: fmt(amount),
          currency: capture.currency,
          ...leg,
          merchant_currency: capture.merchant_currency,
          merchant: JSON.parse(capture.merchant) as Merchant,
          auth_code: capture.auth_code,
          decline_reason: null,
          posted: true,
        });
      });
    },

    decline(workspaceId, cardUuid, input) {
      const errors = new FieldErrors();
      const raw = (input ?? {}) as DeclineInput;
      const attempted = amountField(errors, 'merchant_amount', raw.merchant_amount, true);
      const merchantCurrency = merchantCurrencyField(errors, raw.merchant_currency);
      if (!(DECLINE_REASONS as readonly unknown[]).includes(raw.reason)) errors.add('reason', `must be one of ${DECLINE_REASONS.join(', ')}`);
      const merchant = checkMerchant(errors, raw.merchant);
      const given = supplierId(raw.supplier_txn_id, errors);
      const penalty = amountField(errors, 'penalty_fee', raw.penalty_fee, false);
      if (penalty !== undefined && penalty.isZero()) errors.add('penalty_fee', 'must be greater than 0');
      errors.throwIfAny();
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        const card = ownedCard(workspaceId, cardUuid);
        const row = declineRow(card, { merchant_amount: fmt(attempted!), merchant_currency: merchantCurrency ?? card.currency }, raw.reason, merchant, newSupplierId(workspaceId, given));
        if (penalty !== undefined) {
          // D40: risk_penalty as the contract defines it, a fee per declined transaction taken from the wallet, with
          // no balance check: "may push the wallet negative".
          openWallet(ctx, workspaceId, card.currency);
          post(ctx, {
            workspaceId,
            currency: card.currency,
            reason: 'risk_penalty',
            referenceType: 'Card',
            referenceUuid: card.uuid,
            description: `Risk-engine penalty fee for declined transaction ${row.uuid}`,
            legs: [
              { account: 'wallet.available', direction: 'debit', amount: penalty },
              { account: 'platform.revenue', direction: 'credit', amount: penalty },
            ],
          });
        }
        return row;
      });
    },

    chargeback(workspaceId, supplierTxnId, input) {
      return ctx.write(() => {
        const p = purchase(workspaceId, supplierTxnId);
        const capture = p.capture;
        if (capture === undefined) throw stateConflict(`The purchase ${supplierTxnId} is not settled; only a settled purchase can be disputed.`);
        if (p.chargebackOpen !== undefined) throw stateConflict(`The purchase ${supplierTxnId} already has a chargeback.`);
        const remaining = money(capture.amount).minus(p.refunded);
        if (!remaining.greaterThan(0)) throw stateConflict(`The purchase ${supplierTxnId} is fully refunded; nothing is left to dispute.`);
        const { amount, merchant } = partial(input, remaining, 'disputable amount');
        const leg = followUpLeg(p, amount, merchant);
        return insertRow(p.card, {
          supplier_txn_id: capture.supplier_txn_id,
          type: 'chargeback_opened',
          status: 'pending',
          amount: fmt(amount),
          currency: capture.currency,
          ...leg,
          merchant_currency: capture.merchant_currency,
          merchant: JSON.parse(capture.merchant) as Merchant,
          auth_code: capture.auth_code,
          decline_reason: null,
          posted: false,
        });
      });
    },

    unmatched(workspaceId, cardUuid, input) {
      const errors = new FieldErrors();
      const raw = (input ?? {}) as UnmatchedInput;
      if (!['capture', 'refund', 'chargeback_opened'].includes(raw.type)) errors.add('type', 'must be capture, refund or chargeback_opened');
      const amount = amountField(errors, 'amount', raw.amount, true);
      if (amount !== undefined && amount.isZero()) errors.add('amount', 'must be greater than 0');
      const merchantCurrency = merchantCurrencyField(errors, raw.merchant_currency);
      const merchantAmount = amountField(errors, 'merchant_amount', raw.merchant_amount, false);
      const merchant = checkMerchant(errors, raw.merchant);
      const given = supplierId(raw.supplier_txn_id, errors);
      errors.throwIfAny();
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        const card = ownedCard(workspaceId, cardUuid);
        const value = amount!;
        const currency = merchantCurrency ?? card.currency;
        const foreign = currency !== card.currency;
        if (foreign && merchantAmount === undefined) throw new SandboxError(422, 'validation.failed', 'The request is invalid.', { merchant_amount: ['is required for a foreign-currency row'] });
        const leg = { merchant_amount: fmt(merchantAmount ?? value), merchant_currency: currency, fx_rate: fxRate(value, merchantAmount ?? value, foreign) };
        const supplierTxnId = newSupplierId(workspaceId, given);
        const closed = card.status === 'closed';
        if (raw.type === 'capture') {
          const available = accountBalance(ctx, workspaceId, card.currency, 'card', card.uuid).minus(card.held_amount);
          if (!closed && available.lessThan(value)) throw stateConflict(`The card's available balance (${fmt(available)} ${card.currency}) cannot take a charge of ${fmt(value)}.`);
          // D49: after closure the card has nothing left; the late charge is taken from the workspace's wallet.
          post(ctx, {
            workspaceId,
            currency: card.currency,
            reason: closed ? 'card_post_close_clawback' : 'card_spend',
            referenceType: 'Card',
            referenceUuid: card.uuid,
            description: closed ? `Late charge after the card closed: ${merchant.raw_name}` : `Card spend settled (force post): ${merchant.raw_name}`,
            legs: [
              closed ? { account: 'wallet.available', direction: 'debit', amount: value } : { account: 'card', cardUuid: card.uuid, direction: 'debit', amount: value },
              { account: 'platform.settlement', direction: 'credit', amount: value },
            ],
          });
          setCard(ctx, card.uuid, { lifetime_spend_amount: fmt(money(card.lifetime_spend_amount).plus(value)) });
        } else if (raw.type === 'refund') {
          creditBack({ card }, value, 'card_spend_refund', `Merchant refund: ${merchant.raw_name}`);
        } else if (closed) {
          throw stateConflict('The card is closed; a dispute needs a card that can still take its outcome.');
        }
        return insertRow(loadCard(ctx, card.uuid)!, {
          supplier_txn_id: supplierTxnId,
          type: raw.type,
          status: raw.type === 'chargeback_opened' ? 'pending' : 'posted',
          amount: fmt(value),
          currency: card.currency,
          ...leg,
          merchant,
          auth_code: null,
          decline_reason: null,
          posted: raw.type !== 'chargeback_opened',
        });
      });
    },

    resolveChargeback(workspaceId, supplierTxnId, input) {
      const outcome = (input ?? {}).outcome;
      if (outcome !== 'cardholder' && outcome !== 'merchant') throw new SandboxError(422, 'validation.failed', 'The outcome must be cardholder or merchant.', { outcome: ['must be cardholder or merchant'] });
      return ctx.write(() => {
        const p = purchase(workspaceId, supplierTxnId);
        const opened = p.chargebackOpen;
        if (opened === undefined || p.chargebackResolved !== undefined) throw stateConflict(`The purchase ${supplierTxnId} has no open chargeback.`);
        if (outcome === 'cardholder') creditBack(p, money(opened.amount), 'card_spend_reversal', 'Chargeback resolved for the cardholder');
        const resolved = insertRow(loadCard(ctx, p.card.uuid)!, {
          supplier_txn_id: opened.supplier_txn_id,
          type: 'chargeback_resolved',
          status: 'posted',
          amount: opened.amount,
          currency: opened.currency,
          merchant_amount: opened.merchant_amount,
          merchant_currency: opened.merchant_currency,
          fx_rate: opened.fx_rate,
          merchant: JSON.parse(opened.merchant) as Merchant,
          auth_code: opened.auth_code,
          decline_reason: null,
          posted: true,
          resolution: outcome,
        });
        return settleOpenRow(opened, 'posted', resolved);
      });
    },
  };
}

/** Merges one purchase's rows (oldest first) into a bill, per the display rules of section 2.6. */
export function toBill(rows: TxnRow[], nowMs: number, probeExpiryMs: number): ConsumptionBill {
  const first = rows[0]!;
  const of = (type: TransactionType) => rows.find((r) => r.type === type);
  const auth = of('authorization');
  const capture = of('capture');
  const refunds = rows.filter((r) => r.type === 'refund');
  const declined = first.type === 'decline';
  const lastAt = rows.reduce((max, r) => (r.occurred_at > max ? r.occurred_at : max), first.occurred_at);

  const kind: ConsumptionBillKind = declined ? 'decline' : auth !== undefined ? 'purchase' : first.type === 'refund' ? 'refund' : first.type.startsWith('chargeback') ? 'chargeback' : 'other';
  let status: ConsumptionBillStatus;
  if (declined) status = 'declined';
  else if (of('chargeback_resolved') !== undefined) status = 'chargeback_resolved';
  else if (of('chargeback_opened') !== undefined) status = 'chargeback_opened';
  else if (refunds.length > 0) status = 'refunded';
  else if (capture !== undefined) status = 'settled';
  else if (of('reversal') !== undefined) status = 'reversed';
  // Only zero-amount probes expire, silently (3.3); real holds always end in a capture or reversal. The scheduler
  // marks an expired probe's row `reversed` (D30); the time check covers a read that comes before that run.
  else if (auth !== undefined && money(auth.amount).isZero() && (auth.status === 'reversed' || nowMs - Date.parse(auth.occurred_at) >= probeExpiryMs)) status = 'expired';
  else status = 'authorized';

  // The settled row, when there is one, carries the final amount and merchant leg.
  const base = capture ?? auth ?? first;
  const merchant = JSON.parse(base.merchant) as Merchant;
  return {
    id: first.id,
    kind,
    status,
    amount: declined ? '0.00' : base.amount,
    currency: base.currency,
    authorized_amount: status === 'authorized' ? auth!.amount : null,
    // A refund with no purchase in the feed (D49) settles its own amount.
    settled_amount: declined ? '0.00' : status === 'settled' || status === 'refunded' ? (capture ?? base).amount : null,
    merchant_amount: base.merchant_amount,
    merchant_currency: base.merchant_currency,
    fx_rate: declined ? null : base.fx_rate,
    merchant: { raw_name: merchant.raw_name, canonical_name: merchant.canonical_name, mcc: merchant.mcc, country: merchant.country },
    auth_code: auth?.auth_code ?? base.auth_code,
    decline_reason: declined ? first.decline_reason : null,
    occurred_at: lastAt,
    settled_at: capture?.posted_at ?? null,
    lines: rows.map(toTransaction),
  };
}

/** The two read endpoints over a card's transaction rows. */
export interface CardTransactionReads {
  /** `GET /cards/{uuid}/transactions`: rows newest first; 404 `card.not_found`; 422 on a bad filter. */
  listTransactions(workspaceId: number, uuid: string, query?: CardTransactionQuery, basePath?: string): Paginated<CardTransaction>;
  /** `GET /cards/{uuid}/consumption-bills`: one bill per purchase, newest purchase first; 404 `card.not_found`. */
  listConsumptionBills(workspaceId: number, uuid: string, query?: ConsumptionBillQuery, basePath?: string): Paginated<ConsumptionBill>;
}

export function createCardTransactionReads(ctx: Context): CardTransactionReads {
  const owned = (workspaceId: number, uuid: string): CardRow => {
    const card = typeof uuid === 'string' ? loadCard(ctx, uuid.toLowerCase()) : undefined;
    if (card === undefined || card.workspace_id !== workspaceId) throw new SandboxError(404, 'card.not_found', `No card ${String(uuid)} in this workspace.`);
    return card;
  };
  return {
    listTransactions(workspaceId, uuid, query = {}, basePath) {
      const card = owned(workspaceId, uuid);
      const errors = new FieldErrors();
      const { page, perPage } = parsePageQuery(query, errors);
      if (query.type !== undefined && !(TRANSACTION_TYPES as readonly string[]).includes(query.type)) errors.add('type', `must be one of ${TRANSACTION_TYPES.join(', ')}`);
      if (query.status !== undefined && !(TRANSACTION_STATUSES as readonly string[]).includes(query.status)) errors.add('status', `must be one of ${TRANSACTION_STATUSES.join(', ')}`);
      const from = parseTimeFilter(query.from, 'from', errors);
      const to = parseTimeFilter(query.to, 'to', errors);
      errors.throwIfAny();
      const conditions: [string, string | undefined][] = [
        ['card_uuid = ?', card.uuid],
        ['type = ?', query.type],
        ['status = ?', query.status],
        ['occurred_at >= ?', from],
        ['occurred_at <= ?', to],
      ];
      const active = conditions.filter(([, v]) => v !== undefined);
      const clause = active.map(([sql]) => sql).join(' AND ');
      const params = active.map(([, v]) => v as string);
      return ctx.read(() => {
        const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM card_transactions WHERE ${clause}`).get(...params) as { n: number }).n;
        const rows = ctx.db.prepare<(string | number)[], TxnRow>(`SELECT * FROM card_transactions WHERE ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...params, perPage, (page - 1) * perPage);
        return paginate(basePath ?? `/cards/${card.uuid}/transactions`, { type: query.type, status: query.status, from: query.from, to: query.to }, page, perPage, total, rows.map(toTransaction));
      });
    },

    listConsumptionBills(workspaceId, uuid, query = {}, basePath) {
      const card = owned(workspaceId, uuid);
      const errors = new FieldErrors();
      const { page, perPage } = parsePageQuery(query, errors);
      const from = parseTimeFilter(query.from, 'from', errors);
      const to = parseTimeFilter(query.to, 'to', errors);
      errors.throwIfAny();
      // A bill's time is its latest event, so the window applies after grouping.
      const grouped = `SELECT supplier_txn_id, MIN(id) AS first_id, MAX(occurred_at) AS last_at FROM card_transactions WHERE card_uuid = ? GROUP BY supplier_txn_id
        HAVING (? IS NULL OR MAX(occurred_at) >= ?) AND (? IS NULL OR MAX(occurred_at) <= ?)`;
      const params = [card.uuid, from ?? null, from ?? null, to ?? null, to ?? null];
      return ctx.read(() => {
        const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM (${grouped})`).get(...params) as { n: number }).n;
        const groups = ctx.db.prepare<(string | number | null)[], { supplier_txn_id: string }>(`${grouped} ORDER BY first_id DESC LIMIT ? OFFSET ?`).all(...params, perPage, (page - 1) * perPage);
        const rowsOf = ctx.db.prepare<[string, string], TxnRow>('SELECT * FROM card_transactions WHERE card_uuid = ? AND supplier_txn_id = ? ORDER BY id');
        const bills = groups.map((g) => toBill(rowsOf.all(card.uuid, g.supplier_txn_id), ctx.nowMs(), ctx.options.probeExpiryMs));
        return paginate(basePath ?? `/cards/${card.uuid}/consumption-bills`, { from: query.from, to: query.to }, page, perPage, total, bills);
      });
    },
  };
}
