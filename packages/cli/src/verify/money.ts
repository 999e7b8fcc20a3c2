/**
 * Money invariants, on every answer verify reads (checks `money.available`, `money.ledger`): a wallet's `available`
 * is `balance - held_balance`, a card's `available_balance` is `card_balance - held_amount`, a ledger row's amount
 * is positive, and once the ledger has been read to its end every `txn_group_id` balances (debits = credits per
 * currency); the write flow also has the rows of its card's account (`account_card_uuid`) add up to its balance. Shapes are
 * recognised by their fields (contract sections 2.3, 2.8, 2.9), whichever operation returned them; all arithmetic
 * is on integers of 10^-8 (decimal strings, never floats).
 */
import type { Json, VerifyContext } from './context.js';
import { evidenceOf, type Exchange } from './http.js';
import { fromUnits, toUnits } from './writes.js';

interface LedgerRow {
  id: string;
  group: string;
  direction: string;
  amount: bigint;
  currency: string;
  card: string | null;
}

/** Objects of a JSON value, depth first (bounded: bodies are already depth-checked by the probe). */
function* objects(value: unknown, depth = 0): Generator<Json> {
  if (depth > 16 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) yield* objects(v, depth + 1);
    return;
  }
  yield value as Json;
  for (const v of Object.values(value as Json)) yield* objects(v, depth + 1);
}

/** Whether `a = b - c` holds for three decimal strings; null when one of them is not a decimal string. */
function difference(a: unknown, b: unknown, c: unknown): boolean | null {
  const [ua, ub, uc] = [toUnits(a), toUnits(b), toUnits(c)];
  return ua === null || ub === null || uc === null ? null : ua === ub - uc;
}

export class MoneyObserver {
  /** Ledger rows read with the run's own token, by id. */
  readonly ledger = new Map<string, LedgerRow>();
  readonly #ctx: VerifyContext;

  constructor(ctx: VerifyContext) {
    this.#ctx = ctx;
  }

  observe(x: Exchange): void {
    if (x.status < 200 || x.status >= 300 || !x.body || typeof x.body !== 'object') return;
    const own = x.request.token === undefined;
    const ev = [evidenceOf(x)];
    const at = `${x.method} ${x.target}`;
    for (const o of objects(x.body.data)) {
      if ('balance' in o && 'held_balance' in o && 'available' in o) {
        const ok = difference(o.available, o.balance, o.held_balance);
        this.#ctx.checks.expect('money.available', ok === false ? [`${at}: wallet ${String(o.currency)} available ${String(o.available)} is not balance ${String(o.balance)} - held_balance ${String(o.held_balance)}`] : [], `${at}: wallet ${String(o.currency)}`, ev);
      }
      if ('card_balance' in o && 'held_amount' in o && 'available_balance' in o) {
        const ok = difference(o.available_balance, o.card_balance, o.held_amount);
        this.#ctx.checks.expect('money.available', ok === false ? [`${at}: card ${String(o.uuid)} available_balance ${String(o.available_balance)} is not card_balance ${String(o.card_balance)} - held_amount ${String(o.held_amount)}`] : [], `${at}: card ${String(o.uuid)}`, ev);
      }
      if ('txn_group_id' in o && 'direction' in o && 'amount' in o) {
        const units = toUnits(o.amount);
        const problems = units === null || units <= 0n ? [`${at}: ledger row ${String(o.id)} has amount ${JSON.stringify(o.amount)}; amounts are positive, the side is the direction`] : [];
        this.#ctx.checks.expect('money.ledger', problems, `${at}: ledger row ${String(o.id)}`, ev);
        if (own && units !== null) this.ledger.set(String(o.id), { id: String(o.id), group: String(o.txn_group_id), direction: String(o.direction), amount: units, currency: String(o.currency), card: typeof o.account_card_uuid === 'string' ? o.account_card_uuid : null });
      }
    }
  }

  /** Reads the whole ledger (within --max-pages of the largest page); true when it reached the end. Rows land in `ledger` through the observer. */
  async #readLedger(): Promise<{ complete: boolean; lastPage: string[]; evidence: string[] }> {
    const ctx = this.#ctx;
    const op = ctx.spec.listOperations().find((o) => ctx.spec.pathParameters(o).length === 0 && o.operationId === 'listLedgerEntries');
    const out = { complete: false, lastPage: [] as string[], evidence: [] as string[] };
    if (!op) return out;
    const perPage = Number(ctx.spec.queryParameter(op, 'per_page')?.schema?.maximum ?? 100);
    for (let page = 1; page <= ctx.maxPages; page++) {
      const before = new Set(this.ledger.keys());
      const x = await ctx.probe.call(op.operationId, { query: { page, per_page: perPage } });
      if (out.evidence.length < 5) out.evidence.push(evidenceOf(x));
      if (x.status !== 200 || !Array.isArray(x.body?.data)) break;
      out.lastPage = (x.body.data as Json[]).map((r) => String(r?.id));
      if (x.body.data.length < perPage || typeof x.body?.links?.next !== 'string') {
        out.complete = true;
        break;
      }
      if ([...this.ledger.keys()].every((k) => before.has(k))) break;
    }
    return out;
  }

  /**
   * The rows of a card's account (`account_card_uuid`) add up to its balance, credit = inflow and debit = outflow:
   * judged while the card holds money (a closed card nets to zero whichever way its rows point).
   */
  async checkCardAccount(uuid: string): Promise<void> {
    const ctx = this.#ctx;
    const { complete } = await this.#readLedger();
    if (!complete) return;
    const rows = [...this.ledger.values()].filter((r) => r.card === uuid);
    if (rows.length === 0) return;
    const net = rows.reduce((sum, r) => sum + (r.direction === 'credit' ? r.amount : -r.amount), 0n);
    const card = await ctx.probe.call('getCard', { params: { uuid } });
    const balance = toUnits(card.body?.data?.card_balance);
    ctx.checks.expect('money.ledger', balance !== null && balance !== net ? [`card ${uuid}: card_balance ${String(card.body?.data?.card_balance)} but its ${rows.length} ledger row(s) add up to ${fromUnits(net)} (credit = inflow, debit = outflow)`] : [], `card ${uuid}: its ledger rows add up to its balance`, [evidenceOf(card)]);
  }

  /** Reads the whole ledger and judges what needs all of it: every `txn_group_id` balances per currency. */
  async finish(): Promise<void> {
    const ctx = this.#ctx;
    const { complete, lastPage, evidence } = await this.#readLedger();
    const excluded = new Set(complete ? [] : lastPage.map((id) => this.ledger.get(id)?.group));
    const groups = new Map<string, Map<string, bigint>>();
    for (const row of this.ledger.values()) {
      if (excluded.has(row.group)) continue;
      const sums = groups.get(row.group) ?? groups.set(row.group, new Map()).get(row.group)!;
      sums.set(row.currency, (sums.get(row.currency) ?? 0n) + (row.direction === 'credit' ? row.amount : row.direction === 'debit' ? -row.amount : 0n));
    }
    const problems: string[] = [];
    for (const [group, sums] of groups) for (const [currency, net] of sums) if (net !== 0n) problems.push(`txn_group_id ${group}: credits exceed debits by ${fromUnits(net)} ${currency} (debits must equal credits)`);
    if (groups.size > 0) ctx.checks.expect('money.ledger', problems.slice(0, 10), `${groups.size} txn_group_id(s) balance`, evidence);
  }
}
