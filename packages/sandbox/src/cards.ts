import { timeOrderedUuid } from './ids.js';
import { annotateProduct, loadProduct, subscriptionsOf, type ProductRow } from './catalogue.js';
import type { Context } from './context.js';
import { FieldErrors, SandboxError, stateConflict } from './errors.js';
import { cardBase, recordEvent } from './events.js';
import { checkKey, once, type IdempotentOperation } from './idempotency.js';
import { balanceAfter, post, requireWorkspace } from './ledger.js';
import { fmt, minusStored, money, Money, parseRequestAmount, percentFee } from './money.js';
import { insertOrder, loadCard, loadOrder, openOrdersOfCard, toAcceptedOrder, type CardRow, type OrderRow } from './orders.js';
import { paginate, parsePageQuery, type PageQuery } from './pagination.js';
import { createCardTransactionReads, type CardTransactionReads } from './transactions.js';
import {
  CARD_STATUSES,
  CARDHOLDER_TYPES,
  type AcceptedOrder,
  type BillingAddress,
  type CardDetail,
  type CardListRow,
  type CreateCardBody,
  type Paginated,
  type ReasonBody,
  type TopupBody,
} from './types.js';

/** Filters of `GET /cards`. `status` is a comma-separated list or an array. */
export interface CardListQuery extends PageQuery {
  status?: string | string[] | undefined;
  cardholder_type?: string | undefined;
  /** D11: case-insensitive substring of the first or last name, or exact `pan_last4`. */
  search?: string | undefined;
}

/**
 * Card reads (with the transaction rows and consumption bills of `transactions.ts`) and the five card writes. Each write answers at once with the accepted Order
 * (202 semantics) and the outcome follows asynchronously (see `orders.ts`). Errors are
 * `SandboxError`s: 404 `card.not_found`, 409 `card.state_conflict` / `idempotency.key_reused`,
 * 422 `validation.failed` / `card_product.unavailable`, 402 `wallet.insufficient_balance`.
 */
export interface CardsService extends CardTransactionReads {
  list(workspaceId: number, query?: CardListQuery, basePath?: string): Paginated<CardListRow>;
  get(workspaceId: number, uuid: string): CardDetail;
  /**
   * `get` without the copy: the detail shared by every read until the next commit, frozen. For the HTTP layer,
   * whose plugin then validates and serializes an unchanged card once (see `cardApi`'s frozen bodies).
   */
  getShared(workspaceId: number, uuid: string): Readonly<CardDetail>;
  /**
   * `POST /cards`: holds `initial_topup_amount` + `card_issue_fixed` (D21; `initial_topup_amount` alone for a
   * product switched to the `deducted` reading) and creates the card in `pending_issue`, named by the order (D29).
   */
  create(workspaceId: number, body: CreateCardBody, idempotencyKey?: string): AcceptedOrder;
  /** `POST /cards/{uuid}/topup`: holds `amount` + `topup_fixed` + `amount` x `topup_percent` (D21). Active or frozen cards only. */
  topup(workspaceId: number, uuid: string, body: TopupBody, idempotencyKey?: string): AcceptedOrder;
  /** `POST /cards/{uuid}/freeze`: active card, no other freeze/unfreeze/close in flight. */
  freeze(workspaceId: number, uuid: string, body?: ReasonBody | null, idempotencyKey?: string): AcceptedOrder;
  /** `POST /cards/{uuid}/unfreeze`: frozen card, no other freeze/unfreeze/close in flight. */
  unfreeze(workspaceId: number, uuid: string, body?: ReasonBody | null, idempotencyKey?: string): AcceptedOrder;
  /** `POST /cards/{uuid}/close`: stage 1 at once (`pending_close`, `card.close_initiated`); needs an active or frozen card with no order in flight. */
  close(workspaceId: number, uuid: string, body?: ReasonBody | null, idempotencyKey?: string): AcceptedOrder;
}

interface CardWithBalance extends CardRow {
  card_balance: string;
}

