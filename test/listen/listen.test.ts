/**
 * `listen`, `trigger`, fixtures and `events` end to end on loopback: a real sandbox in this process (port 0), a
 * listen session forwarding to an app whose receiver is built with `@card-api/webhooks` and verifies every
 * delivery with the secret listen printed. One sandbox serves every trigger case (each issues its own card).
 * No waits on time: every wait is bounded and ends on an event, the retry comes from advancing the sandbox clock.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSandbox, type RunningSandbox } from '@card-api/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget, SandboxApi, UnreachableError, type Target } from '../../packages/cli/src/sandbox-tools/api.js';
import { listEndpoints } from '../../packages/cli/src/sandbox-tools/deliveries.js';
import { loadDocs } from '../../packages/cli/src/sandbox-tools/docs.js';
import type { Output } from '../../packages/cli/src/sandbox-tools/errors.js';
import { runEventsList, runEventsResend } from '../../packages/cli/src/sandbox-tools/events.js';
import { runFixture } from '../../packages/cli/src/sandbox-tools/fixtures.js';
import { LISTEN_DESCRIPTION, startListen, type ForwardRecord, type ListenSession } from '../../packages/cli/src/sandbox-tools/listen.js';
import { runTrigger } from '../../packages/cli/src/sandbox-tools/trigger.js';
import { App } from './app.js';
import { WAIT_MS } from '../helpers/limits.js';

const docs = await loadDocs();

/** Output captured per stream. */
function capture(): Output & { lines: string[]; logs: string[] } {
  const lines: string[] = [];
  const logs: string[] = [];
  return { lines, logs, out: (l) => void lines.push(l), log: (l) => void logs.push(l) };
}

/** Resolves when the session reports the sandbox `up` or `down`; rejects after `timeoutMs`. */
function status(session: ListenSession, wanted: 'up' | 'down', timeoutMs = WAIT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      session.off('status', listener);
      reject(new Error(`listen did not report the sandbox ${wanted} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (value: 'up' | 'down'): void => {
      if (value !== wanted) return;
      clearTimeout(timer);
      session.off('status', listener);
      resolve();
    };
    session.on('status', listener);
  });
}

let sandbox: RunningSandbox;
let target: Target;
let app: App;
let session: ListenSession;
const io = capture();
const records: ForwardRecord[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, sandboxOptions: { rateLimits: { tokenPerMinute: 0, ipPerMinute: 0 }, onError: () => {} } });
  target = resolveTarget({ baseUrl: sandbox.baseUrl, token: sandbox.token! }, docs);
  app = await App.start();
  session = await startListen({ target, docs, forwardTo: app.url, output: io, heartbeatMs: 200 });
  session.on('delivery', (r) => void records.push(r));
  app.secret = session.secret;
});

afterAll(async () => {
  await session?.stop();
  await app?.close();
  await sandbox?.close();
});

describe('listen', () => {
  it('registers one endpoint for the session and prints nothing secret but the signing secret', async () => {
    expect(session.secret).toMatch(/^whsec_/);
    const endpoints = await listEndpoints(new SandboxApi(target, docs));
    expect(endpoints.filter((e) => e.description === LISTEN_DESCRIPTION)).toEqual([expect.objectContaining({ id: session.endpointId, url: session.receiverUrl, status: 'active', events: '*' })]);
    expect([...io.lines, ...io.logs].join('\n')).not.toContain(sandbox.token!);
  });
});

describe('trigger: every event of the spec reaches the app, verified', () => {
  it.each(docs.events)('%s', async (event) => {
    const out = capture();
    const result = await runTrigger({ event, baseUrl: target.baseUrl, token: target.token }, out);
    expect(result.eventId).not.toBeNull();
    expect(result.deliveries.map((d) => d.endpoint_id)).toEqual([session.endpointId]);
    const received = await app.event(result.eventId!);
    expect(received.event).toBe(event);
    // It printed what it did: the calls, then the event and where it went.
    expect(out.lines[0]).toMatch(new RegExp(`^trigger ${event.replace(/\./g, '\\.')}: `));
    expect(out.lines.some((l) => / → 20[12] /.test(l))).toBe(true);
    expect(out.lines.at(-1)).toContain(`${event} event ${result.eventId}: delivery `);
    expect(out.lines.join('\n')).not.toContain(target.token);
    // listen printed one line for it, with the app's status.
    await expect.poll(() => records.find((r) => r.event_id === result.eventId)?.status).toBe(200);
  });

  it('reuses a card with --card', async () => {
    const first = await runTrigger({ event: 'card.transaction.authorized', baseUrl: target.baseUrl, token: target.token }, capture());
    const card = ((await app.event(first.eventId!)).data as { card_uuid: string }).card_uuid;
    const second = await runTrigger({ event: 'card.transaction.captured', card, baseUrl: target.baseUrl, token: target.token }, capture());
    expect(((await app.event(second.eventId!)).data as { card_uuid: string }).card_uuid).toBe(card);
  });

  it('names the URL and how to start a sandbox when none answers', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const url = `http://127.0.0.1:${(probe.address() as { port: number }).port}/api/v1`;
    await new Promise((resolve) => probe.close(resolve));
    const attempt = runTrigger({ event: 'order.completed', baseUrl: url, token: 'sbx_sk_0000' }, capture());
    await expect(attempt).rejects.toBeInstanceOf(UnreachableError);
    await expect(attempt).rejects.toMatchObject({ message: `no sandbox answers at ${url} (ECONNREFUSED)`, hint: expect.stringContaining('npx gen-card-api sandbox') });
  });

  it('refuses a --card that is not a uuid, or not a card of the workspace, with exit-2 errors that say so', async () => {
    await expect(runTrigger({ event: 'card.frozen', card: 'card-1', baseUrl: target.baseUrl, token: target.token }, capture())).rejects.toMatchObject({ message: '--card "card-1" is not a card uuid' });
    await expect(runTrigger({ event: 'card.frozen', card: '00000000-0000-4000-8000-000000000000', baseUrl: target.baseUrl, token: target.token }, capture())).rejects.toMatchObject({
      message: expect.stringMatching(/^POST \/api\/v1\/cards\/00000000-0000-4000-8000-000000000000\/freeze answered 404 card\.not_found/),
    });
    await expect(runTrigger({ event: 'card.issued.secrets', card: '00000000-0000-4000-8000-000000000000', baseUrl: target.baseUrl, token: target.token }, capture())).rejects.toMatchObject({
      message: expect.stringMatching(/cannot reuse --card/),
    });
  });

  it('gets the retry when the app answers 500 first: the sandbox redelivers on its own schedule', async () => {
    app.fail = { event: 'card.transaction.reversed', times: 1 };
    const result = await runTrigger({ event: 'card.transaction.reversed', baseUrl: target.baseUrl, token: target.token }, capture());
    const seen = () => records.filter((r) => r.event_id === result.eventId);
    await expect.poll(() => seen().length).toBe(1);
    expect(seen()[0]).toMatchObject({ status: 500, answered: 500, redelivery: false });
    expect(app.verified.some((e) => e.event_id === result.eventId)).toBe(false);
    // D19's first retry is 10 s later on the sandbox clock: move the clock instead of waiting.
    await new SandboxApi(target, docs).call('advanceClock', { body: { seconds: 10 } });
    expect((await app.event(result.eventId!)).event).toBe('card.transaction.reversed');
    await expect.poll(() => seen().length).toBe(2);
    expect(seen()[1]).toMatchObject({ status: 200, redelivery: true });
  });
});

