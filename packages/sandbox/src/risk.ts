import type { Context } from './context.js';
import { FieldErrors, SandboxError, stateConflict } from './errors.js';
import { cardBase, recordEvent } from './events.js';
import { accountBalance, post, requireWorkspace } from './ledger.js';
import { fmt, money, parseRequestAmount } from './money.js';
import { loadCard, setCard, type CardRow } from './orders.js';
import type { ActionOrigin } from './types.js';

/** Input of `risk.freeze`. */
export interface RiskFreezeInput {
  /** Who acts (D9): platform risk control or the issuer. Workspace freezes go through `cards.freeze` (an order). */
  origin: Exclude<ActionOrigin, 'workspace'>;
  /** At most 500 characters. */
  reason?: string | null;
  /** D51: the ruling is final: the card's `appeal_terminated` becomes true. */
  appeal_terminated?: boolean;
}

/** Input of `risk.penalty`. */
export interface RiskPenaltyInput {
  /** Deducted from the card, at most its available balance (`card_balance` - `held_amount`). */
  amount: string;
  /** Ledger row description. */
  description?: string;
}

/** What `risk.penalty` did. */
export interface RiskPenaltyResult {
  card_uuid: string;
  penalty_amount: string;
  currency: string;
  balance_after: string;
}

/**
 * Unilateral actions of the platform and the issuer (contract 3.2, 6.4): control surface of the
 * sandbox, not public API. Each is one transaction with its event; no order is created.
 */
export interface RiskService {
  /**
   * Freezes an active card as `platform_risk` or `issuer`: status `frozen` and `card.frozen`
   * with that origin. 409 `card.state_conflict` unless the card is active.
   */
  freeze(workspaceId: number, cardUuid: string, input: RiskFreezeInput): void;
  /**
   * A confirmed-fraud ruling: moves `amount` off the card to platform revenue and emits
   * `card.risk.penalty_applied`, the only trace (D40: no row of any transaction feed lists it). The cap at the
   * available balance keeps every hold covered, so later captures never overdraw the card. 409 on a closed or
   * unissued card.
   */
  penalty(workspaceId: number, cardUuid: string, input: RiskPenaltyInput): RiskPenaltyResult;
}

export function createRiskService(ctx: Context): RiskService {
  const owned = (workspaceId: number, uuid: string): CardRow => {
    requireWorkspace(ctx, workspaceId);
    const card = typeof uuid === 'string' ? loadCard(ctx, uuid.toLowerCase()) : undefined;
    if (card === undefined || card.workspace_id !== workspaceId) throw new SandboxError(404, 'card.not_found', `No card ${String(uuid)} in this workspace.`);
    return card;
  };

  return {
    freeze(workspaceId, cardUuid, input) {
      const errors = new FieldErrors();
      const raw = (input ?? {}) as RiskFreezeInput;
      if (raw.origin !== 'platform_risk' && raw.origin !== 'issuer') errors.add('origin', 'must be platform_risk or issuer');
      const reason = raw.reason ?? null;
      if (reason !== null && (typeof reason !== 'string' || reason.length > 500)) errors.add('reason', 'must be a string of at most 500 characters');
      if (raw.appeal_terminated !== undefined && typeof raw.appeal_terminated !== 'boolean') errors.add('appeal_terminated', 'must be true or false');
      errors.throwIfAny();
      ctx.write(() => {
        const card = owned(workspaceId, cardUuid);
        if (card.status !== 'active') throw stateConflict(`Cannot freeze the card: it is ${card.status}.`);
        // D27: the origin is kept, so that a workspace unfreeze cannot lift this freeze.
        const after = setCard(ctx, card.uuid, { status: 'frozen', frozen_origin: raw.origin, ...(raw.appeal_terminated === true ? { appeal_terminated: 1 } : {}) });
        recordEvent(ctx, workspaceId, 'card.frozen', { ...cardBase(after), origin: raw.origin, reason, frozen_at: ctx.nowIso() });
      });
    },

    penalty(workspaceId, cardUuid, input) {
      const parsed = parseRequestAmount((input ?? {}).amount);
      if (!parsed.ok || parsed.value.isZero()) throw new SandboxError(422, 'validation.failed', 'The penalty amount must be a positive decimal string.', { amount: [parsed.ok ? 'must be greater than 0' : parsed.message] });
      const amount = parsed.value;
      return ctx.write(() => {
        const card = owned(workspaceId, cardUuid);
        if (!['active', 'frozen', 'pending_close'].includes(card.status)) throw stateConflict(`Cannot apply a penalty: the card is ${card.status}.`);
        const balance = accountBalance(ctx, workspaceId, card.currency, 'card', card.uuid);
        const available = balance.minus(card.held_amount);
        if (amount.greaterThan(available)) {
          throw new SandboxError(422, 'validation.failed', `The penalty exceeds the card's available balance (${fmt(available)} ${card.currency}).`, { amount: [`must be at most ${fmt(available)}`] });
        }
        post(ctx, {
          workspaceId,
          currency: card.currency,
          reason: 'card_risk_penalty',
          referenceType: 'Card',
          referenceUuid: card.uuid,
          description: input.description ?? 'Risk penalty: confirmed fraud ruling',
          legs: [
            { account: 'card', cardUuid: card.uuid, direction: 'debit', amount },
            { account: 'platform.revenue', direction: 'credit', amount },
          ],
        });
        const after = loadCard(ctx, card.uuid)!;
        const balanceAfter = fmt(money(balance.toString()).minus(amount));
        recordEvent(ctx, workspaceId, 'card.risk.penalty_applied', { ...cardBase(after), penalty_amount: fmt(amount), currency: card.currency, balance_after: balanceAfter });
        return { card_uuid: card.uuid, penalty_amount: fmt(amount), currency: card.currency, balance_after: balanceAfter };
      });
    },
  };
}