/** The card's own account, `a`, beside the card `c`: its balance is the card balance (0 before any money moved). */
const CARD_BALANCE_JOIN = `LEFT JOIN accounts a ON a.workspace_id = c.workspace_id AND a.currency = c.currency AND a.code = 'card' AND a.card_uuid = c.uuid`;

/** Rows of `GET /cards`. */
const CARD_SELECT = `SELECT c.*, COALESCE(a.balance, '0.00') AS card_balance FROM cards c ${CARD_BALANCE_JOIN}`;

function maskedPan(row: CardRow): string {
  return `${row.pan_bin}******${row.pan_last4}`;
}

function toListRow(row: CardWithBalance): CardListRow {
  return {
    uuid: row.uuid,
    status: row.status,
    cardholder_type: row.cardholder_type,
    cardholder_first_name: row.cardholder_first_name,
    cardholder_last_name: row.cardholder_last_name,
    masked_pan: maskedPan(row),
    pan_last4: row.pan_last4,
    pan_bin: row.pan_bin,
    currency: row.currency,
    card_balance: row.card_balance,
    card_product_id: row.card_product_id,
    issued_at: row.issued_at,
    last_active_txn_at: row.last_active_txn_at,
    created_at: row.created_at,
  };
}

/**
 * The columns of `GET /cards/{uuid}`, in the order of {@link detailFromRaw}. The statement returns arrays: for a
 * row this wide the driver builds an array several times faster than an object keyed by column (node:sqlite: about
 * 2.5x for 25 columns; the object rows were most of the card read's cost in the request profile), and the detail is
 * then one object literal.
 */
const CARD_DETAIL_COLUMNS = [
  'c.uuid',
  'c.status',
  'c.cardholder_type',
  'c.cardholder_first_name',
  'c.cardholder_last_name',
  'c.pan_bin',
  'c.pan_last4',
  'c.currency',
  "COALESCE(a.balance, '0.00')",
  'c.card_product_id',
  'c.issued_at',
  'c.last_active_txn_at',
  'c.created_at',
  'c.workspace_id',
  'c.held_amount',
  'c.lifetime_topup_amount',
  'c.lifetime_spend_amount',
  'c.lifetime_refund_amount',
  'c.avs_billing_address',
  'p.supports_freeze',
  'p.supports_unfreeze',
  'p.supports_balance_query',
  'c.appeal_terminated',
  'c.closed_at',
  'c.updated_at',
] as const;

/** Index of each detail column in a raw row. */
const D = {
  uuid: 0,
  status: 1,
  cardholder_type: 2,
  cardholder_first_name: 3,
  cardholder_last_name: 4,
  pan_bin: 5,
  pan_last4: 6,
  currency: 7,
  card_balance: 8,
  card_product_id: 9,
  issued_at: 10,
  last_active_txn_at: 11,
  created_at: 12,
  workspace_id: 13,
  held_amount: 14,
  lifetime_topup_amount: 15,
  lifetime_spend_amount: 16,
  lifetime_refund_amount: 17,
  avs_billing_address: 18,
  supports_freeze: 19,
  supports_unfreeze: 20,
  supports_balance_query: 21,
  appeal_terminated: 22,
  closed_at: 23,
  updated_at: 24,
} as const satisfies Record<string, number>;

const CARD_DETAIL_SELECT = `SELECT ${CARD_DETAIL_COLUMNS.join(', ')}
  FROM cards c
  JOIN card_products p ON p.id = c.card_product_id
  ${CARD_BALANCE_JOIN}
  WHERE c.uuid = ?`;

/** Card details kept between commits (see `readDetail`). */
const CARD_DETAIL_CACHE_LIMIT = 1000;

/** A copy of a cached detail that shares nothing mutable with it (the billing address is the one nested object). */
function copyDetail(detail: CardDetail): CardDetail {
  const address = detail.avs_billing_address;
  return address === null ? { ...detail } : { ...detail, avs_billing_address: { ...address } };
}

/** Freezes a detail and its one nested object: a cached detail is shared, so nothing may change it. */
function freezeDetail(detail: CardDetail): CardDetail {
  if (detail.avs_billing_address !== null) Object.freeze(detail.avs_billing_address);
  return Object.freeze(detail);
}

