import { timeOrderedUuid } from './ids.js';
import { referenceCached, type Context } from './context.js';
import type { Statement } from './store/index.js';
import { FieldErrors, SandboxError } from './errors.js';
import { cardBase, recordEvent } from './events.js';
import { accountBalance, post } from './ledger.js';
import { fmt, money, Money } from './money.js';
import { paginate, parsePageQuery, type PageQuery } from './pagination.js';
import { purgeSecrets } from './secrets.js';
import { queueSecretsEvent } from './webhooks.js';
import { ORDER_FAILURE_REASONS, ORDER_STATUSES, ORDER_TYPES, type AcceptedOrder, type CardStatus, type Order, type OrderFailureReason, type OrderStatus, type OrderType, type Paginated, type ActionOrigin } from './types.js';

/** An order as stored. `credit_amount` / `fee_amount` split `held_amount` into what the card gets and what the platform earns (D21). */
export interface OrderRow {
  id: number;
  uuid: string;
  workspace_id: number;
  type: OrderType;
  status: OrderStatus;
  card_uuid: string | null;
  held_amount: string;
  credit_amount: string;
  fee_amount: string;
  currency: string;
  reason: string | null;
  /** Card status before a close order's stage 1, restored if the close order fails. */
  status_before: CardStatus | null;
  forced_failure_reason: OrderFailureReason | null;
  failure_reason: OrderFailureReason | null;
  next_step_at_ms: number | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  failed_at: string | null;
}

