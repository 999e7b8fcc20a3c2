import { timeOrderedUuid } from './ids.js';
import { referenceCached, type Context } from './context.js';
import { FieldErrors, SandboxError } from './errors.js';
import { fmt, money, Money } from './money.js';
import { paginate, parsePageQuery, type PageQuery } from './pagination.js';
import { LEDGER_REASON_CODES, type LedgerReasonCode, type LedgerRow, type Paginated, type Wallet, type WalletBalance } from './types.js';

/**
 * Chart of accounts. Every account exists per (workspace, currency); `card` accounts also per
 * card. A credit row increases the account's balance and a debit row decreases it (the
 * contract's "credit = inflow, debit = outflow"), and every posting's debits equal its credits.
 *
 * | code               | holds                                                            |
 * |--------------------|------------------------------------------------------------------|
 * | `wallet.available` | the workspace's free money: the wallet's `available`             |
 * | `wallet.held`      | money parked for accepted, unfinished orders: `held_balance`      |
 * | `card`             | money loaded on one card (`account_card_uuid`): `card_balance`    |
 * | `platform.revenue` | fees the platform earned from this workspace                      |
 * | `external.deposit` | the outside world deposits come from (goes negative as money enters) |
 * | `platform.settlement` | card spend paid out to the networks for this workspace (net of refunds) |
 *
 * Wallet `balance` = `wallet.available` + `wallet.held`; `available` = `balance` - `held_balance`.
 *
 * Postings the sandbox makes (reason codes of contract 2.11 only):
 * - `usdt_deposit`: external.deposit -> wallet.available; `usdt_deposit_fee`: wallet.available -> platform.revenue
 * - `card_issue_held` / `card_topup_held`: wallet.available -> wallet.held (on acceptance)
 * - `held_release`: wallet.held -> wallet.available (order failed)
 * - `held_capture`: wallet.held -> card; `card_issue_fee` / `card_topup_fee`: wallet.held -> platform.revenue (order completed)
 * - `card_close_refund`: card -> wallet.available (close stage 2)
 * - `card_spend`: card -> platform.settlement (a capture); `card_spend_refund`: platform.settlement -> card (a merchant refund)
 * - `card_spend_reversal`: platform.settlement -> card (a chargeback resolved for the cardholder)
 * - `card_post_close_refund`: platform.settlement -> wallet.available (a refund or won chargeback after the card closed)
 * - `risk_penalty`: wallet.available -> platform.revenue (a risk-engine fee for a declined transaction; it may take
 *   the wallet below zero, contract 2.11)
 * - `card_risk_penalty` (internal, D40): card -> platform.revenue (a confirmed-fraud ruling, `card.risk.penalty_applied`).
 *   The contract gives it no reason code and says it appears in no transaction feed, so `GET /transactions` never
 *   lists it: it is kept for the books (balances, `auditLedger`) only.
 *
 * Authorization holds are not postings: they stay on the card (`held_amount`) until a capture
 * moves money or a reversal drops them.
 */
export const ACCOUNT_CODES = ['wallet.available', 'wallet.held', 'card', 'platform.revenue', 'platform.settlement', 'external.deposit'] as const;
export type AccountCode = (typeof ACCOUNT_CODES)[number];

/** Reason codes of postings the sandbox keeps for its own books and never lists (D40). */
export const INTERNAL_REASON_CODES = ['card_risk_penalty'] as const;
export type InternalReasonCode = (typeof INTERNAL_REASON_CODES)[number];

/** One side of a posting. */
export interface Leg {
  account: AccountCode;
  /** Required for the `card` account, absent otherwise. */
  cardUuid?: string;
  direction: 'debit' | 'credit';
  amount: Money;
}

/** A balanced money movement. */
export interface Posting {
  workspaceId: number;
  currency: string;
  reason: LedgerReasonCode | InternalReasonCode;
  legs: Leg[];
  referenceType?: string;
  referenceUuid?: string;
  description?: string;
}

/** Key of one account in a posting's balance map. */
function accountKey(workspaceId: number, currency: string, code: string, cardUuid: string): string {
  return `${workspaceId}\u0000${currency}\u0000${code}\u0000${cardUuid}`;
}

/**
 * The SQL of a statement over `n` rows, built once per row count: `sql(n)` for a fixed `n` is always the same
 * string object, so the statement cache finds it without hashing a freshly built text on every posting.
 */
function perRowCount(build: (n: number) => string): (n: number) => string {
  const texts: string[] = [];
  return (n) => (texts[n] ??= build(n));
}

const repeat = (n: number, text: string, separator: string): string => Array.from({ length: n }, () => text).join(separator);