/** A raw row of {@link CARD_DETAIL_SELECT}, typed column by column. */
type CardDetailRaw = [
  uuid: string,
  status: CardRow['status'],
  cardholder_type: CardRow['cardholder_type'],
  cardholder_first_name: string,
  cardholder_last_name: string,
  pan_bin: string,
  pan_last4: string,
  currency: string,
  card_balance: string,
  card_product_id: number,
  issued_at: string | null,
  last_active_txn_at: string | null,
  created_at: string,
  workspace_id: number,
  held_amount: string,
  lifetime_topup_amount: string,
  lifetime_spend_amount: string,
  lifetime_refund_amount: string,
  avs_billing_address: string | null,
  supports_freeze: number,
  supports_unfreeze: number,
  supports_balance_query: number,
  appeal_terminated: number,
  closed_at: string | null,
  updated_at: string,
];

function detailFromRaw(r: CardDetailRaw): CardDetail {
  const address = r[D.avs_billing_address];
  return {
    uuid: r[D.uuid],
    status: r[D.status],
    cardholder_type: r[D.cardholder_type],
    cardholder_first_name: r[D.cardholder_first_name],
    cardholder_last_name: r[D.cardholder_last_name],
    masked_pan: `${r[D.pan_bin]}******${r[D.pan_last4]}`,
    pan_last4: r[D.pan_last4],
    pan_bin: r[D.pan_bin],
    currency: r[D.currency],
    card_balance: r[D.card_balance],
    card_product_id: r[D.card_product_id],
    issued_at: r[D.issued_at],
    last_active_txn_at: r[D.last_active_txn_at],
    created_at: r[D.created_at],
    workspace_id: r[D.workspace_id],
    held_amount: r[D.held_amount],
    available_balance: minusStored(r[D.card_balance], r[D.held_amount]),
    lifetime_topup_amount: r[D.lifetime_topup_amount],
    lifetime_spend_amount: r[D.lifetime_spend_amount],
    lifetime_refund_amount: r[D.lifetime_refund_amount],
    avs_billing_address: address === null ? null : (JSON.parse(address) as BillingAddress),
    // D31: capability flags are the card's (its product's), not its status's; `status` says what applies now.
    supports_freeze: r[D.supports_freeze] === 1,
    supports_unfreeze: r[D.supports_unfreeze] === 1,
    supports_balance_query: r[D.supports_balance_query] === 1,
    appeal_terminated: r[D.appeal_terminated] === 1,
    closed_at: r[D.closed_at],
    updated_at: r[D.updated_at],
  };
}

/** Luhn check digit, so that fake PANs look like real ones to client-side validators. */
export function luhnDigit(partial: string): string {
  let total = 0;
  for (let i = 0; i < partial.length; i++) {
    let d = Number(partial[partial.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    total += d;
  }
  return String((10 - (total % 10)) % 10);
}

/** `n` decimal digits drawn from `random` (a number in [0, 1)), for PANs and CVVs. */
export function digits(random: () => number, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(Math.floor(random() * 10) % 10);
  return out;
}

/** Whether two holder names are the same name: trimmed, case-insensitive (D41). */
function sameName(given: string, onFile: string): boolean {
  return given.trim().localeCompare(onFile.trim(), 'en', { sensitivity: 'accent' }) === 0;
}

/** D35: holder names, as the spec's `CreateCardRequest`. */
const NAME_MAX = 50;
const NOTE_MAX = 1000;

function checkText(errors: FieldErrors, field: string, value: unknown, opts: { required: boolean; max: number }): string | undefined {
  if (value === undefined || value === null) {
    if (opts.required) errors.add(field, 'is required');
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.add(field, 'must be a string');
    return undefined;
  }
  if (opts.required && value.trim() === '') errors.add(field, 'must not be empty');
  else if (value.length > opts.max) errors.add(field, `must be at most ${opts.max} characters`);
  return value;
}

function checkBillingAddress(errors: FieldErrors, value: unknown): BillingAddress | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.add('billing_address', 'must be an object');
    return undefined;
  }
  const v = value as Record<string, unknown>;
  // D35: the limits of the spec's `BillingAddressInput`, which is closed.
  for (const field of Object.keys(v)) if (!['line1', 'line2', 'city', 'state', 'postal_code', 'country'].includes(field)) errors.add(`billing_address.${field}`, 'is not a billing address field');
  const line1 = checkText(errors, 'billing_address.line1', v.line1, { required: true, max: 200 });
  const line2 = checkText(errors, 'billing_address.line2', v.line2, { required: false, max: 200 });
  const city = checkText(errors, 'billing_address.city', v.city, { required: true, max: 100 });
  const state = checkText(errors, 'billing_address.state', v.state, { required: false, max: 100 });
  const postal = checkText(errors, 'billing_address.postal_code', v.postal_code, { required: true, max: 20 });
  const country = checkText(errors, 'billing_address.country', v.country, { required: true, max: 2 });
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) errors.add('billing_address.country', 'must be a 2-letter ISO country code');
  return { line1: line1 ?? '', line2: line2 ?? null, city: city ?? '', state: state ?? null, postal_code: postal ?? '', country: country ?? '' };
}

