/**
 * The access checks of contract section 5 and D16 over real HTTP: every route of the spec x { missing token,
 * invalid token, token without the ability, frozen workspace, IP outside the allowlist, rate-limited token }
 * answers the documented status and code, in a body that matches the spec.
 */
import { ABILITIES, createManualClock, type RunningSandbox } from '@card-api/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, Recorder, startTestSandbox, type SpecOperation } from './support.js';

let running: RunningSandbox;
let recorder: Recorder;
const tokens: Record<'noAbility' | 'frozen' | 'ipOutside' | 'rateLimited', string> = { noAbility: '', frozen: '', ipOutside: '', rateLimited: '' };

beforeAll(async () => {
  // A clock that does not move: the rate-limit window cannot roll over between the requests of one row.
  running = await startTestSandbox({ sandboxOptions: { clock: createManualClock('2026-06-01T12:00:10Z') } });
  recorder = new Recorder(running.baseUrl);
  const { sandbox } = running;
  const active = sandbox.admin.createWorkspace({ name: 'matrix' });
  tokens.noAbility = sandbox.admin.createToken(active.id, { name: 'no abilities', abilities: [] }).token;
  tokens.ipOutside = sandbox.admin.createToken(active.id, { name: 'office only', abilities: [...ABILITIES], ipAllowlist: ['10.0.0.0/8', '2001:db8::/32'] }).token;
  tokens.rateLimited = sandbox.admin.createToken(active.id, { name: 'one a minute', abilities: [...ABILITIES], rateLimitPerMinute: 1 }).token;
  const frozen = sandbox.admin.createWorkspace({ name: 'matrix frozen' });
  tokens.frozen = sandbox.admin.createToken(frozen.id, { name: 'frozen', abilities: [...ABILITIES] }).token;
  sandbox.admin.setWorkspaceStatus(frozen.id, 'frozen');
});

afterAll(async () => {
  await running?.close();
});

const SOME_UUID = '3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14';

/** Calls one operation with the given Authorization header (none when undefined). */
async function call(op: SpecOperation, authorization: string | undefined): Promise<{ status: number; code: unknown; headers: Headers }> {
  const url = `${running.baseUrl}${op.route.replace('{uuid}', SOME_UUID)}`;
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  let body: string | undefined;
  if (op.method === 'POST') {
    headers['content-type'] = 'application/json';
    headers['x-idempotency-key'] = `matrix-${op.operationId}`;
    body = op.route === '/cards' ? JSON.stringify({ card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'A', cardholder_last_name: 'B' }) : op.route.endsWith('/topup') ? '{"amount":"10.00"}' : '{}';
  }
  const response = await fetch(url, { method: op.method, headers, body });
  const captured = await recorder.record(op.method, url, response);
  return { status: captured.status, code: (captured.body as { error?: { code?: unknown } } | undefined)?.error?.code, headers: response.headers };
}

describe('auth matrix: every route x every refusal', () => {
  it.each(OPERATIONS.map((op) => [`${op.method} ${op.route}`, op] as const))('%s', async (_name, op) => {
    expect(await call(op, undefined)).toMatchObject({ status: 401, code: 'api.unauthenticated' });
    expect(await call(op, 'Bearer sbx_sk_0000000000000000000000000000000000000000')).toMatchObject({ status: 401, code: 'api.unauthenticated' });
    expect(await call(op, 'Basic dXNlcjpwYXNz')).toMatchObject({ status: 401, code: 'api.unauthenticated' });

    const noAbility = await call(op, `Bearer ${tokens.noAbility}`);
    if (op.operationId === 'ping') expect(noAbility.status).toBe(200);
    else expect(noAbility).toMatchObject({ status: 403, code: 'api.insufficient_ability' });

    expect(await call(op, `Bearer ${tokens.frozen}`)).toMatchObject({ status: 403, code: 'api.workspace_inactive' });
    expect(await call(op, `Bearer ${tokens.ipOutside}`)).toMatchObject({ status: 403, code: 'api.ip_not_allowed' });

    // One request a minute: the first may pass (its answer is whatever the route gives), the next is refused.
    await call(op, `Bearer ${tokens.rateLimited}`);
    const limited = await call(op, `Bearer ${tokens.rateLimited}`);
    expect(limited).toMatchObject({ status: 429, code: 'api.rate_limited' });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('1');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('every answer matches the spec (status declared, D2 body, no extra field)', () => {
    expect(recorder.captured.length).toBe(OPERATIONS.length * 8);
    expect(recorder.problems()).toEqual([]);
  });
});