/** One account's balance (read with `pluck`; see `post` and `accountBalance`). */
const BALANCE = 'SELECT balance AS posting_balance FROM accounts WHERE workspace_id = ? AND currency = ? AND code = ? AND card_uuid = ?';

const INSERT_ENTRIES = perRowCount(
  (n) =>
    `INSERT INTO ledger_entries (workspace_id, txn_group_id, reason_code, direction, amount, currency, account_code, account_card_uuid, reference_type, reference_uuid, description, created_at)
     VALUES ${repeat(n, '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', ', ')}`,
);

const UPSERT_BALANCES = perRowCount(
  (n) =>
    `INSERT INTO accounts (workspace_id, currency, code, card_uuid, balance, created_at, updated_at) VALUES ${repeat(n, '(?, ?, ?, ?, ?, ?, ?)', ', ')}
     ON CONFLICT (workspace_id, currency, code, card_uuid) DO UPDATE SET balance = excluded.balance, updated_at = excluded.updated_at`,
);

interface AccountMove {
  workspaceId: number;
  currency: string;
  code: AccountCode;
  cardUuid: string;
  delta: Money;
}

/**
 * Writes one posting or several (the capture and the fee of a completed order): each posting's ledger rows share
 * a new `txn_group_id`, and the account balances move with them. Zero-amount legs are dropped (a fee of 0.00
 * moves nothing) and a posting with nothing left writes nothing. Must run inside the write transaction of the
 * state change it belongs to. An unbalanced posting is a programming error and throws.
 *
 * One balance read per touched account, then two statements whatever the number of legs: one multi-row insert of
 * the ledger rows, one multi-row upsert of the new balances (statements, not rows, are what a write costs here).
 * The sums are exact decimals in JS; SQLite only stores them.
 *
 * @returns the new balance of each touched account, for a caller that checks one (see `balanceAfter`)
 */
export function post(ctx: Context, postings: Posting | readonly Posting[]): PostedBalances {
  if (!ctx.db.inTransaction) throw new Error(`ledger post (${Array.isArray(postings) ? postings.map((p) => p.reason).join(', ') : (postings as Posting).reason}) outside a write transaction`);
  const now = ctx.nowIso();
  const entries: (string | number | null)[] = [];
  const moves = new Map<string, AccountMove>();
  for (const p of Array.isArray(postings) ? (postings as readonly Posting[]) : [postings as Posting]) {
    let debits = new Money(0);
    let credits = new Money(0);
    let malformed = false;
    const legs: Leg[] = [];
    for (const leg of p.legs) {
      if (leg.amount.isZero()) continue;
      if (leg.amount.isNegative() || (leg.account === 'card') !== (leg.cardUuid !== undefined)) malformed = true;
      legs.push(leg);
      if (leg.direction === 'debit') debits = debits.plus(leg.amount);
      else credits = credits.plus(leg.amount);
    }
    if (malformed || !debits.equals(credits)) throw new Error(`unbalanced or malformed posting ${p.reason}: debits ${debits.toString()} credits ${credits.toString()}`);
    if (legs.length === 0) continue;
    const group = timeOrderedUuid();
    for (const leg of legs) {
      const cardUuid = leg.cardUuid ?? '';
      entries.push(p.workspaceId, group, p.reason, leg.direction, fmt(leg.amount), p.currency, leg.account, leg.cardUuid ?? null, p.referenceType ?? null, p.referenceUuid ?? null, p.description ?? null, now);
      const key = accountKey(p.workspaceId, p.currency, leg.account, cardUuid);
      const delta = leg.direction === 'credit' ? leg.amount : leg.amount.negated();
      const move = moves.get(key);
      if (move === undefined) moves.set(key, { workspaceId: p.workspaceId, currency: p.currency, code: leg.account, cardUuid, delta });
      else move.delta = move.delta.plus(delta);
    }
  }
  const balances: PostedBalances = new Map();
  if (moves.size === 0) return balances;

  // One primary-key lookup per account: cheaper than one multi-account query, which SQLite runs as a multi-index OR
  // with a rowid set to build.
  const upserts: (string | number)[] = [];
  for (const [key, m] of moves) {
    const after = accountBalance(ctx, m.workspaceId, m.currency, m.code, m.cardUuid).plus(m.delta);
    balances.set(key, after);
    upserts.push(m.workspaceId, m.currency, m.code, m.cardUuid, fmt(after), now, now);
  }
  ctx.db.prepare(INSERT_ENTRIES(entries.length / 12)).run(...entries);
  ctx.db.prepare(UPSERT_BALANCES(moves.size)).run(...upserts);
  return balances;
}

/** The new balances of the accounts a `post` touched, by account. */
export type PostedBalances = Map<string, Money>;