function checkReason(body: ReasonBody | null | undefined): string | null {
  const errors = new FieldErrors();
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) errors.add('body', 'must be an object or empty');
  const reason = body !== null && typeof body === 'object' ? checkText(errors, 'reason', body.reason, { required: false, max: 500 }) : undefined;
  errors.throwIfAny();
  return reason ?? null;
}

export function createCardsService(ctx: Context): CardsService {
  // The card read is the sandbox's hottest query: prepared once, with array rows (see CARD_DETAIL_COLUMNS).
  const detailRead = ctx.db.arrays<[string], CardDetailRaw>(CARD_DETAIL_SELECT);
  // Card details read back unchanged until anything is committed (ctx.generation, which also sees another
  // process's commits to a file): a suite polling a card, or a load test of reads, skips SQLite and the row's
  // conversion. Inside a write transaction the uncommitted state is read directly. A cached detail never leaves
  // this module: each read hands out a copy.
  let detailsGeneration = -1;
  let details = new Map<string, CardDetail | null>();
  const readDetail = (uuid: string): CardDetail | undefined => {
    const shared = readSharedDetail(uuid);
    return shared === undefined ? undefined : copyDetail(shared);
  };
  const readSharedDetail = (uuid: string): Readonly<CardDetail> | undefined => {
    if (ctx.db.inTransaction) {
      const row = detailRead.get(uuid);
      return row === undefined ? undefined : detailFromRaw(row);
    }
    const generation = ctx.generation();
    if (generation !== detailsGeneration || details.size >= CARD_DETAIL_CACHE_LIMIT) {
      detailsGeneration = generation;
      details = new Map();
    }
    let detail = details.get(uuid);
    if (detail === undefined) {
      const row = detailRead.get(uuid);
      detail = row === undefined ? null : freezeDetail(detailFromRaw(row));
      details.set(uuid, detail);
    }
    return detail === null ? undefined : detail;
  };
  /** A card of the workspace, or 404 (also for a card of another workspace, so that its existence does not leak). */
  const ownedCard = (workspaceId: number, uuid: string): CardRow => {
    const card = typeof uuid === 'string' ? loadCard(ctx, uuid.toLowerCase()) : undefined;
    if (card === undefined || card.workspace_id !== workspaceId) throw new SandboxError(404, 'card.not_found', `No card ${String(uuid)} in this workspace.`);
    return card;
  };

  /** Runs the shared frame of a card write: key format, one transaction, idempotency, the accepted order. */
  const accept = (workspaceId: number, operation: IdempotentOperation, key: string | undefined, request: unknown, body: () => OrderRow): AcceptedOrder => {
    checkKey(key);
    return ctx.write(() => {
      requireWorkspace(ctx, workspaceId);
      // A new order is answered as inserted; a replay reads back the order the key first created.
      let inserted: OrderRow | undefined;
      const { orderUuid, replayed } = once(ctx, { workspaceId, operation, key, request }, () => (inserted = body()).uuid);
      return toAcceptedOrder(ctx, !replayed && inserted !== undefined ? inserted : loadOrder(ctx, orderUuid)!);
    });
  };

  /** Moves `held` from available to held, or 402 when the wallet's available balance cannot cover it. */
  const hold = (workspaceId: number, currency: string, held: Money, reason: 'card_issue_held' | 'card_topup_held', cardUuid: string): void => {
    const balances = post(ctx, {
      workspaceId,
      currency,
      reason,
      referenceType: 'Card',
      referenceUuid: cardUuid,
      description: reason === 'card_issue_held' ? 'Initial top-up and issue fee held' : 'Top-up and fee held',
      legs: [
        { account: 'wallet.available', direction: 'debit', amount: held },
        { account: 'wallet.held', direction: 'credit', amount: held },
      ],
    });
    // Checked on the balance the hold left (the posting read it anyway); a refusal rolls the whole write back.
    const after = balanceAfter(balances, workspaceId, currency, 'wallet.available');
    if (after !== undefined && after.isNegative()) {
      throw new SandboxError(402, 'wallet.insufficient_balance', `The wallet's available ${currency} balance (${fmt(after.plus(held))}) cannot cover the hold of ${fmt(held)} ${currency}.`);
    }
  };

  const rejectInFlight = (card: CardRow, types: readonly string[], action: string): void => {
    const open = openOrdersOfCard(ctx, card.uuid).find((o) => types.includes(o.type));
    if (open !== undefined) throw stateConflict(`Cannot ${action} the card: a ${open.type} order (${open.uuid}) is still ${open.status}.`);
  };

  /** Whether the card's most recent close order failed (D32). */
  const lastCloseFailed = (card: CardRow): boolean =>
    ctx.db.prepare<[string], { status: string }>(`SELECT status FROM orders WHERE card_uuid = ? AND type = 'close_card' ORDER BY id DESC LIMIT 1`).get(card.uuid)?.status === 'failed';

  const rejectTerminalOrClosing = (card: CardRow, action: string): void => {
    if (card.status === 'closed' || card.status === 'issue_failed') throw stateConflict(`Cannot ${action} the card: it is ${card.status}.`);
    if (card.status === 'pending_close') throw stateConflict(`Cannot ${action} the card: it is being closed.`);
    if (card.status === 'pending_issue') throw stateConflict(`Cannot ${action} the card: it is still being issued.`);
  };

  const stateChange = (kind: 'freeze' | 'unfreeze' | 'close') => (workspaceId: number, uuid: string, body?: ReasonBody | null, idempotencyKey?: string): AcceptedOrder => {
    const reason = checkReason(body);
    return accept(workspaceId, `cards.${kind}`, idempotencyKey, { card: String(uuid).toLowerCase(), reason }, () => {
      const card = ownedCard(workspaceId, uuid);
      // D32: a card whose close failed stays pending_close and may be closed again (stage 1 already happened).
      const closeRetry = kind === 'close' && card.status === 'pending_close' && lastCloseFailed(card);
      if (!closeRetry) rejectTerminalOrClosing(card, kind);
      const product = loadProduct(ctx, card.card_product_id)!;
      if (kind === 'freeze') {
        if (card.status === 'frozen') throw stateConflict('Cannot freeze the card: it is already frozen.');
        if (product.supports_freeze !== 1) throw stateConflict(`Cannot freeze the card: its product ${product.code} does not support freezing (supports_freeze is false).`);
        rejectInFlight(card, ['freeze', 'unfreeze', 'close_card'], 'freeze');
      } else if (kind === 'unfreeze') {
        if (card.status === 'active') throw stateConflict('Cannot unfreeze the card: it is active, not frozen.');
        if (product.supports_unfreeze !== 1) throw stateConflict(`Cannot unfreeze the card: its product ${product.code} does not support unfreezing (supports_unfreeze is false).`);
        // D27: only the one who froze the card lifts the freeze.
        if (card.frozen_origin !== null && card.frozen_origin !== 'workspace') throw stateConflict(`Cannot unfreeze the card: it was frozen by ${card.frozen_origin}, and only ${card.frozen_origin} can lift that freeze.`);
        rejectInFlight(card, ['freeze', 'unfreeze', 'close_card'], 'unfreeze');
      } else {
        // Closing waits for every in-flight order, so that no top-up lands on a closed card.
        rejectInFlight(card, ['issue_card', 'topup_card', 'freeze', 'unfreeze', 'close_card'], 'close');
      }
      const zero = new Money(0);
      const order = insertOrder(ctx, {
        workspaceId,
        type: kind === 'close' ? 'close_card' : kind,
        cardUuid: card.uuid,
        currency: card.currency,
        held: zero,
        credit: zero,
        fee: zero,
        reason,
        ...(kind === 'close' ? { statusBefore: card.status } : {}),
      });
      if (kind === 'close' && !closeRetry) {
        // Stage 1 on acceptance: spend stops now (contract 3.2).
        ctx.db.prepare(`UPDATE cards SET status = 'pending_close', updated_at = ? WHERE uuid = ?`).run(ctx.nowIso(), card.uuid);
        const after = loadCard(ctx, card.uuid)!;
        recordEvent(ctx, workspaceId, 'card.close_initiated', { ...cardBase(after), origin: 'workspace', reason, close_initiated_at: ctx.nowIso() });
      }
      return order;
    });
  };

  return {
    list(workspaceId, query = {}, basePath = '/cards') {
      const errors = new FieldErrors();
      const { page, perPage } = parsePageQuery(query, errors);
      const statusText = Array.isArray(query.status) ? query.status.join(',') : query.status;
      const statuses = statusText === undefined || statusText === '' ? [] : [...new Set(statusText.split(',').map((s) => s.trim()))];
      for (const s of statuses) if (!(CARD_STATUSES as readonly string[]).includes(s)) errors.add('status', `unknown card status ${s}`);
      if (query.cardholder_type !== undefined && !(CARDHOLDER_TYPES as readonly string[]).includes(query.cardholder_type)) errors.add('cardholder_type', 'must be user or staff');
      const search = query.search?.trim();
      if (search !== undefined && search.length > 100) errors.add('search', 'must be at most 100 characters');
      errors.throwIfAny();

      const where = ['c.workspace_id = ?'];
      const params: (string | number)[] = [workspaceId];
      if (statuses.length > 0) {
        where.push(`c.status IN (${statuses.map(() => '?').join(', ')})`);
        params.push(...statuses);
      }
      if (query.cardholder_type !== undefined) {
        where.push('c.cardholder_type = ?');
        params.push(query.cardholder_type);
      }
      if (search !== undefined && search !== '') {
        const like = `%${search.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
        where.push(`(lower(c.cardholder_first_name) LIKE ? ESCAPE '\\' OR lower(c.cardholder_last_name) LIKE ? ESCAPE '\\' OR c.pan_last4 = ?)`);
        params.push(like, like, search);
      }
      const clause = where.join(' AND ');
      return ctx.read(() => {
        const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM cards c WHERE ${clause}`).get(...params) as { n: number }).n;
        const rows = ctx.db.prepare<(string | number)[], CardWithBalance>(`${CARD_SELECT} WHERE ${clause} ORDER BY c.id DESC LIMIT ? OFFSET ?`).all(...params, perPage, (page - 1) * perPage);
        const filters = { status: statuses.length > 0 ? statuses.join(',') : undefined, cardholder_type: query.cardholder_type, search: search === '' ? undefined : search };
        return paginate(basePath, filters, page, perPage, total, rows.map(toListRow));
      });
    },

    get(workspaceId, uuid) {
      // One query: the card with its balance, under ownedCard's rule (another workspace's card is a 404 too).
      const detail = typeof uuid === 'string' ? readDetail(uuid.toLowerCase()) : undefined;
      if (detail === undefined || detail.workspace_id !== workspaceId) throw new SandboxError(404, 'card.not_found', `No card ${String(uuid)} in this workspace.`);
      return detail;
    },

    getShared(workspaceId, uuid) {
      const detail = typeof uuid === 'string' ? readSharedDetail(uuid.toLowerCase()) : undefined;
      if (detail === undefined || detail.workspace_id !== workspaceId) throw new SandboxError(404, 'card.not_found', `No card ${String(uuid)} in this workspace.`);
      return detail;
    },

    create(workspaceId, body, idempotencyKey) {
      const errors = new FieldErrors();
      const raw = (body ?? {}) as unknown as Record<string, unknown>;
      if (typeof raw !== 'object' || Array.isArray(raw)) errors.add('body', 'must be an object');
      const productId = raw.card_product_id;
      const validId = typeof productId === 'number' && Number.isSafeInteger(productId);
      if (!validId) errors.add('card_product_id', productId === undefined ? 'is required' : 'must be an integer');
      const product: ProductRow | undefined = validId ? loadProduct(ctx, productId) : undefined;
      if (validId && product === undefined) errors.add('card_product_id', `no card product ${productId}`);
      const amount = parseRequestAmount(raw.initial_topup_amount);
      if (raw.initial_topup_amount === undefined) errors.add('initial_topup_amount', 'is required');
      else if (!amount.ok) errors.add('initial_topup_amount', amount.message);
      else if (product !== undefined && amount.value.lessThan(product.min_initial_topup_amount)) {
        errors.add('initial_topup_amount', `must be at least ${product.min_initial_topup_amount} ${product.currency} for this product`);
      }
      const first = checkText(errors, 'cardholder_first_name', raw.cardholder_first_name, { required: true, max: NAME_MAX });
      const last = checkText(errors, 'cardholder_last_name', raw.cardholder_last_name, { required: true, max: NAME_MAX });
      const address = checkBillingAddress(errors, raw.billing_address);
      if (address !== undefined && product !== undefined && product.supports_custom_billing_address === 0) errors.add('billing_address', 'this card product does not accept a custom billing address');
      const purpose = checkText(errors, 'purpose', raw.purpose, { required: false, max: NOTE_MAX });
      const notes = checkText(errors, 'notes', raw.notes, { required: false, max: NOTE_MAX });
      const holderType = raw.cardholder_type ?? 'user';
      if (!(CARDHOLDER_TYPES as readonly unknown[]).includes(holderType)) errors.add('cardholder_type', 'must be user or staff');
      checkKey(idempotencyKey);
      errors.throwIfAny();
      if (product === undefined || !amount.ok || first === undefined || last === undefined) throw new Error('unreachable: validated above');
      const p = product;
      const initial = amount.value;

      const request = { card_product_id: p.id, initial_topup_amount: fmt(initial), cardholder_first_name: first, cardholder_last_name: last, billing_address: address, purpose, notes, cardholder_type: holderType };
      return accept(workspaceId, 'cards.create', idempotencyKey, request, () => {
        const ws = requireWorkspace(ctx, workspaceId);
        const annotated = annotateProduct(p, ws.base_currency, subscriptionsOf(ctx, workspaceId));
        if (!annotated.available) {
          throw new SandboxError(422, 'card_product.unavailable', `The workspace may not issue ${p.code}: it needs the ${p.required_subscription_product_code ?? ''} subscription.`);
        }
        // D41: without custom holder names, the product issues in the account holder's name only.
        if (p.supports_custom_holder_name !== 1 && !(sameName(first, ws.holder_first_name) && sameName(last, ws.holder_last_name))) {
          const message = `this card product does not accept a custom cardholder name; use the account holder's, ${ws.holder_first_name} ${ws.holder_last_name}`;
          throw new SandboxError(422, 'validation.failed', 'The request is invalid.', { cardholder_first_name: [message], cardholder_last_name: [message] });
        }
        const fee = money(p.card_issue_fixed);
        // D21: the fee on top of the initial top-up (the money effect of POST /cards), or, for a product switched to
        // contract 2.1's reading, deducted from it: the hold is then the top-up and the card gets it less the fee.
        const deducted = p.issue_fee_mode === 'deducted';
        if (deducted && initial.lessThan(fee)) {
          throw new SandboxError(422, 'validation.failed', 'The request is invalid.', { initial_topup_amount: [`must be at least the issue fee, ${p.card_issue_fixed} ${p.currency}, which this product deducts from it`] });
        }
        const held = deducted ? initial : initial.plus(fee);
        const credit = deducted ? initial.minus(fee) : initial;
        const uuid = timeOrderedUuid();
        const random = ctx.options.random;
        const body15 = p.bin + digits(random, 15 - p.bin.length);
        const pan = body15 + luhnDigit(body15);
        const now = ctx.clock.now();
        const nowIso = now.toISOString();
        ctx.db
          .prepare(
            `INSERT INTO cards (uuid, workspace_id, card_product_id, status, cardholder_type, cardholder_first_name, cardholder_last_name, pan_bin, pan_last4, currency,
               held_amount, lifetime_topup_amount, lifetime_spend_amount, lifetime_refund_amount, avs_billing_address, purpose, notes, created_at, updated_at)
             VALUES (?, ?, ?, 'pending_issue', ?, ?, ?, ?, ?, ?, '0.00', '0.00', '0.00', '0.00', ?, ?, ?, ?, ?)`,
          )
          .run(uuid, workspaceId, p.id, holderType as string, first.trim(), last.trim(), pan.slice(0, 6), pan.slice(-4), p.currency, JSON.stringify(address ?? annotated.default_billing_address), purpose ?? null, notes ?? null, nowIso, nowIso);
        ctx.db
          .prepare('INSERT INTO card_secrets (card_uuid, pan, cvv, expiry_month, expiry_year) VALUES (?, ?, ?, ?, ?)')
          .run(uuid, pan, digits(random, 3), String(now.getUTCMonth() + 1).padStart(2, '0'), String(now.getUTCFullYear() + 3));
        hold(workspaceId, p.currency, held, 'card_issue_held', uuid);
        return insertOrder(ctx, { workspaceId, type: 'issue_card', cardUuid: uuid, currency: p.currency, held, credit, fee });
      });
    },

    topup(workspaceId, uuid, body, idempotencyKey) {
      const errors = new FieldErrors();
      const raw = (body ?? {}) as unknown as Record<string, unknown>;
      const amount = parseRequestAmount(raw.amount);
      if (raw.amount === undefined) errors.add('amount', 'is required');
      else if (!amount.ok) errors.add('amount', amount.message);
      const notes = checkText(errors, 'notes', raw.notes, { required: false, max: NOTE_MAX });
      checkKey(idempotencyKey);
      errors.throwIfAny();
      if (!amount.ok) throw new Error('unreachable: validated above');
      const value = amount.value;
      return accept(workspaceId, 'cards.topup', idempotencyKey, { card: String(uuid).toLowerCase(), amount: fmt(value), notes }, () => {
        const card = ownedCard(workspaceId, uuid);
        const product = loadProduct(ctx, card.card_product_id)!;
        // The minimum is a 422 even on a card in the wrong state: the request itself is wrong.
        if (value.lessThan(product.min_topup_amount)) {
          throw new SandboxError(422, 'validation.failed', `The amount must be at least ${product.min_topup_amount} ${product.currency} for this product.`, { amount: [`must be at least ${product.min_topup_amount}`] });
        }
        rejectTerminalOrClosing(card, 'top up');
        const fee = money(product.topup_fixed).plus(percentFee(value, product.topup_percent));
        const held = value.plus(fee);
        hold(workspaceId, card.currency, held, 'card_topup_held', card.uuid);
        return insertOrder(ctx, { workspaceId, type: 'topup_card', cardUuid: card.uuid, currency: card.currency, held, credit: value, fee });
      });
    },

    freeze: stateChange('freeze'),
    unfreeze: stateChange('unfreeze'),
    close: stateChange('close'),
    ...createCardTransactionReads(ctx),
  };
}
