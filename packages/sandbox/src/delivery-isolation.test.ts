/**
 * Issue 12: a receiver that hangs delays only its own endpoint, control calls never wait on deliveries, and a
 * restart on the same file keeps the sandbox time and the `webhookUrl` endpoint with what it still owed.
 * No assertion on durations: every wait is a bounded poll on a condition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { UNLIMITED } from './auth.js';
import type { WebhookTransport } from './delivery.js';
import { startSandbox, type RunningSandbox } from './http/server.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { startReceiver, type TestReceiver } from './test-receiver.js';
import { issueBody } from './test-support.js';

const receivers: TestReceiver[] = [];
const sandboxes: Sandbox[] = [];
const servers: RunningSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) s.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

const dir = mkdtempSync(join(tmpdir(), 'sandbox-isolation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A receiver checking signatures against real time (the default clock signs with it). */
async function receiver(): Promise<TestReceiver> {
  const r = await startReceiver(() => new Date());
  receivers.push(r);
  return r;
}

/** Long enough that no attempt to a hanging receiver ends during a test: only the isolation lets others through. */
const NEVER_MS = 10 * 60_000;

describe('a receiver that never answers', () => {
  it('does not keep a healthy endpoint from receiving every event', async () => {
    const sandbox = createSandbox({ orderLatencyMs: 0, webhookTimeoutMs: NEVER_MS, onError: () => undefined });
    sandboxes.push(sandbox);
    const ws = sandbox.seedDefaultWorkspace().workspace.id;
    const hanging = await receiver();
    const healthy = await receiver();
    hanging.respond = () => 'hang';
    // The hanging endpoint is registered first, so its deliveries of each event are queued first.
    hanging.secret = sandbox.webhooks.registerEndpoint(ws, { url: hanging.url, events: '*' }).secret;
    const good = sandbox.webhooks.registerEndpoint(ws, { url: healthy.url, events: '*' });
    healthy.secret = good.secret;

    for (let i = 0; i < 20; i++) sandbox.cards.create(ws, issueBody({ initial_topup_amount: '20.00' }));
    await expect.poll(() => sandbox.orders.list(ws, { per_page: 100 }).data.filter((o) => o.status === 'completed').length).toBe(20);

    const eventIds = sandbox.events.since(0).filter((e) => e.workspace_id === ws).map((e) => e.event_id);
    expect(eventIds.length).toBeGreaterThanOrEqual(20);
    await expect.poll(() => new Set(healthy.received.map((r) => r.event.event_id)).size).toBe(eventIds.length);
    expect(new Set(healthy.received.map((r) => r.event.event_id))).toEqual(new Set(eventIds));
    await expect.poll(() => sandbox.deliveries.list({ endpointId: good.id }).every((d) => d.status === 'succeeded')).toBe(true);
    expect(healthy.problems).toEqual([]);

    // The hanging endpoint holds at most its own slots (default 4); the rest of its queue waits.
    const stuck = sandbox.deliveries.list().filter((d) => d.endpoint_id !== good.id);
    expect(stuck.filter((d) => d.status === 'sending').length).toBeLessThanOrEqual(4);
    expect(stuck.filter((d) => d.status === 'pending').length).toBeGreaterThan(0);
    expect(hanging.received.length).toBeLessThanOrEqual(4);
  });

  it('loses its slot at the attempt deadline even when the transport ignores the abort signal', async () => {
    const sent: string[] = [];
    const delivered: string[] = [];
    // A transport that never settles for one URL and never looks at `signal`: only the worker's own deadline frees the slot.
    const transport: WebhookTransport = (request) => {
      sent.push(request.url);
      if (request.url.includes('stuck')) return new Promise(() => undefined);
      delivered.push(request.body);
      return Promise.resolve({ status: 204 });
    };
    const sandbox = createSandbox({ orderLatencyMs: 0, webhookTimeoutMs: 50, webhookMaxInFlightPerEndpoint: 1, webhookTransport: transport, onError: () => undefined });
    sandboxes.push(sandbox);
    const ws = sandbox.seedDefaultWorkspace().workspace.id;
    const stuck = sandbox.webhooks.registerEndpoint(ws, { url: 'http://127.0.0.1:9/stuck', events: ['order.completed'] });
    const fine = sandbox.webhooks.registerEndpoint(ws, { url: 'http://127.0.0.1:9/fine', events: ['order.completed'] });
    for (let i = 0; i < 3; i++) sandbox.cards.create(ws, issueBody({ initial_topup_amount: '20.00' }));

    await expect.poll(() => sandbox.deliveries.list({ endpointId: fine.id }).filter((d) => d.status === 'succeeded').length).toBe(3);
    // With one slot, the stuck endpoint's three deliveries were each attempted in turn: every attempt timed out.
    await expect.poll(() => sandbox.deliveries.list({ endpointId: stuck.id }).filter((d) => d.attempts >= 1).length).toBe(3);
    for (const d of sandbox.deliveries.list({ endpointId: stuck.id })) {
      if (d.attempts >= 1 && d.status === 'pending') expect(d.last_error).toBe('timed out after 50 ms');
    }
    expect(delivered).toHaveLength(3);
  });
});

