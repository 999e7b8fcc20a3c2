// Copied by gen-card-api from templates/webhooks/lifeline.ts. Do not edit: change the template and run the generator.
/**
 * The fields of a card transaction row (contract section 2.5) that the lifeline reads. Rows carry more;
 * the reducer keeps them whole. `supplier_txn_id` is undocumented but present in practice (D23).
 */
export interface TransactionRowLike {
  uuid: string;
  type: string;
  status: string;
  amount: string;
  currency: string;
  auth_code?: string | null;
  supplier_txn_id?: string | null;
  occurred_at?: string | null;
  posted_at?: string | null;
  created_at?: string | null;
}

/** One stored row and the card it belongs to. */
export interface LifelineEntry<R extends TransactionRowLike = TransactionRowLike> {
  card_uuid: string | null;
  row: R;
}

/** Every transaction row seen, keyed by `uuid`. Treat it as immutable: the reducer returns new states. */
export interface LifelineState<R extends TransactionRowLike = TransactionRowLike> {
  readonly rows: Readonly<Record<string, LifelineEntry<R>>>;
}

/**
 * Where a purchase stands (contract section 3.3): `hold` (authorized, funds held), `settled` (captured),
 * `closed` (hold reversed), `refunded`, `disputed` (chargeback opened; see `dispute_resolved`),
 * `declined` (the side path; never part of a purchase) and `probe` (a zero-amount card check, nothing held).
 */
export type PurchaseState = 'hold' | 'settled' | 'closed' | 'refunded' | 'disputed' | 'declined' | 'probe';

/** One purchase: the rows that share a grouping key (D23) and the state they add up to. */
export interface Purchase<R extends TransactionRowLike = TransactionRowLike> {
  /** Grouping key: card plus `supplier_txn_id`, else `auth_code`, else the row's own uuid. */
  key: string;
  card_uuid: string | null;
  state: PurchaseState;
  /** Rows of the purchase, oldest first. */
  rows: R[];
  currency: string;
  /** Sum of authorizations, or null when none was seen. */
  authorized_amount: string | null;
  /** Still reducing the available balance: the authorized sum while on `hold`, else `"0.00"`. */
  held_amount: string;
  /** Sum of captures, or null. */
  settled_amount: string | null;
  /** Sum of refunds, or null. */
  refunded_amount: string | null;
  /** True once a `chargeback_resolved` row is seen (the state stays `disputed`: the outcome is not in the row). */
  dispute_resolved: boolean;
  /** Latest `occurred_at` (or `created_at`) over the rows. */
  last_occurred_at: string | null;
}

/** The empty lifeline, the reducer's starting state. */
export const emptyLifeline: LifelineState<never> = Object.freeze({ rows: Object.freeze({}) });

const time = (s: string | null | undefined) => {
  const t = s ? Date.parse(s) : Number.NaN;
  return Number.isNaN(t) ? -Infinity : t;
};

// Key-sorted JSON: the last tie-break between two versions of one uuid, so the winner never depends on arrival order.
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Which of two versions of one row to keep: a final status (posted, reversed, failed) beats `pending`,
 * then the later `posted_at`, `occurred_at`, `created_at`, then a fixed order on the content.
 * A total order, so upserting is commutative, associative and idempotent.
 */
function newer<R extends TransactionRowLike>(a: LifelineEntry<R>, b: LifelineEntry<R>): boolean {
  const diff =
    Number(a.row.status !== 'pending') - Number(b.row.status !== 'pending') ||
    time(a.row.posted_at) - time(b.row.posted_at) ||
    time(a.row.occurred_at) - time(b.row.occurred_at) ||
    time(a.row.created_at) - time(b.row.created_at);
  if (diff) return diff > 0;
  return canonical(a) > canonical(b);
}

/**
 * Upserts one row by `uuid`. Returns the same state object when nothing changes.
 *
 * @example
 * let state = upsertTransaction(emptyLifeline, row, cardUuid); // e.g. rows from GET /cards/{uuid}/transactions
 */
export function upsertTransaction<R extends TransactionRowLike>(state: LifelineState<R>, row: R, cardUuid: string | null = null): LifelineState<R> {
  const entry: LifelineEntry<R> = { card_uuid: cardUuid, row };
  const current = Object.hasOwn(state.rows, row.uuid) ? state.rows[row.uuid] : undefined;
  if (current && (current.row === row || !newer(entry, current))) return state;
  return { rows: { ...state.rows, [row.uuid]: entry } };
}

/**
 * The reducer: folds a webhook event into the lifeline. `card.transaction.*` events upsert their
 * `data.transaction`; every other event leaves the state as is, so the whole event stream can be fed in.
 *
 * @example
 * webhooks.on('card.transaction.*', (event) => { state = reduceLifeline(state, event); render(purchases(state)); });
 */
