/**
 * Authorization and isolation, with the extra tokens the user gives from the settings screen:
 * - `authz.read-only` (`--read-only-token`): every operation the token's abilities (its ping) do not cover is refused
 *   `403 api.insufficient_ability`, writes included, and every read they cover is served;
 * - `isolation.other-workspace` (`--other-workspace-token`): nothing of this workspace is readable with the other
 *   workspace's token (404), and its own lists hold none of this workspace's resources.
 * Abilities per operation come from the spec's security requirements (their scopes are the abilities).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Json, VerifyContext } from './context.js';
import { validValue } from './generate.js';
import { answered, evidenceOf, hasCode, type Exchange, type ProbeRequest } from './http.js';
import { abilityAllows, requestBodyOf } from './inputs.js';
import type { SpecOperation } from './spec.js';

/** What this workspace was seen to hold, from every answer read with the run's own token. */
export class ResourceRegistry {
  readonly cards = new Set<string>();
  readonly orders = new Set<string>();
  readonly ledger = new Set<string>();
  readonly workspaceIds = new Set<number>();
  readonly #cardsRoute: string;

  constructor(ctx: VerifyContext) {
    this.#cardsRoute = ctx.spec.operation('listCards').route;
  }

  observe(x: Exchange): void {
    if (x.request.token !== undefined || x.status < 200 || x.status >= 300 || !x.operation) return;
    const data = x.body?.data;
    const rows: Json[] = Array.isArray(data) ? data : data && typeof data === 'object' ? [data] : [];
    const route = x.operation.route;
    for (const row of rows) {
      if (typeof row?.workspace_id === 'number') this.workspaceIds.add(row.workspace_id);
      if (typeof row?.uuid === 'string' && 'held_amount' in row && 'type' in row) this.orders.add(row.uuid);
      else if (typeof row?.uuid === 'string' && (route === this.#cardsRoute || route === `${this.#cardsRoute}/{uuid}`)) this.cards.add(row.uuid);
      if (typeof row?.related_card_uuid === 'string') this.cards.add(row.related_card_uuid);
      if ('txn_group_id' in (row ?? {}) && row?.id !== undefined) this.ledger.add(String(row.id));
    }
  }
}


/** A valid body for an operation: the first value fast-check draws for its schema (fixed seed). */
function sampleBody(ctx: VerifyContext, op: SpecOperation): unknown {
  const body = requestBodyOf(ctx, op);
  if (!body) return undefined;
  return fc.sample(validValue(ctx.spec.document, body.schema), { numRuns: 1, seed: 42 })[0];
}

/** Path parameters for an operation: a resource of this workspace when one is known, else a fresh uuid. */
function paramsFor(ctx: VerifyContext, registry: ResourceRegistry, op: SpecOperation): Record<string, string> {
  const cardsRoute = ctx.spec.operation('listCards').route;
  const ordersRoute = ctx.spec.operation('listOrders').route;
  const out: Record<string, string> = {};
  for (const p of ctx.spec.pathParameters(op)) {
    const known = op.route.startsWith(`${cardsRoute}/`) ? [...registry.cards][0] : op.route.startsWith(`${ordersRoute}/`) ? [...registry.orders][0] : undefined;
    out[String(p.name)] = known ?? randomUUID();
  }
  return out;
}

export async function runReadOnlyChecks(ctx: VerifyContext, registry: ResourceRegistry, token: string): Promise<void> {
  const { probe, spec, checks } = ctx;
  const as = { value: token, env: 'CARD_API_READ_ONLY_TOKEN' };
  const ping = await probe.call('ping', { token: as });
  if (ping.status !== 200 || !Array.isArray(ping.body?.data?.abilities)) {
    checks.fail('authz.read-only', `the read-only token's ${answered(ping)}, expected 200 with its abilities`, [evidenceOf(ping)]);
    return;
  }
  const abilities = (ping.body.data.abilities as unknown[]).map(String);
  for (const op of spec.operations) {
    const allowed = abilityAllows(ctx, op, abilities);
    // A write the token may do is not sent: this check never changes anything with a token that can.
    if (allowed && op.method !== 'GET') continue;
    const body = sampleBody(ctx, op);
    const request: Omit<ProbeRequest, 'method' | 'path'> & { params: Record<string, string> } = { params: paramsFor(ctx, registry, op), token: as, ...(body !== undefined ? { body } : {}), ...(op.method !== 'GET' ? { idempotencyKey: `verify-read-only-${randomUUID()}` } : {}) };
    const x = await probe.call(op.operationId, request);
    const problems: string[] = [];
    if (!allowed && (x.status !== 403 || !hasCode(checks, 'authz.read-only', x, 'api.insufficient_ability'))) problems.push(`${answered(x)} to a token with abilities [${abilities.join(', ')}], expected 403 api.insufficient_ability; replay: ${probe.curlOf({ ...request, method: op.method, path: probe.pathOf(op.operationId, request.params) })}`);
    if (allowed && !(x.status === 200 || (x.status === 404 && hasCode(checks, 'authz.read-only', x, /\.not_found$/)))) problems.push(`${answered(x)} to a token with abilities [${abilities.join(', ')}], which allow it: expected 200`);
    checks.expect('authz.read-only', problems, `${op.method} ${op.route}: ${allowed ? 'served' : 'refused'} (${x.status})`, [evidenceOf(x)]);
  }
}

export async function runIsolationChecks(ctx: VerifyContext, registry: ResourceRegistry, token: string, ownSlug: unknown, closedCard: string | null): Promise<void> {
  const { probe, spec, checks } = ctx;
  const as = { value: token, env: 'CARD_API_OTHER_WORKSPACE_TOKEN' };
  const id = 'isolation.other-workspace';
  const ping = await probe.call('ping', { token: as });
  if (ping.status !== 200) {
    checks.fail(id, `the other workspace's token: ${answered(ping)}, expected 200`, [evidenceOf(ping)]);
    return;
  }
  if (ping.body?.data?.workspace_slug === ownSlug) {
    checks.fail(id, `--other-workspace-token belongs to this workspace (${String(ownSlug)}): give a token of another workspace`, [evidenceOf(ping)]);
    return;
  }
  const cardsRoute = spec.operation('listCards').route;
  const ordersRoute = spec.operation('listOrders').route;
  // Reads of this workspace's resources by uuid: 404 with the resource's not-found code.
  const byUuid = spec.operations.filter((o) => o.method === 'GET' && spec.pathParameters(o).length === 1);
  for (const op of byUuid) {
    const pool = op.route.startsWith(`${cardsRoute}/`) ? registry.cards : op.route.startsWith(`${ordersRoute}/`) ? registry.orders : null;
    for (const uuid of [...(pool ?? [])].slice(0, 5)) {
      const name = String(spec.pathParameters(op)[0]!.name);
      const x = await probe.call(op.operationId, { params: { [name]: uuid }, token: as });
      const problems = x.status === 404 && hasCode(checks, id, x, /\.not_found$/) ? [] : [`${answered(x)} with another workspace's token, expected 404 (the ${op.route.startsWith(`${cardsRoute}/`) ? 'card' : 'order'} is not theirs)`];
      checks.expect(id, problems, `${op.method} ${op.route} of this workspace's ${uuid}: 404`, [evidenceOf(x)]);
    }
  }
  // Writes to this workspace's card are refused as to an unknown card (sent once the flow closed it, when it did:
  // a server that let them through answers 409, not 202, and changes nothing).
  const card = closedCard;
  if (card) {
    for (const op of spec.operations.filter((o) => o.method === 'POST' && spec.pathParameters(o).length === 1 && o.route.startsWith(`${cardsRoute}/`))) {
      const name = String(spec.pathParameters(op)[0]!.name);
      const body = sampleBody(ctx, op);
      const x = await probe.call(op.operationId, { params: { [name]: card }, token: as, idempotencyKey: `verify-other-${randomUUID()}`, ...(body !== undefined ? { body } : {}) });
      checks.expect(id, x.status === 404 && hasCode(checks, id, x, /\.not_found$/) ? [] : [`${answered(x)} with another workspace's token, expected 404 (the card is not theirs)`], `${op.method} ${op.route} of this workspace's card: 404`, [evidenceOf(x)]);
    }
  }
  // Its own lists hold nothing of this workspace; its wallet is its own.
  for (const op of spec.operations.filter((o) => o.method === 'GET' && spec.pathParameters(o).length === 0 && o.operationId !== 'ping')) {
    const isList = spec.listOperations().includes(op);
    const max = Number(spec.queryParameter(op, 'per_page')?.schema?.maximum ?? 100);
    const x = await probe.call(op.operationId, { token: as, ...(isList ? { query: { per_page: max } } : {}) });
    const data = x.body?.data;
    const rows: Json[] = Array.isArray(data) ? data : data && typeof data === 'object' ? [data] : [];
    const problems: string[] = [];
    for (const row of rows) {
      if (typeof row?.uuid === 'string' && (registry.cards.has(row.uuid) || registry.orders.has(row.uuid))) problems.push(`${x.method} ${x.target} with another workspace's token lists ${row.uuid} of this workspace`);
      if (typeof row?.account_card_uuid === 'string' && registry.cards.has(row.account_card_uuid)) problems.push(`${x.method} ${x.target} with another workspace's token lists a ledger row of this workspace's card ${row.account_card_uuid}`);
      if (row && 'txn_group_id' in row && registry.ledger.has(String(row.id))) problems.push(`${x.method} ${x.target} with another workspace's token lists this workspace's ledger row ${String(row.id)}`);
      if (typeof row?.workspace_id === 'number' && registry.workspaceIds.has(row.workspace_id)) problems.push(`${x.method} ${x.target} with another workspace's token answers with this workspace's workspace_id ${row.workspace_id}`);
    }
    if (x.status === 200) checks.expect(id, problems.slice(0, 5), `${op.method} ${op.route}: none of this workspace's resources`, [evidenceOf(x)]);
  }
}