/** The balance `post` left on one account, or undefined when the posting did not touch it. */
export function balanceAfter(balances: PostedBalances, workspaceId: number, currency: string, code: AccountCode, cardUuid?: string): Money | undefined {
  return balances.get(accountKey(workspaceId, currency, code, cardUuid ?? ''));
}

/** Current balance of one account (0 when it has never moved). */
export function accountBalance(ctx: Context, workspaceId: number, currency: string, code: AccountCode, cardUuid?: string): Money {
  return money(ctx.db.pluck<[number, string, string, string], string>(BALANCE).get(workspaceId, currency, code, cardUuid ?? '') ?? '0');
}

/** Creates the zero wallet accounts of a currency, so the wallet lists it before any money moves. */
export function openWallet(ctx: Context, workspaceId: number, currency: string): void {
  const now = ctx.nowIso();
  const stmt = ctx.db.prepare(`INSERT OR IGNORE INTO accounts (workspace_id, currency, code, card_uuid, balance, created_at, updated_at) VALUES (?, ?, ?, '', '0.00', ?, ?)`);
  stmt.run(workspaceId, currency, 'wallet.available', now, now);
  stmt.run(workspaceId, currency, 'wallet.held', now, now);
}

/** `GET /wallet` (contract 2.8). */
export interface WalletService {
  /** One element per currency the workspace holds, sorted by currency. */
  get(workspaceId: number): Wallet;
}

/** `GET /transactions` (contract 2.9): all ledger rows of the workspace, newest first. */
export interface LedgerService {
  list(workspaceId: number, query?: LedgerQuery, basePath?: string): Paginated<LedgerRow>;
}