describe('events', () => {
  it('lists deliveries and resends one with byte-identical body and a fresh signature', async () => {
    const { eventId } = await runTrigger({ event: 'order.completed', baseUrl: target.baseUrl, token: target.token }, capture());
    await app.event(eventId!);
    const listed = capture();
    const deliveries = await runEventsList({ baseUrl: target.baseUrl, token: target.token, event: 'order.*', limit: 5 }, listed);
    expect(deliveries.at(-1)).toMatchObject({ event_id: eventId, status: 'succeeded', endpoint_id: session.endpointId });
    expect(listed.lines[0]).toMatch(/^DELIVERY\s+EVENT_ID\s+EVENT/);

    const [original] = app.requestsOf(eventId!);
    const resent = capture();
    await runEventsResend({ eventId: eventId!, baseUrl: target.baseUrl, token: target.token }, resent);
    await app.until(() => app.requestsOf(eventId!).length === 2, `the resend of event ${eventId}`);
    const again = app.requestsOf(eventId!)[1]!;
    expect(again.body).toBe(original!.body);
    expect(again.outcome).toBe('duplicate'); // verified (signature and tolerance), then dropped by event_id
    const t = (signature: string) => Number(/t=(\d+)/.exec(signature)![1]);
    expect(t(again.signature)).toBeGreaterThanOrEqual(t(original!.signature));
    expect(resent.lines.join('\n')).toMatch(new RegExp(`event ${eventId} \\(order\\.completed\\): delivery \\d+ resent to endpoint ${session.endpointId} .*: succeeded, answered 200`));
  });
});

describe('fixtures', () => {
  it.each([
    ['purchase-fx-refund', ['card.transaction.authorized', 'card.transaction.captured', 'card.transaction.refunded']],
    ['chargeback', ['card.transaction.authorized', 'card.transaction.captured', 'card.transaction.chargeback_opened']],
  ])('runs the bundled %s fixture, whose events reach the app', async (name, events) => {
    const out = capture();
    const before = app.verified.length;
    const { answers } = await runFixture({ fixture: name, baseUrl: target.baseUrl, token: target.token }, out);
    const card = (answers.get('issue') as { data: { related_card_uuid: string } }).data.related_card_uuid;
    await app.until(() => events.every((e) => app.verified.slice(before).some((v) => v.event === e && (v.data as { card_uuid?: string }).card_uuid === card)), `${events.join(', ')} of card ${card}`);
    expect(out.lines.at(-1)).toMatch(/events? queued for delivery: /);
  });
});