describe('control calls never wait on deliveries', () => {
  it('answers clock/advance and a resend while a receiver hangs, and completes the due orders', async () => {
    const hanging = await receiver();
    hanging.respond = () => 'hang';
    // Orders take 10 minutes per step: only the advance completes them.
    const running = await startSandbox({ port: 0, orderLatencyMs: 10 * 60_000, webhookUrl: hanging.url, sandboxOptions: { webhookTimeoutMs: NEVER_MS, onError: () => undefined } });
    servers.push(running);
    hanging.secret = running.webhook!.secret;
    const { sandbox } = running;
    const ws = sandbox.auth.resolveToken(running.token!)!.workspace.id;
    const headers = { authorization: `Bearer ${running.token!}`, 'content-type': 'application/json' };
    const issue = async (): Promise<string> => {
      const answer = await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers, body: JSON.stringify(issueBody({ initial_topup_amount: '20.00' })) });
      expect(answer.status).toBe(202);
      return ((await answer.json()) as { data: { uuid: string } }).data.uuid;
    };
    const advance = async (): Promise<void> => {
      const before = Date.parse(((await (await fetch(`${running.origin}/sandbox/clock`, { headers })).json()) as { data: { now: string } }).data.now);
      const answer = await fetch(`${running.origin}/sandbox/clock/advance`, { method: 'POST', headers, body: JSON.stringify({ seconds: 3600 }) });
      expect(answer.status).toBe(200);
      expect(Date.parse(((await answer.json()) as { data: { now: string } }).data.now) - before).toBeGreaterThanOrEqual(3_600_000);
    };

    const first = await issue();
    await advance();
    expect(sandbox.orders.get(ws, first).status).toBe('completed');
    // Its order.completed went out and hangs: the attempt will not end during the test.
    await expect.poll(() => hanging.received.length).toBeGreaterThanOrEqual(1);

    const second = await issue();
    await advance();
    expect(sandbox.orders.get(ws, second).status).toBe('completed');

    const [stuck] = sandbox.deliveries.list({ status: 'sending' });
    expect(stuck).toBeDefined();
    const resent = await fetch(`${running.origin}/sandbox/webhook-deliveries/${stuck!.id}/redeliver`, { method: 'POST', headers: { authorization: headers.authorization } });
    expect(resent.status).toBe(200);
    expect(((await resent.json()) as { data: unknown }).data).toMatchObject({ id: stuck!.id, status: 'sending' });
  });
});

