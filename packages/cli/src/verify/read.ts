/**
 * Read-only checks: the token check, the documented refusals, a pagination walk of every list operation the
 * spec declares, and each listed card and order fetched by uuid and compared with its row. Nothing here
 * changes state on the server.
 */
import { randomUUID } from 'node:crypto';
import { listCheckId } from './checks.js';
import { jsonEqual, type Json, type VerifyContext } from './context.js';
import { evidenceOf, hasCode, type Exchange } from './http.js';
import { needsToken } from './inputs.js';
import type { SpecOperation } from './spec.js';

const errorCode = (x: Exchange): unknown => x.body?.error?.code;

/** Records whether an answer is the expected refusal (status and error code). */
function expectRefusal(ctx: VerifyContext, id: string, x: Exchange, status: number, code: string): void {
  const problems: string[] = [];
  if (x.status !== status) problems.push(`${x.method} ${x.target}: expected ${status}, got ${x.status}`);
  if (!hasCode(ctx.checks, id, x, code)) problems.push(`${x.method} ${x.target}: expected error code ${code}, got ${JSON.stringify(errorCode(x) ?? null)}`);
  ctx.checks.expect(id, problems, `${x.method} ${x.target} ${x.status} ${code}`, [evidenceOf(x)]);
}

/** Token check and the documented refusals. */
export async function runAuthAndRefusals(ctx: VerifyContext): Promise<Json | null> {
  const { probe, spec, checks } = ctx;
  const ping = spec.operation('ping');
  const ok = await probe.call(ping.operationId);
  checks.expect('auth.ping', ok.status === 200 && ok.body?.data && typeof ok.body.data === 'object' ? [] : [`${ok.method} ${ok.target}: expected 200 with data, got ${ok.status}`], `${ok.method} ${ok.target} 200`, [evidenceOf(ok)]);

  // No token and an unknown token, on every route that needs one (an unknown uuid for path parameters, no body).
  for (const op of spec.operations.filter((o) => needsToken(ctx, o))) {
    const params = Object.fromEntries(spec.pathParameters(op).map((p) => [String(p.name), randomUUID()]));
    expectRefusal(ctx, 'auth.no-token', await probe.call(op.operationId, { params, auth: 'none' }), 401, 'api.unauthenticated');
    expectRefusal(ctx, 'auth.bad-token', await probe.call(op.operationId, { params, auth: 'bad' }), 401, 'api.unauthenticated');
  }
  expectRefusal(ctx, 'refusal.card-not-found', await probe.call('getCard', { params: { uuid: randomUUID() } }), 404, 'card.not_found');
  expectRefusal(ctx, 'refusal.order-not-found', await probe.call('getOrder', { params: { uuid: randomUUID() } }), 404, 'order.not_found');

  // Invalid queries, derived from each list's declared parameters.
  for (const op of spec.listOperations().filter((o) => spec.pathParameters(o).length === 0)) {
    const perPage = spec.queryParameter(op, 'per_page');
    const minimum = Number(perPage?.schema?.minimum ?? 1);
    expectRefusal(ctx, 'refusal.per-page-zero', await probe.call(op.operationId, { query: { per_page: minimum - 1 } }), 422, 'validation.failed');
    const status = spec.queryParameter(op, 'status');
    if (status && spec.enumOf(status.schema).length > 0) {
      const bad = 'verify_not_a_status';
      expectRefusal(ctx, 'refusal.bad-status', await probe.call(op.operationId, { query: { status: bad } }), 422, 'validation.failed');
    }
  }
  checks.skip('refusal.bad-status', 'no list without path parameters declares an enumerated status filter');

  const unknown = await probe.request({ method: 'GET', path: `/verify-unknown-route-${randomUUID().slice(0, 8)}` });
  expectRefusal(ctx, 'refusal.unknown-route', unknown, 404, 'api.not_found');
  return ok.status === 200 && ok.body?.data && typeof ok.body.data === 'object' ? (ok.body.data as Json) : null;
}

function pageOfLink(link: unknown): { page: number | null; perPage: number | null } | null {
  if (typeof link !== 'string') return null;
  try {
    const url = new URL(link, 'http://relative.invalid/');
    const page = url.searchParams.get('page');
    const perPage = url.searchParams.get('per_page');
    return { page: page === null ? null : Number(page), perPage: perPage === null ? null : Number(perPage) };
  } catch {
    return null;
  }
}