/** Filters of `GET /transactions`. */
export interface LedgerQuery extends PageQuery {
  reason?: string | undefined;
  reference_type?: string | undefined;
  reference_uuid?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export function createWalletService(ctx: Context): WalletService {
  return {
    get(workspaceId) {
      return ctx.read(() => {
        const rows = ctx.db
          .prepare<[number], { currency: string; code: string; balance: string; updated_at: string }>(
            `SELECT currency, code, balance, updated_at FROM accounts WHERE workspace_id = ? AND code IN ('wallet.available', 'wallet.held') ORDER BY currency`,
          )
          .all(workspaceId);
        const byCurrency = new Map<string, { available: Money; held: Money; reconciled: string }>();
        for (const row of rows) {
          const entry = byCurrency.get(row.currency) ?? { available: new Money(0), held: new Money(0), reconciled: row.updated_at };
          if (row.code === 'wallet.available') entry.available = money(row.balance);
          else entry.held = money(row.balance);
          if (row.updated_at > entry.reconciled) entry.reconciled = row.updated_at;
          byCurrency.set(row.currency, entry);
        }
        const wallets: WalletBalance[] = [...byCurrency].map(([currency, e]) => ({
          currency,
          balance: fmt(e.available.plus(e.held)),
          held_balance: fmt(e.held),
          available: fmt(e.available),
          frozen_at: null,
          frozen_reason: null,
          // The balance is maintained in the same transaction as each ledger row, so it is reconciled as of its last movement.
          last_reconciled_at: e.reconciled,
        }));
        return { workspace_id: workspaceId, wallets };
      });
    },
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses an ISO 8601 query time into the stored form, or records a field error. */
export function parseTimeFilter(value: string | undefined, field: string, errors: FieldErrors): string | undefined {
  if (value === undefined || value === '') return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    errors.add(field, 'must be an ISO 8601 date-time');
    return undefined;
  }
  return new Date(ms).toISOString();
}

interface LedgerDbRow extends Omit<LedgerRow, 'reason_code' | 'direction'> {
  reason_code: string;
  direction: string;
}

export function createLedgerService(ctx: Context): LedgerService {
  return {
    list(workspaceId, query = {}, basePath = '/transactions') {
      const errors = new FieldErrors();
      const { page, perPage } = parsePageQuery(query, errors);
      if (query.reason !== undefined && !(LEDGER_REASON_CODES as readonly string[]).includes(query.reason)) errors.add('reason', 'must be a ledger reason code');
      if (query.reference_uuid !== undefined && !UUID.test(query.reference_uuid)) errors.add('reference_uuid', 'must be a UUID');
      const from = parseTimeFilter(query.from, 'from', errors);
      const to = parseTimeFilter(query.to, 'to', errors);
      errors.throwIfAny();

      // Timestamps are stored as toISOString() text, so text comparison is time order.
      const conditions: [string, string | number | undefined][] = [
        ['workspace_id = ?', workspaceId],
        // D40: the books' own rows (a risk ruling on card funds) are in no transaction feed.
        ['reason_code <> ?', INTERNAL_REASON_CODES[0]],
        ['reason_code = ?', query.reason],
        ['reference_type = ?', query.reference_type],
        ['reference_uuid = ?', query.reference_uuid?.toLowerCase()],
        ['created_at >= ?', from],
        ['created_at <= ?', to],
      ];
      const active = conditions.filter(([, value]) => value !== undefined);
      const clause = active.map(([sql]) => sql).join(' AND ');
      const params = active.map(([, value]) => value as string | number);

      return ctx.read(() => {
        const total = (ctx.db.prepare(`SELECT COUNT(*) AS n FROM ledger_entries WHERE ${clause}`).get(...params) as { n: number }).n;
        const rows = ctx.db
          .prepare<(string | number)[], LedgerDbRow>(
            `SELECT id, txn_group_id, reason_code, direction, amount, currency, account_code, account_card_uuid, reference_type, reference_uuid, description, created_at
             FROM ledger_entries WHERE ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`,
          )
          .all(...params, perPage, (page - 1) * perPage);
        const data = rows.map((r) => ({ ...r, reason_code: r.reason_code as LedgerReasonCode, direction: r.direction as 'debit' | 'credit' }));
        return paginate(basePath, { reason: query.reason, reference_type: query.reference_type, reference_uuid: query.reference_uuid, from: query.from, to: query.to }, page, perPage, total, data);
      });
    },
  };
}

/** A workspace's row as the services need it, cached between changes of the reference tables. */
const workspaceRow = referenceCached((ctx: Context, workspaceId: number): Readonly<WorkspaceRow> | undefined =>
  ctx.db.prepare<[number], WorkspaceRow>('SELECT id, base_currency, status, holder_first_name, holder_last_name FROM workspaces WHERE id = ?').get(workspaceId),
);

/** The workspace columns the services need. */
interface WorkspaceRow {
  id: number;
  base_currency: string;
  status: string;
  /** The account holder on file (D41). */
  holder_first_name: string;
  holder_last_name: string;
}

/** Guards a workspace id given to a service (the HTTP layer passes the authenticated one). */
export function requireWorkspace(ctx: Context, workspaceId: number): Readonly<WorkspaceRow> {
  const ws = workspaceRow(ctx, workspaceId);
  if (ws === undefined) throw new SandboxError(404, 'api.not_found', `Workspace ${workspaceId} does not exist.`);
  return ws;
}

/**
 * Checks the double-entry invariants over the whole database: every `txn_group_id` has equal
 * debits and credits in one currency, and every stored account balance equals the sum of its
 * ledger rows (credits minus debits). Returns one line per problem; empty means consistent.
 */
export function auditLedger(ctx: Context): string[] {
  return ctx.read(() => {
    const problems: string[] = [];
    const groups = new Map<string, { debit: Money; credit: Money; currencies: Set<string> }>();
    const accounts = new Map<string, Money>();
    const rows = ctx.db
      .prepare<[], { workspace_id: number; txn_group_id: string; direction: string; amount: string; currency: string; account_code: string; account_card_uuid: string | null }>(
        'SELECT workspace_id, txn_group_id, direction, amount, currency, account_code, account_card_uuid FROM ledger_entries',
      )
      .all();
    for (const r of rows) {
      const g = groups.get(r.txn_group_id) ?? { debit: new Money(0), credit: new Money(0), currencies: new Set<string>() };
      if (r.direction === 'debit') g.debit = g.debit.plus(r.amount);
      else g.credit = g.credit.plus(r.amount);
      g.currencies.add(r.currency);
      groups.set(r.txn_group_id, g);
      const key = `${r.workspace_id}|${r.currency}|${r.account_code}|${r.account_card_uuid ?? ''}`;
      accounts.set(key, (accounts.get(key) ?? new Money(0)).plus(r.direction === 'credit' ? r.amount : money(r.amount).negated()));
    }
    for (const [id, g] of groups) {
      if (!g.debit.equals(g.credit)) problems.push(`group ${id}: debits ${fmt(g.debit)} != credits ${fmt(g.credit)}`);
      if (g.currencies.size !== 1) problems.push(`group ${id}: mixes currencies ${[...g.currencies].join(', ')}`);
    }
    const stored = ctx.db.prepare<[], { workspace_id: number; currency: string; code: string; card_uuid: string; balance: string }>('SELECT workspace_id, currency, code, card_uuid, balance FROM accounts').all();
    for (const a of stored) {
      const key = `${a.workspace_id}|${a.currency}|${a.code}|${a.card_uuid}`;
      const fromLedger = accounts.get(key) ?? new Money(0);
      if (!fromLedger.equals(a.balance)) problems.push(`account ${key}: stored ${a.balance} != ledger ${fmt(fromLedger)}`);
      accounts.delete(key);
    }
    for (const key of accounts.keys()) problems.push(`account ${key}: ledger rows without an account balance`);
    return problems;
  });
}