describe('restart on the same file', () => {
  it('keeps the sandbox time after an advance and completes the orders that fell due meanwhile', async () => {
    const file = join(dir, 'clock.db');
    const first = createSandbox({ db: file, orderLatencyMs: 1, onError: () => undefined });
    const ws = first.seedDefaultWorkspace().workspace.id;
    first.advance(3 * 3_600_000);
    const order = first.cards.create(ws, issueBody());
    const leftAt = first.clock.now().getTime();
    const lastCreated = first.orders.get(ws, order.uuid).created_at;
    first.close();

    const second = createSandbox({ db: file, orderLatencyMs: 1, onError: () => undefined });
    sandboxes.push(second);
    // The offset came back: the sandbox clock did not jump back three hours.
    expect(second.clock.now().getTime()).toBeGreaterThanOrEqual(leftAt);
    await expect.poll(() => second.orders.get(ws, order.uuid).status).toBe('completed');
    expect(second.wallet.get(ws).wallets[0]!.held_balance).toBe('0.00');
    const later = second.cards.create(ws, issueBody());
    expect(later.created_at >= lastCreated).toBe(true);
    expect(second.admin.audit()).toEqual([]);
  });

  it('reuses the webhookUrl endpoint, its secret and its pending deliveries', async () => {
    const file = join(dir, 'hooks.db');
    const hooks = await receiver();
    await hooks.stop(); // down during the first run: the delivery stays pending
    const options = { port: 0, db: file, orderLatencyMs: 0, webhookUrl: hooks.url, sandboxOptions: { webhookRetryScheduleMs: [200], webhookMaxAttempts: 1000, onError: () => undefined } };
    const first = await startSandbox(options);
    expect(first.webhook).toMatchObject({ reused: false });
    const ws = first.sandbox.auth.resolveToken(first.token!)!.workspace.id;
    const order = first.sandbox.cards.create(ws, issueBody());
    await expect.poll(() => first.sandbox.deliveries.list({ event: 'order.completed' })[0]?.attempts ?? 0).toBeGreaterThanOrEqual(1);
    // Still owed: waiting for its next retry, or in the middle of one.
    expect(['pending', 'sending']).toContain(first.sandbox.deliveries.list({ event: 'order.completed' })[0]!.status);
    const firstWebhook = first.webhook!;
    await first.close();

    await hooks.start();
    hooks.secret = firstWebhook.secret;
    const second = await startSandbox(options);
    servers.push(second);
    expect(second.webhook).toEqual({ ...firstWebhook, reused: true });
    expect(second.sandbox.webhooks.listEndpoints(ws).filter((e) => e.status === 'active').map((e) => e.id)).toEqual([firstWebhook.endpointId]);
    // The receiver verifies every request with the first run's secret.
    await expect.poll(() => hooks.received.filter((r) => r.event.event === 'order.completed').length).toBeGreaterThanOrEqual(1);
    const completed = hooks.received.find((r) => r.event.event === 'order.completed')!;
    expect(completed.event.data).toMatchObject({ order_uuid: order.uuid });
    await expect.poll(() => second.sandbox.deliveries.list({ event: 'order.completed' })[0]?.status).toBe('succeeded');
    expect(hooks.problems).toEqual([]);
  });
});

describe('rate limits a user sets', () => {
  it('applies rateLimit and ipRateLimit of startSandbox', async () => {
    const limited = await startSandbox({ port: 0, rateLimit: 2, ipRateLimit: 0 });
    servers.push(limited);
    const headers = { authorization: `Bearer ${limited.token!}` };
    const answers: Response[] = [];
    for (let i = 0; i < 3; i++) answers.push(await fetch(`${limited.baseUrl}/ping`, { headers }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('2');
    await Promise.all(answers.map((a) => a.arrayBuffer()));
    // The IP ceiling is off: a token with its own high limit is not stopped at the default 600.
    const own = limited.sandbox.admin.createToken(1, { name: 'own', abilities: [], rateLimitPerMinute: 1000 });
    const verdicts = Array.from({ length: 700 }, () => limited.sandbox.auth.checkRateLimit(own.id, '127.0.0.1'));
    expect(verdicts.every((v) => v.allowed)).toBe(true);
  });

  it('counts per IP, and reports no ceiling when both are 0', () => {
    const perIp = createSandbox({ rateLimits: { tokenPerMinute: 0, ipPerMinute: 1 } });
    sandboxes.push(perIp);
    const a = perIp.seedDefaultWorkspace().tokenId;
    expect(perIp.auth.checkRateLimit(a, '10.0.0.1')).toMatchObject({ allowed: true, scope: 'ip', limit: 1, remaining: 0 });
    expect(perIp.auth.checkRateLimit(a, '10.0.0.1')).toMatchObject({ allowed: false, scope: 'ip' });

    const open = createSandbox({ rateLimits: { tokenPerMinute: 0, ipPerMinute: 0 } });
    sandboxes.push(open);
    const b = open.seedDefaultWorkspace().tokenId;
    const verdicts = Array.from({ length: 1000 }, () => open.auth.checkRateLimit(b, '10.0.0.1'));
    expect(verdicts.every((v) => v.allowed && v.limit === UNLIMITED && v.remaining === UNLIMITED)).toBe(true);
    expect(() => createSandbox({ rateLimits: { ipPerMinute: -1 } })).toThrow(RangeError);
  });
});