/** The problems of one page of a D1 envelope, given the page and per_page asked for. */
function pageProblems(x: Exchange, page: number, perPage: number): string[] {
  const where = `${x.method} ${x.target}`;
  const problems: string[] = [];
  const { data, meta, links } = (x.body ?? {}) as Json;
  if (!Array.isArray(data) || !meta || typeof meta !== 'object' || !links || typeof links !== 'object') return [`${where}: not a paginated envelope (data, meta, links)`];
  if (meta.current_page !== page) problems.push(`${where}: meta.current_page is ${meta.current_page}, asked for ${page}`);
  if (meta.per_page !== perPage) problems.push(`${where}: meta.per_page is ${meta.per_page}, asked for ${perPage}`);
  if (data.length > perPage) problems.push(`${where}: ${data.length} items on a page of ${perPage}`);
  const lastPage = Math.max(1, Math.ceil(Number(meta.total) / perPage));
  if (meta.last_page !== lastPage) problems.push(`${where}: meta.last_page is ${meta.last_page}, total ${meta.total} at ${perPage} per page makes ${lastPage}`);
  if (data.length === 0) {
    if (meta.from !== null || meta.to !== null) problems.push(`${where}: an empty page has from ${meta.from} and to ${meta.to}, expected null`);
    if (page <= lastPage && meta.total > 0) problems.push(`${where}: page ${page} of ${lastPage} is empty although total is ${meta.total}`);
  } else {
    const from = (page - 1) * perPage + 1;
    if (meta.from !== from || meta.to !== from + data.length - 1) problems.push(`${where}: from/to are ${meta.from}/${meta.to}, expected ${from}/${from + data.length - 1}`);
  }
  const prev = pageOfLink(links.prev);
  const next = pageOfLink(links.next);
  if (page === 1 ? links.prev !== null : prev?.page !== page - 1) problems.push(`${where}: links.prev is ${JSON.stringify(links.prev)} on page ${page}`);
  if (page >= lastPage ? links.next !== null : next?.page !== page + 1 || next.perPage !== perPage) problems.push(`${where}: links.next is ${JSON.stringify(links.next)} on page ${page} of ${lastPage}`);
  if (pageOfLink(links.first)?.page !== 1) problems.push(`${where}: links.first ${JSON.stringify(links.first)} is not page 1`);
  if (pageOfLink(links.last)?.page !== lastPage) problems.push(`${where}: links.last ${JSON.stringify(links.last)} is not page ${lastPage}`);
  return problems;
}

const itemKey = (item: Json): string => String(item?.uuid ?? item?.id ?? JSON.stringify(item));

/**
 * Walks one list from page 1 along `links.next` to the end (or `maxPages`), checking every page's envelope and,
 * when the walk reached the end, that the pages hold `total` distinct items. Returns the items read.
 */
export async function walkList(ctx: VerifyContext, op: SpecOperation, params: Record<string, string> = {}): Promise<Json[]> {
  const id = listCheckId(op.operationId);
  const perPage = Math.min(ctx.perPage, Number(ctx.spec.queryParameter(op, 'per_page')?.schema?.maximum ?? ctx.perPage));
  const items: Json[] = [];
  const evidence: string[] = [];
  const problems: string[] = [];
  let x = await ctx.probe.call(op.operationId, { params, query: { page: 1, per_page: perPage } });
  let page = 1;
  let total: number | undefined;
  // The spec says which lists are newest first (their description); items then never get newer down the walk.
  const newestFirst = /newest first/i.test(String(op.op.description ?? ''));
  let previous = Infinity;
  for (;;) {
    evidence.push(evidenceOf(x));
    if (x.status !== 200) {
      problems.push(`${x.method} ${x.target}: expected 200, got ${x.status}`);
      break;
    }
    problems.push(...pageProblems(x, page, perPage));
    const { data, meta, links } = (x.body ?? {}) as Json;
    if (Array.isArray(data)) items.push(...(data as Json[]));
    if (total === undefined) total = meta?.total;
    else if (meta?.total !== total) problems.push(`${x.method} ${x.target}: meta.total changed from ${total} to ${meta?.total} during the walk`);
    if (newestFirst) {
      for (const item of Array.isArray(data) ? (data as Json[]) : []) {
        const t = Date.parse(item?.created_at);
        if (!Number.isNaN(t) && t > previous) problems.push(`${x.method} ${x.target}: ${itemKey(item)} (created_at ${String(item.created_at)}) comes after a newer item; the list is newest first`);
        if (!Number.isNaN(t)) previous = t;
      }
    }
    if (typeof links?.next !== 'string') {
      const keys = new Set(items.map(itemKey));
      if (keys.size !== items.length) problems.push(`${op.operationId}: ${items.length - keys.size} item(s) appear on two pages`);
      if (typeof total === 'number' && items.length !== total) problems.push(`${op.operationId}: the pages hold ${items.length} items, meta.total says ${total}`);
      break;
    }
    if (page >= ctx.maxPages) {
      ctx.log(`verify: ${op.operationId}: stopped after --max-pages ${ctx.maxPages}`);
      break;
    }
    try {
      x = await ctx.probe.follow(links.next);
    } catch (error) {
      problems.push(`${op.operationId}: ${(error as Error).message}`);
      break;
    }
    page += 1;
  }
  const label = `${op.operationId}${Object.keys(params).length > 0 ? ` (${Object.values(params).join(', ')})` : ''}: ${page} page(s), ${items.length} item(s)`;
  ctx.checks.expect(id, problems, label, evidence.slice(0, 10));
  return items;
}