/** The stored card columns the order engine and the card service need. */
export interface CardRow {
  id: number;
  uuid: string;
  workspace_id: number;
  card_product_id: number;
  status: CardStatus;
  cardholder_type: 'user' | 'staff';
  cardholder_first_name: string;
  cardholder_last_name: string;
  pan_bin: string;
  pan_last4: string;
  currency: string;
  held_amount: string;
  lifetime_topup_amount: string;
  lifetime_spend_amount: string;
  lifetime_refund_amount: string;
  avs_billing_address: string | null;
  appeal_terminated: number;
  issued_at: string | null;
  last_active_txn_at: string | null;
  closed_at: string | null;
  /** Who froze the card (D27); null unless frozen. */
  frozen_origin: ActionOrigin | null;
  close_due_at_ms: number | null;
  close_refund_amount: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Public Order shape (contract 2.7). D29: every order names its card, an issue order the new card from acceptance
 * on: the card is listed (`pending_issue`) from then, so an order that hid it would leave a card no order names.
 */
export function toOrder(row: OrderRow): Order {
  return {
    uuid: row.uuid,
    type: row.type,
    status: row.status,
    related_card_uuid: row.card_uuid,
    held_amount: row.held_amount,
    currency: row.currency,
    created_at: row.created_at,
    failure_reason: row.failure_reason,
  };
}

/**
 * The 202 body: the Order plus `related_card_id`, the name of the contract's 202 example (D8), as the contract
 * spells every `*_id`: an integer, the card's numeric id (`card_id` of `card.issued.secrets`).
 */
export function toAcceptedOrder(ctx: Context, row: OrderRow): AcceptedOrder {
  const cardId = row.card_uuid === null ? undefined : ctx.db.pluck<[string], number>(CARD_ID_BY_UUID).get(row.card_uuid);
  return { ...toOrder(row), related_card_uuid: row.card_uuid, related_card_id: cardId ?? null };
}

/** A card's numeric id. */
const CARD_ID_BY_UUID = 'SELECT id AS card_id FROM cards WHERE uuid = ?';

/*
 * Orders and cards are read as arrays and turned into objects here, one literal each: the driver builds an object
 * row several times slower than an array for rows this wide (see CARD_DETAIL_COLUMNS in cards.ts), and these
 * two reads run in every order step and every simulated card event. The column lists name exactly the fields of
 * `OrderRow` and `CardRow`, in the order of the builders (a test reads each both ways and compares).
 */
const ORDER_COLUMNS = 'id, uuid, workspace_id, type, status, card_uuid, held_amount, credit_amount, fee_amount, currency, reason, status_before, forced_failure_reason, failure_reason, next_step_at_ms, created_at, updated_at, completed_at, failed_at';

type Raw = unknown[];

function orderFromRaw(r: Raw): OrderRow {
  return {
    id: r[0] as number,
    uuid: r[1] as string,
    workspace_id: r[2] as number,
    type: r[3] as OrderType,
    status: r[4] as OrderStatus,
    card_uuid: r[5] as string | null,
    held_amount: r[6] as string,
    credit_amount: r[7] as string,
    fee_amount: r[8] as string,
    currency: r[9] as string,
    reason: r[10] as string | null,
    status_before: r[11] as CardStatus | null,
    forced_failure_reason: r[12] as OrderFailureReason | null,
    failure_reason: r[13] as OrderFailureReason | null,
    next_step_at_ms: r[14] as number | null,
    created_at: r[15] as string,
    updated_at: r[16] as string,
    completed_at: r[17] as string | null,
    failed_at: r[18] as string | null,
  };
}

const CARD_COLUMNS =
  'id, uuid, workspace_id, card_product_id, status, cardholder_type, cardholder_first_name, cardholder_last_name, pan_bin, pan_last4, currency, held_amount, lifetime_topup_amount, lifetime_spend_amount, lifetime_refund_amount, avs_billing_address, appeal_terminated, issued_at, last_active_txn_at, closed_at, frozen_origin, close_due_at_ms, close_refund_amount, created_at, updated_at';

function cardFromRaw(r: Raw): CardRow {
  return {
    id: r[0] as number,
    uuid: r[1] as string,
    workspace_id: r[2] as number,
    card_product_id: r[3] as number,
    status: r[4] as CardStatus,
    cardholder_type: r[5] as CardRow['cardholder_type'],
    cardholder_first_name: r[6] as string,
    cardholder_last_name: r[7] as string,
    pan_bin: r[8] as string,
    pan_last4: r[9] as string,
    currency: r[10] as string,
    held_amount: r[11] as string,
    lifetime_topup_amount: r[12] as string,
    lifetime_spend_amount: r[13] as string,
    lifetime_refund_amount: r[14] as string,
    avs_billing_address: r[15] as string | null,
    appeal_terminated: r[16] as number,
    issued_at: r[17] as string | null,
    last_active_txn_at: r[18] as string | null,
    closed_at: r[19] as string | null,
    frozen_origin: r[20] as ActionOrigin | null,
    close_due_at_ms: r[21] as number | null,
    close_refund_amount: r[22] as string | null,
    created_at: r[23] as string,
    updated_at: r[24] as string,
  };
}

/** A statement whose rows are arrays in column order. */
function rawRead(ctx: Context, sql: string): Statement<unknown[], Raw> {
  return ctx.db.arrays<unknown[], Raw>(sql);
}

const ORDER_BY_UUID = `SELECT ${ORDER_COLUMNS} FROM orders WHERE uuid = ?`;
const ORDER_BY_ID = `SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ?`;
const CARD_BY_UUID = `SELECT ${CARD_COLUMNS} FROM cards WHERE uuid = ?`;

export function loadOrder(ctx: Context, uuid: string): OrderRow | undefined {
  const row = rawRead(ctx, ORDER_BY_UUID).get(uuid);
  return row === undefined ? undefined : orderFromRaw(row);
}

function loadOrderById(ctx: Context, id: number): OrderRow | undefined {
  const row = rawRead(ctx, ORDER_BY_ID).get(id);
  return row === undefined ? undefined : orderFromRaw(row);
}

export function loadCard(ctx: Context, uuid: string): CardRow | undefined {
  const row = rawRead(ctx, CARD_BY_UUID).get(uuid);
  return row === undefined ? undefined : cardFromRaw(row);
}

/** Updates card columns (and `updated_at`). Runs inside the caller's write transaction. */
export function updateCard(ctx: Context, uuid: string, fields: Partial<Record<keyof CardRow, string | number | null>>): void {
  const names = Object.keys(fields);
  const values = Object.values(fields);
  const key = names.join(',');
  // One SQL text per set of columns, reused: the statement cache then finds it without hashing a new string.
  let sql = cardUpdates.get(key);
  if (sql === undefined) cardUpdates.set(key, (sql = `UPDATE cards SET ${names.map((n) => `${n} = ?`).join(', ')}, updated_at = ? WHERE uuid = ?`));
  ctx.db.prepare(sql).run(...values, ctx.nowIso(), uuid);
}

/** SQL of `updateCard` by its comma-joined column names (the callers use a handful of column sets). */
const cardUpdates = new Map<string, string>();

/** {@link updateCard}, then the card after (for an event that describes it). */
export function setCard(ctx: Context, uuid: string, fields: Partial<Record<keyof CardRow, string | number | null>>): CardRow {
  updateCard(ctx, uuid, fields);
  return loadCard(ctx, uuid)!;
}

/** The queued forced failures by target: a table that is almost always empty, read once per change of it rather than per order. */
const forcedFailures = referenceCached(
  (ctx: Context, _all: 0): ReadonlyMap<string, OrderFailureReason> =>
    new Map(ctx.db.prepare<[], { target: string; failure_reason: OrderFailureReason }>('SELECT target, failure_reason FROM forced_failures').all().map((r) => [r.target, r.failure_reason])),
);

/** Target of `failNextOrder` for the next issue order (whose card does not exist yet). */
export const NEXT_ISSUE = 'next-issue';

/**
 * Inserts a new `pending` order, due for its first step after the configured latency, and
 * binds to it a failure queued by `failNextOrder` for its card (or for the next issue).
 * Must run inside the accepting write transaction.
 */
export function insertOrder(
  ctx: Context,
  fields: { workspaceId: number; type: OrderType; cardUuid: string; currency: string; held: Money; credit: Money; fee: Money; reason?: string | null; statusBefore?: CardStatus },
): OrderRow {
  const target = fields.type === 'issue_card' ? NEXT_ISSUE : fields.cardUuid;
  const forced = forcedFailures(ctx, 0).get(target);
  if (forced !== undefined) ctx.db.prepare('DELETE FROM forced_failures WHERE target = ?').run(target);
  const uuid = timeOrderedUuid();
  const now = ctx.nowIso();
  // The row is built from what was inserted rather than read back: one statement fewer on every card write.
  const row: Omit<OrderRow, 'id'> = {
    uuid,
    workspace_id: fields.workspaceId,
    type: fields.type,
    status: 'pending',
    card_uuid: fields.cardUuid,
    held_amount: fmt(fields.held),
    credit_amount: fmt(fields.credit),
    fee_amount: fmt(fields.fee),
    currency: fields.currency,
    reason: fields.reason ?? null,
    status_before: fields.statusBefore ?? null,
    forced_failure_reason: forced ?? null,
    failure_reason: null,
    next_step_at_ms: ctx.nowMs() + ctx.options.orderLatencyMs,
    created_at: now,
    updated_at: now,
    completed_at: null,
    failed_at: null,
  };
  const inserted = ctx.db
    .prepare<unknown[], { id: number }>(
      `INSERT INTO orders (uuid, workspace_id, type, status, card_uuid, held_amount, credit_amount, fee_amount, currency, reason, status_before, forced_failure_reason, next_step_at_ms, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .get(row.uuid, row.workspace_id, row.type, row.status, row.card_uuid, row.held_amount, row.credit_amount, row.fee_amount, row.currency, row.reason, row.status_before, row.forced_failure_reason, row.next_step_at_ms, row.created_at, row.updated_at);
  return { id: inserted!.id, ...row };
}

/** Orders of a card that have not reached `completed` or `failed`. */
export function openOrdersOfCard(ctx: Context, cardUuid: string): OrderRow[] {
  return ctx.db.prepare<[string], OrderRow>(`SELECT * FROM orders WHERE card_uuid = ? AND status NOT IN ('completed', 'failed') ORDER BY id`).all(cardUuid);
}

function completeOrder(ctx: Context, order: OrderRow): void {
  const now = ctx.nowIso();
  const card = order.card_uuid === null ? undefined : loadCard(ctx, order.card_uuid);
  if (card === undefined) throw new Error(`order ${order.uuid} has no card`);
  const ref = { workspaceId: order.workspace_id, currency: order.currency, referenceType: 'Card', referenceUuid: card.uuid };
  switch (order.type) {
    case 'issue_card':
    case 'topup_card': {
      const issue = order.type === 'issue_card';
      // The capture and the fee: two postings (two txn groups), written together.
      post(ctx, [
        {
          ...ref,
          reason: 'held_capture',
          description: issue ? 'Initial top-up loaded on the card' : 'Top-up loaded on the card',
          legs: [
            { account: 'wallet.held', direction: 'debit', amount: money(order.credit_amount) },
            { account: 'card', cardUuid: card.uuid, direction: 'credit', amount: money(order.credit_amount) },
          ],
        },
        {
          ...ref,
          reason: issue ? 'card_issue_fee' : 'card_topup_fee',
          description: issue ? 'Card issue fee' : 'Card top-up fee',
          legs: [
            { account: 'wallet.held', direction: 'debit', amount: money(order.fee_amount) },
            { account: 'platform.revenue', direction: 'credit', amount: money(order.fee_amount) },
          ],
        },
      ]);
      updateCard(ctx, card.uuid, {
        lifetime_topup_amount: fmt(money(card.lifetime_topup_amount).plus(order.credit_amount)),
        ...(issue ? { status: 'active', issued_at: now } : {}),
      });
      break;
    }
    case 'freeze': {
      // Platform risk or the issuer may have frozen the card while this order was in flight: the order still
      // completes, but the card did not change, so no second `card.frozen` is pushed.
      if (card.status === 'frozen') break;
      const after = setCard(ctx, card.uuid, { status: 'frozen', frozen_origin: 'workspace' });
      recordEvent(ctx, order.workspace_id, 'card.frozen', { ...cardBase(after), origin: 'workspace', reason: order.reason, frozen_at: now });
      break;
    }
    case 'unfreeze': {
      const after = setCard(ctx, card.uuid, { status: 'active', frozen_origin: null });
      recordEvent(ctx, order.workspace_id, 'card.unfrozen', { ...cardBase(after), reason: order.reason, unfrozen_at: now });
      break;
    }
    case 'close_card':
      // Stage 1 happened on acceptance; stage 2 (refund, `closed`) comes later, "days may pass".
      if (ctx.options.closeDelayMs !== null) updateCard(ctx, card.uuid, { close_due_at_ms: ctx.nowMs() + ctx.options.closeDelayMs });
      break;
  }
  ctx.db.prepare(`UPDATE orders SET status = 'completed', completed_at = ?, updated_at = ?, next_step_at_ms = NULL WHERE id = ?`).run(now, now, order.id);
  recordEvent(ctx, order.workspace_id, 'order.completed', { order_uuid: order.uuid, type: order.type, held_amount: order.held_amount, currency: order.currency, card_uuid: card.uuid, completed_at: now });
  // card.issued.secrets needs an async encryption, so it is queued here and recorded by the delivery worker, after order.completed.
  if (order.type === 'issue_card') {
    // No job means card.issued.secrets will never be sent for this card: nothing needs its PAN and CVV any more.
    // (Jobs are only ever queued here, so a card has none from before.)
    if (!queueSecretsEvent(ctx, order.workspace_id, card.uuid)) purgeSecrets(ctx, card.uuid);
  }
}

function failOrder(ctx: Context, order: OrderRow, reason: OrderFailureReason): void {
  const now = ctx.nowIso();
  const card = order.card_uuid === null ? undefined : loadCard(ctx, order.card_uuid);
  // Held funds go back before the failure is announced: "held funds are already back in the wallet" (3.1).
  post(ctx, {
    workspaceId: order.workspace_id,
    currency: order.currency,
    reason: 'held_release',
    description: `Hold released: ${order.type} order failed (${reason})`,
    ...(card === undefined ? {} : { referenceType: 'Card', referenceUuid: card.uuid }),
    legs: [
      { account: 'wallet.held', direction: 'debit', amount: money(order.held_amount) },
      { account: 'wallet.available', direction: 'credit', amount: money(order.held_amount) },
    ],
  });
  if (card !== undefined && order.type === 'issue_card') {
    updateCard(ctx, card.uuid, { status: 'issue_failed' });
    // The card will never be issued: its secrets are never delivered, so they are not kept.
    purgeSecrets(ctx, card.uuid);
  }
  // D32: a failed close does not undo stage 1. The card stays pending_close (no spend), as card.close_initiated
  // announced; a new close (new key) may be sent. Resuming spend here would happen with no event saying so.
  ctx.db.prepare(`UPDATE orders SET status = 'failed', failure_reason = ?, failed_at = ?, updated_at = ?, next_step_at_ms = NULL WHERE id = ?`).run(reason, now, now, order.id);
  // D29: a failed issue order names its card, now issue_failed, as every order names its card.
  recordEvent(ctx, order.workspace_id, 'order.failed', { order_uuid: order.uuid, type: order.type, card_uuid: order.card_uuid, failure_reason: reason, failed_at: now });
}

/**
 * Moves one due order a step (D17): `pending` -> `processing`, then `processing` -> its
 * outcome. The outcome is `failed` when a failure was queued for it, else `completed`.
 */
export function stepOrder(ctx: Context, orderId: number, expected?: OrderStatus): void {
  ctx.write(() => {
    // pending -> processing touches nothing but the order's own row: one guarded update, when the caller has seen
    // the order pending (the guard re-checks it under the write lock; if it no longer holds, the full path below).
    if (expected === 'pending') {
      const advanced = ctx.db
        .prepare(`UPDATE orders SET status = 'processing', next_step_at_ms = ?, updated_at = ? WHERE id = ? AND status = 'pending' AND next_step_at_ms <= ?`)
        .run(ctx.nowMs() + ctx.options.orderLatencyMs, ctx.nowIso(), orderId, ctx.nowMs());
      if (advanced.changes > 0) return;
    }
    const order = loadOrderById(ctx, orderId);
    if (order === undefined || order.next_step_at_ms === null || order.next_step_at_ms > ctx.nowMs()) return;
    if (order.status === 'pending') {
      ctx.db.prepare(`UPDATE orders SET status = 'processing', next_step_at_ms = ?, updated_at = ? WHERE id = ?`).run(ctx.nowMs() + ctx.options.orderLatencyMs, ctx.nowIso(), order.id);
    } else if (order.status === 'processing') {
      if (order.forced_failure_reason !== null) failOrder(ctx, order, order.forced_failure_reason);
      else completeOrder(ctx, order);
    }
  });
}

/**
 * Close stage 2: the card becomes `closed` and its balance goes back to the wallet
 * (`card_close_refund`), announced by `card.closed` with `refund_amount`. Needs the card in
 * `pending_close` with its close order completed (the contract puts `order.completed` before
 * `card.closed`); 409 `card.state_conflict` otherwise.
 */
export function finishClose(ctx: Context, cardUuid: string): void {
  ctx.write(() => {
    const card = loadCard(ctx, cardUuid);
    if (card === undefined) throw new SandboxError(404, 'card.not_found', `No card ${cardUuid}.`);
    if (card.status !== 'pending_close') throw new SandboxError(409, 'card.state_conflict', `The card is ${card.status}; only a pending_close card can finish closing.`);
    if (openOrdersOfCard(ctx, cardUuid).length > 0) throw new SandboxError(409, 'card.state_conflict', 'The close order of this card has not completed yet.');
    const lastClose = ctx.db.prepare<[string], { status: string }>(`SELECT status FROM orders WHERE card_uuid = ? AND type = 'close_card' ORDER BY id DESC LIMIT 1`).get(cardUuid);
    // D32: after a failed close the card waits, pending_close, for a new close order.
    if (lastClose?.status === 'failed') throw new SandboxError(409, 'card.state_conflict', 'The last close order of this card failed; send a new close (with a new idempotency key).');
    // "In-flight transactions settle first" (3.2): stage 2 waits until every hold is captured or reversed.
    if (money(card.held_amount).greaterThan(0)) throw new SandboxError(409, 'card.state_conflict', `The card still holds ${card.held_amount} ${card.currency} in pending authorizations.`);
    const balance = accountBalance(ctx, card.workspace_id, card.currency, 'card', card.uuid);
    const refund = balance.isPositive() ? balance : new Money(0);
    post(ctx, {
      workspaceId: card.workspace_id,
      currency: card.currency,
      reason: 'card_close_refund',
      referenceType: 'Card',
      referenceUuid: card.uuid,
      description: 'Residual card balance refunded on closure',
      legs: [
        { account: 'card', cardUuid: card.uuid, direction: 'debit', amount: refund },
        { account: 'wallet.available', direction: 'credit', amount: refund },
      ],
    });
    const now = ctx.nowIso();
    const after = setCard(ctx, card.uuid, { status: 'closed', closed_at: now, close_due_at_ms: null, close_refund_amount: fmt(refund) });
    recordEvent(ctx, card.workspace_id, 'card.closed', { ...cardBase(after), refund_amount: fmt(refund), currency: card.currency, closed_at: now });
  });
}

/** Open zero-amount probes (D30): the scheduler marks them `reversed` when they expire. */
const OPEN_PROBES = `type = 'authorization' AND status = 'pending' AND amount = '0.00'`;

/** When the oldest open probe expires (epoch ms), or null when none is open. */
function nextProbeExpiryMs(ctx: Context): number | null {
  const row = ctx.db.prepare<[], { at: string | null }>(`SELECT MIN(occurred_at) AS at FROM card_transactions WHERE ${OPEN_PROBES}`).get();
  return row?.at == null ? null : Date.parse(row.at) + ctx.options.probeExpiryMs;
}

/**
 * Expires every open probe whose time has come: a zero-amount authorization holds nothing and ends silently
 * (contract 3.3, no event), so its row becomes `reversed`, stamped at its expiry time (D30).
 */
function expireProbes(ctx: Context): number {
  const cutoff = new Date(ctx.nowMs() - ctx.options.probeExpiryMs).toISOString();
  return ctx.write(() => {
    const due = ctx.db.prepare<[string], { id: number; occurred_at: string }>(`SELECT id, occurred_at FROM card_transactions WHERE ${OPEN_PROBES} AND occurred_at <= ?`).all(cutoff);
    const mark = ctx.db.prepare(`UPDATE card_transactions SET status = 'reversed', posted_at = ? WHERE id = ?`);
    for (const probe of due) mark.run(new Date(Date.parse(probe.occurred_at) + ctx.options.probeExpiryMs).toISOString(), probe.id);
    return due.length;
  });
}

/** Earliest due time (epoch ms) of any scheduled work, or null when nothing waits. */
export function nextDueMs(ctx: Context): number | null {
  const row = ctx.db
    .prepare<[], { due: number | null }>(
      `SELECT MIN(due) AS due FROM (
         SELECT MIN(next_step_at_ms) AS due FROM orders WHERE next_step_at_ms IS NOT NULL
         UNION ALL SELECT MIN(close_due_at_ms) FROM cards WHERE close_due_at_ms IS NOT NULL)`,
    )
    .get();
  const due = row?.due ?? null;
  const probe = nextProbeExpiryMs(ctx);
  return due === null ? probe : probe === null ? due : Math.min(due, probe);
}

/** Due orders and closes read per query of `runDue` (each is re-checked when it runs). */
const DUE_BATCH = 32;

/**
 * Runs every piece of work due at the clock's current time, earliest first, including work
 * that becomes due while running (a zero latency chains pending -> processing -> completed
 * -> close stage 2 in one call). Returns how many steps ran; with `maxSteps`, stops after that many
 * (the scheduler's slices), leaving the rest due.
 *
 * The due work is read in batches (one query of orders, one of closes, merged by due time) rather than one item per
 * query. Work that falls due while a batch runs is due now or later, so it sorts after the batch anyway; every step
 * re-checks under the write lock that it is still due, so a batch entry another step (or process) already handled
 * does nothing.
 */
export function runDue(ctx: Context, maxSteps = Infinity): number {
  let steps = 0;
  while (steps < maxSteps) {
    const probe = nextProbeExpiryMs(ctx);
    if (probe !== null && probe <= ctx.nowMs()) steps += expireProbes(ctx);
    const now = ctx.nowMs();
    const limit = Math.max(1, Math.min(DUE_BATCH, maxSteps - steps));
    const orders = ctx.db
      .prepare<[number, number], { id: number; due: number; status: OrderStatus }>('SELECT id, next_step_at_ms AS due, status FROM orders WHERE next_step_at_ms <= ? ORDER BY next_step_at_ms, id LIMIT ?')
      .all(now, limit);
    const cards = ctx.db.prepare<[number, number], { uuid: string; due: number }>('SELECT uuid, close_due_at_ms AS due FROM cards WHERE close_due_at_ms <= ? ORDER BY close_due_at_ms, id LIMIT ?').all(now, limit);
    if (orders.length === 0 && cards.length === 0) return steps;
    let o = 0;
    let c = 0;
    while ((o < orders.length || c < cards.length) && steps < maxSteps) {
      // The orders due before the next close, as one run of steps.
      let end = o;
      const before = cards[c]?.due ?? Infinity;
      while (end < orders.length && orders[end]!.due <= before && steps + (end - o) < maxSteps) end++;
      if (end > o) {
        stepOrders(ctx, orders.slice(o, end));
        steps += end - o;
        o = end;
      } else if (c < cards.length) {
        finishCloseWhenReady(ctx, cards[c]!.uuid, now);
        c++;
        steps++;
      }
    }
  }
  return steps;
}

/**
 * Steps several due orders in one write transaction: a commit per step was a fifth of an order's background cost.
 * Order steps refuse nothing (a forced failure is an outcome, not an error), so a step that throws is a fault of
 * its own (a full in-memory database, a bug): then the whole run is rolled back and its steps run again one
 * transaction each, so that the steps before the faulty one still happen and its error reaches the caller as it
 * did before. Closes are not batched: a close that cannot finish yet is refused, and its transaction rolled back.
 */
function stepOrders(ctx: Context, due: readonly { id: number; status: OrderStatus }[]): void {
  if (due.length > 1) {
    try {
      ctx.write(() => {
        const advanced = startProcessing(ctx, due);
        // An order startProcessing did not advance takes stepOrder's full path: its guarded update just failed.
        for (const order of due) if (!advanced.has(order.id)) stepOrder(ctx, order.id);
      });
      return;
    } catch {
      // Rolled back: one transaction per step below.
    }
  }
  for (const order of due) stepOrder(ctx, order.id, order.status);
}

/**
 * pending -> processing of the batch's orders seen pending, in one statement (the step touches nothing but the
 * order's own row, so its order relative to the other steps does not matter). The guard re-checks each under the
 * write lock; the ids it did not advance take the full path of `stepOrder`.
 */
function startProcessing(ctx: Context, due: readonly { id: number; status: OrderStatus }[]): Set<number> {
  const pending = due.filter((order) => order.status === 'pending').map((order) => order.id);
  if (pending.length === 0) return new Set();
  const advanced = ctx.db
    .pluck<[number, string, string, number], number>(
      `UPDATE orders SET status = 'processing', next_step_at_ms = ?, updated_at = ?
       WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' AND next_step_at_ms <= ? RETURNING id`,
    )
    .all(ctx.nowMs() + ctx.options.orderLatencyMs, ctx.nowIso(), JSON.stringify(pending), ctx.nowMs());
  return new Set(advanced);
}

/** Close stage 2 of a card whose due time came; if it cannot finish yet, its due time moves (see below). */
function finishCloseWhenReady(ctx: Context, cardUuid: string, now: number): void {
  try {
    finishClose(ctx, cardUuid);
  } catch (error) {
    // A close that cannot finish yet (its order still running) waits for the next due check.
    if (!(error instanceof SandboxError)) throw error;
    // Waiting on holds has no due time: the capture or reversal that ends the last hold re-arms stage 2 (see transactions.ts).
    const held = money(loadCard(ctx, cardUuid)?.held_amount ?? '0').greaterThan(0);
    ctx.write(() => ctx.db.prepare('UPDATE cards SET close_due_at_ms = ? WHERE uuid = ? AND close_due_at_ms <= ?').run(held ? null : now + Math.max(1, ctx.options.orderLatencyMs), cardUuid, now));
  }
}

/** Filters of `GET /orders`. */
export interface OrderListQuery extends PageQuery {
  status?: string | undefined;
  type?: string | undefined;
}

/** `GET /orders` and `GET /orders/{uuid}`. */
export interface OrdersService {
  /** The workspace's orders, newest first (D1 envelope, D10 paging). */
  list(workspaceId: number, query?: OrderListQuery, basePath?: string): Paginated<Order>;
  /** One order of the workspace; 404 `order.not_found` otherwise. */
  get(workspaceId: number, uuid: string): Order;
}

export function createOrdersService(ctx: Context): OrdersService {
  return {
    list(workspaceId, query = {}, basePath = '/orders') {
      const errors = new FieldErrors();
      const { page, perPage } = parsePageQuery(query, errors);
      if (query.status !== undefined && !(ORDER_STATUSES as readonly string[]).includes(query.status)) errors.add('status', `must be one of ${ORDER_STATUSES.join(', ')}`);
      if (query.type !== undefined && !(ORDER_TYPES as readonly string[]).includes(query.type)) errors.add('type', `must be one of ${ORDER_TYPES.join(', ')}`);
      errors.throwIfAny();
      const where = ['workspace_id = ?'];
      const params: (string | number)[] = [workspaceId];
      if (query.status !== undefined) {
        where.push('status = ?');
        params.push(query.status);
      }
      if (query.type !== undefined) {
        where.push('type = ?');
        params.push(query.type);
      }
      const clause = where.join(' AND ');
      return ctx.read(() => {
        const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM orders WHERE ${clause}`).get(...params) as { n: number }).n;
        const rows = ctx.db.prepare<(string | number)[], OrderRow>(`SELECT * FROM orders WHERE ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...params, perPage, (page - 1) * perPage);
        return paginate(basePath, { status: query.status, type: query.type }, page, perPage, total, rows.map(toOrder));
      });
    },
    get(workspaceId, uuid) {
      const row = loadOrder(ctx, String(uuid).toLowerCase());
      if (row === undefined || row.workspace_id !== workspaceId) throw new SandboxError(404, 'order.not_found', `No order ${String(uuid)} in this workspace.`);
      return toOrder(row);
    },
  };
}

/** Checks a `failNextOrder` reason against the contract's enumeration. */
export function checkFailureReason(reason: string): OrderFailureReason {
  if (!(ORDER_FAILURE_REASONS as readonly string[]).includes(reason)) {
    throw new SandboxError(422, 'validation.failed', `Unknown order failure reason ${reason}.`, { failure_reason: [`must be one of ${ORDER_FAILURE_REASONS.join(', ')}`] });
  }
  return reason as OrderFailureReason;
}