describe('listen sessions', () => {
  it('filters with --events and prints JSON lines; a second session leaves the live one alone', async () => {
    const other = await App.start();
    const io2 = capture();
    const filtered = await startListen({ target, docs, forwardTo: other.url, events: 'order.fail*', format: 'json', output: io2, heartbeatMs: 200 });
    try {
      other.secret = filtered.secret;
      expect(filtered.endpointId).not.toBe(session.endpointId);
      expect(filtered.secret).not.toBe(session.secret);
      const completed = await runTrigger({ event: 'order.completed', baseUrl: target.baseUrl, token: target.token }, capture());
      const failed = await runTrigger({ event: 'order.failed', baseUrl: target.baseUrl, token: target.token }, capture());
      expect(completed.deliveries.map((d) => d.endpoint_id)).toEqual([session.endpointId]);
      await other.event(failed.eventId!);
      expect(other.verified.map((e) => e.event)).toEqual(['order.failed']);
      const line = JSON.parse(io2.lines.at(-1)!) as ForwardRecord;
      expect(line).toMatchObject({ event: 'order.failed', event_id: failed.eventId, status: 200, redelivery: false, ids: { order: expect.any(String) } });
    } finally {
      await filtered.stop();
      await other.close();
    }
    // Stopped: its endpoint is disabled; the next session reuses it, with the same secret.
    const stopped = (await listEndpoints(new SandboxApi(target, docs))).find((e) => e.id === filtered.endpointId);
    expect(stopped).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
    const third = await startListen({ target, docs, forwardTo: app.url, events: 'card.frozen', output: capture(), heartbeatMs: 200 });
    try {
      expect({ id: third.endpointId, secret: third.secret, reused: third.reused }).toEqual({ id: filtered.endpointId, secret: filtered.secret, reused: true });
      expect((await listEndpoints(new SandboxApi(target, docs))).find((e) => e.id === third.endpointId)).toMatchObject({ status: 'active', url: third.receiverUrl, events: ['card.frozen'] });
    } finally {
      await third.stop();
    }
  });

  it('refuses to forward to its own receiver', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    await new Promise((resolve) => probe.close(resolve));
    await expect(startListen({ target, docs, forwardTo: `http://127.0.0.1:${port}/hooks`, port, output: capture() })).rejects.toMatchObject({ message: expect.stringMatching(/is listen's own receiver/) });
  });

  it('refuses an event filter that matches nothing, with a suggestion', async () => {
    await expect(startListen({ target, docs, forwardTo: app.url, events: 'card.frozn', output: capture() })).rejects.toMatchObject({
      message: 'no event of the spec matches "card.frozn"',
      hint: 'did you mean card.frozen?',
    });
  });

  it('survives a sandbox restart on --db: reconnects and keeps its endpoint and secret', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'listen-restart-'));
    const db = path.join(dir, 'sandbox.db');
    let first: RunningSandbox | undefined = await startSandbox({ port: 0, db, sandboxOptions: { onError: () => {} } });
    let second: RunningSandbox | undefined;
    const port = Number(new URL(first.origin).port);
    const restartTarget = resolveTarget({ baseUrl: first.baseUrl, token: first.token! }, docs);
    const restartApp = await App.start();
    const restartIo = capture();
    const restarting = await startListen({ target: restartTarget, docs, forwardTo: restartApp.url, output: restartIo, heartbeatMs: 100 });
    try {
      restartApp.secret = restarting.secret;
      const before = await runTrigger({ event: 'card.frozen', baseUrl: restartTarget.baseUrl, token: restartTarget.token }, capture());
      await restartApp.event(before.eventId!);

      const down = status(restarting, 'down');
      await first.close();
      first = undefined;
      await down;
      const up = status(restarting, 'up');
      second = await startSandbox({ port, db, sandboxOptions: { onError: () => {} } });
      expect(second.token).toBe(restartTarget.token);
      await up;

      const after = await runTrigger({ event: 'card.unfrozen', baseUrl: restartTarget.baseUrl, token: restartTarget.token }, capture());
      expect(after.deliveries.map((d) => d.endpoint_id)).toEqual([restarting.endpointId]);
      expect((await restartApp.event(after.eventId!)).event).toBe('card.unfrozen');
      expect(restarting.secret).toBe(restartApp.secret);
      expect(restartIo.logs.join('\n')).toMatch(/is back/);
      expect((await listEndpoints(new SandboxApi(restartTarget, docs))).filter((e) => e.description === LISTEN_DESCRIPTION)).toHaveLength(1);
    } finally {
      await restarting.stop();
      await restartApp.close();
      await first?.close();
      await second?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