/** Compares a detail read with its list row: every field of the row that the detail carries is equal. */
async function fetchEach(ctx: VerifyContext, checkId: string, getOperationId: string, rows: Json[]): Promise<void> {
  for (const row of rows.slice(0, ctx.maxItems)) {
    if (typeof row?.uuid !== 'string') continue;
    const x = await ctx.probe.call(getOperationId, { params: { uuid: row.uuid } });
    const problems: string[] = [];
    if (x.status !== 200) problems.push(`${x.method} ${x.target}: expected 200, got ${x.status}`);
    else {
      const detail = (x.body?.data ?? {}) as Json;
      // Fields missing on either side are the schema check's business; here only values are compared.
      const differing = Object.keys(row).filter((k) => k in detail && !jsonEqual(row[k], detail[k]));
      if (differing.length > 0) problems.push(`${x.method} ${x.target}: ${differing.join(', ')} differ from the list row`);
    }
    ctx.checks.expect(checkId, problems, `${row.uuid} matches its row`, [evidenceOf(x)]);
  }
}

/** Every list walked; cards and orders fetched one by one; nested lists under the first cards. */
export async function runReadChecks(ctx: VerifyContext): Promise<void> {
  const { spec, checks } = ctx;
  const lists = spec.listOperations();
  const cardsOp = spec.operation('listCards');
  const ordersOp = spec.operation('listOrders');
  let cards: Json[] = [];
  let orders: Json[] = [];
  for (const op of lists.filter((o) => spec.pathParameters(o).length === 0)) {
    const items = await walkList(ctx, op);
    if (op === cardsOp) cards = items;
    if (op === ordersOp) orders = items;
  }
  // Lists under a card: walked for the first few listed cards.
  const nested = lists.filter((o) => spec.pathParameters(o).length > 0);
  const underCards = cards.filter((c) => typeof c?.uuid === 'string').slice(0, 3);
  for (const op of nested) {
    const names = spec.pathParameters(op).map((p) => String(p.name));
    if (names.length !== 1 || !op.route.startsWith(cardsOp.route) || underCards.length === 0) {
      checks.skip(listCheckId(op.operationId), underCards.length === 0 ? 'no card in the workspace to list under (run with --allow-writes to issue one)' : 'path parameters verify cannot fill');
      continue;
    }
    for (const card of underCards) await walkList(ctx, op, { [names[0]!]: card.uuid });
  }
  if (cards.length === 0) checks.skip('read.card-matches-row', 'no card listed');
  if (orders.length === 0) checks.skip('read.order-matches-row', 'no order listed');
  await fetchEach(ctx, 'read.card-matches-row', 'getCard', cards);
  await fetchEach(ctx, 'read.order-matches-row', 'getOrder', orders);
  // The single reads without parameters (wallet, products) are checked by the http.* checks only.
  for (const op of spec.operations.filter((o) => o.method === 'GET' && o.parameters.length === 0 && !lists.includes(o) && o.operationId !== 'ping')) {
    await ctx.probe.call(op.operationId);
  }
}