export function reduceLifeline<R extends TransactionRowLike = TransactionRowLike>(
  state: LifelineState<R>,
  event: { event: string; data: unknown },
): LifelineState<R> {
  if (!event.event.startsWith('card.transaction.')) return state;
  const data = event.data as { card_uuid?: unknown; transaction?: Partial<R> } | null;
  const tx = data?.transaction;
  if (!tx || typeof tx.uuid !== 'string' || typeof tx.type !== 'string') return state;
  return upsertTransaction(state, tx as R, typeof data.card_uuid === 'string' ? data.card_uuid : null);
}

// Fixed point at 8 decimals (D12), so sums never go through floats.
const SCALE = 8;
function toUnits(amount: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(amount.trim());
  if (!m) return 0n;
  const units = BigInt(m[2]! + (m[3] ?? '').padEnd(SCALE, '0'));
  return m[1] ? -units : units;
}

function sum(amounts: string[]): string | null {
  if (amounts.length === 0) return null;
  let total = 0n;
  let places = 2;
  for (const a of amounts) {
    total += toUnits(a);
    places = Math.max(places, a.split('.')[1]?.length ?? 0);
  }
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(SCALE + 1, '0');
  const whole = digits.slice(0, -SCALE);
  return `${negative ? '-' : ''}${whole}.${digits.slice(-SCALE, -SCALE + places || undefined)}`;
}

const isDecline = (r: TransactionRowLike) => r.type === 'decline' || (r.type === 'authorization' && r.status === 'failed');

function groupKey(e: LifelineEntry): string {
  const r = e.row;
  const card = e.card_uuid ?? '';
  if (isDecline(r)) return `${card}|decline|${r.uuid}`;
  if (r.supplier_txn_id) return `${card}|supplier|${r.supplier_txn_id}`;
  if (r.auth_code) return `${card}|auth|${r.auth_code}`;
  return `${card}|row|${r.uuid}`;
}

function stateOf(rows: TransactionRowLike[]): PurchaseState {
  const has = (type: string, status?: string) => rows.some((r) => r.type === type && (status === undefined || r.status === status));
  if (rows.some(isDecline)) return 'declined';
  if (has('chargeback_opened') || has('chargeback_resolved')) return 'disputed';
  if (has('refund')) return 'refunded';
  // An authorization row listed as posted or reversed already tells the outcome of its hold.
  if (has('capture') || has('authorization', 'posted')) return 'settled';
  if (has('reversal') || has('authorization', 'reversed')) return 'closed';
  const auths = rows.filter((r) => r.type === 'authorization');
  if (auths.length > 0 && auths.every((r) => toUnits(r.amount) === 0n)) return 'probe';
  return 'hold';
}

/**
 * Groups the rows into purchases (D23) and derives each one's state from the set of rows, never from
 * their arrival order. Declines each stand alone. Purchases come oldest first.
 *
 * Precedence when rows disagree: disputed > refunded > settled > closed > hold/probe, i.e. the furthest
 * step of the lifeline that any row proves.
 */
export function purchases<R extends TransactionRowLike>(state: LifelineState<R>): Purchase<R>[] {
  const groups = new Map<string, LifelineEntry<R>[]>();
  for (const entry of Object.values(state.rows)) {
    const key = groupKey(entry);
    const list = groups.get(key);
    if (list) list.push(entry);
    else groups.set(key, [entry]);
  }
  const result: Purchase<R>[] = [];
  for (const [key, entries] of groups) {
    const rows = entries
      .map((e) => e.row)
      .sort((a, b) => time(a.occurred_at ?? a.created_at) - time(b.occurred_at ?? b.created_at) || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
    const amounts = (type: string) => rows.filter((r) => r.type === type).map((r) => r.amount);
    const state = stateOf(rows);
    const authorized = sum(amounts('authorization'));
    const last = rows.reduce<string | null>((acc, r) => {
      const at = r.occurred_at ?? r.created_at ?? null;
      return at !== null && (acc === null || time(at) > time(acc)) ? at : acc;
    }, null);
    result.push({
      key,
      card_uuid: entries[0]!.card_uuid,
      state,
      rows,
      currency: (rows.find((r) => r.type === 'authorization') ?? rows[0]!).currency,
      authorized_amount: authorized,
      held_amount: state === 'hold' && authorized !== null ? authorized : '0.00',
      settled_amount: sum(amounts('capture')),
      refunded_amount: sum(amounts('refund')),
      dispute_resolved: rows.some((r) => r.type === 'chargeback_resolved'),
      last_occurred_at: last,
    });
  }
  return result.sort((a, b) => time(a.rows[0]!.occurred_at ?? a.rows[0]!.created_at) - time(b.rows[0]!.occurred_at ?? b.rows[0]!.created_at) || (a.key < b.key ? -1 : 1));
}
