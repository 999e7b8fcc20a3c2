/**
 * Issue 35's bar: two `gen-card-api sandbox --db postgres://...` processes on one PostgreSQL, driven only through
 * their HTTP APIs (the public API, and the control API to read deliveries and the clock), behave as one sandbox.
 * A real PostgreSQL is started for this file (test/helpers/postgres.ts); one receiver on loopback answers every
 * webhook 200 at once and records each event id it is sent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, issueBody } from '../contract/support.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { alive, freePort } from '../helpers/processes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GEN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CARD_API_')));
/** Each order step takes this long, so that orders are still open when their replica is killed. */
const LATENCY_MS = 400;
/** Waits for orders: generous, since the loaded machine may be slow; a poll, never a fixed sleep. */
const WAIT = { intervalMs: 50, timeoutMs: 60_000 };

interface Replica {
  child: ChildProcess;
  baseUrl: string;
  origin: string;
  token: string;
  secret: string;
  log: () => string;
}

let server: TestPostgres;
let db: string;
let receiver: Server;
let receiverUrl: string;
/** Every event id the receiver was sent, in arrival order. */
const received: number[] = [];
const replicas: Replica[] = [];

/**
 * Starts `gen-card-api sandbox` on the shared database, named by `--db` or (`viaEnv`) by CARD_API_SANDBOX_DB as a
 * `postgresql://` URL; resolves once it printed its token.
 */
async function startReplica(viaEnv = false): Promise<Replica> {
  const dbArgs = viaEnv ? [] : ['--db', db];
  const env = viaEnv ? { ...ENV, CARD_API_SANDBOX_DB: db.replace(/^postgres:/, 'postgresql:') } : ENV;
  const child = spawn(process.execPath, [GEN, 'sandbox', ...dbArgs, '--port', '0', '--latency', String(LATENCY_MS), '--rate-limit', '0', '--ip-rate-limit', '0', '--webhook-url', receiverUrl], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = once(child, 'exit');
  const ready = (async () => {
    while (!/CARD_API_TOKEN=\S+\n/.test(stdout) || !/CARD_API_WEBHOOK_SECRET=\S+\n/.test(stdout)) {
      if (child.exitCode !== null) throw new Error(`replica exited ${child.exitCode}: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await Promise.race([ready, exited.then(() => Promise.reject(new Error(`replica exited: ${stderr}`)))]);
  const value = (name: string): string => new RegExp(`^${name}=(.*)$`, 'm').exec(stdout)![1]!;
  const baseUrl = value('CARD_API_BASE_URL');
  const replica = { child, baseUrl, origin: new URL(baseUrl).origin, token: value('CARD_API_TOKEN'), secret: value('CARD_API_WEBHOOK_SECRET'), log: () => stderr };
  replicas.push(replica);
  return replica;
}

/** A control-API call on a replica. */
async function control<T>(replica: Replica, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${replica.origin}${route}`, {
    method,
    headers: { authorization: `Bearer ${replica.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Polls until no delivery is pending or being sent (bounded). */
async function deliveriesSettled(replica: Replica): Promise<{ status: string; event_id: number }[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { data } = await control<{ data: { status: string; event_id: number }[] }>(replica, 'GET', '/sandbox/webhook-deliveries');
    if (data.every((d) => d.status !== 'pending' && d.status !== 'sending')) return data;
    if (Date.now() > deadline) throw new Error(`deliveries still open: ${JSON.stringify(data.filter((d) => d.status === 'pending' || d.status === 'sending'))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  server = await startPostgres();
  db = await server.createDatabase('replicas');
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      try {
        const id = (JSON.parse(body) as { event_id?: unknown }).event_id;
        if (typeof id === 'number') received.push(id);
      } finally {
        response.writeHead(200).end();
      }
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
});

afterAll(async () => {
  for (const r of replicas) if (r.child.pid !== undefined && alive(r.child.pid) && r.child.exitCode === null) r.child.kill('SIGKILL');
  receiver?.close();
  await server?.stop();
});

describe('two replicas on one PostgreSQL', () => {
  it('are one sandbox: one token, shared cards, one order per idempotency key, shared clock, balanced ledger, one delivery per event', async () => {
    // Started at once on an empty database: both migrate it, under the migration lock, and seed it.
    const [a, b] = await Promise.all([startReplica(), startReplica(true)]);
    // One default workspace and token, one webhook endpoint and secret, created once between them.
    expect(b!.token).toBe(a!.token);
    expect(b!.secret).toBe(a!.secret);
    const clientA = clientFor(a!.baseUrl, a!.token, { maxRetries: 0 });
    const clientB = clientFor(b!.baseUrl, b!.token, { maxRetries: 0 });

    // A card issued on one is read on the other.
    const issued = await clientA.orders.wait((await clientA.cards.create(issueBody(), { idempotencyKey: 'replicas-first' })).uuid, WAIT);
    const cardUuid = issued.related_card_uuid!;
    expect(await clientB.cards.get(cardUuid)).toEqual(await clientA.cards.get(cardUuid));

    // The same idempotency key sent to both at once: one order.
    const [onA, onB] = await Promise.all([
      clientA.cards.create(issueBody({ cardholder_first_name: 'Same' }), { idempotencyKey: 'replicas-same-key' }),
      clientB.cards.create(issueBody({ cardholder_first_name: 'Same' }), { idempotencyKey: 'replicas-same-key' }),
    ]);
    expect(onB.uuid).toBe(onA.uuid);
    await clientB.orders.wait(onA.uuid, WAIT);

    // 20 concurrent issues spread over both: all complete.
    const accepted = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? clientA : clientB).cards.create(issueBody({ cardholder_first_name: `Many${i}` }), { idempotencyKey: `replicas-many-${i}` })));
    expect(new Set(accepted.map((o) => o.uuid)).size).toBe(20);
    const done = await Promise.all(accepted.map((o, i) => (i % 2 === 0 ? clientB : clientA).orders.wait(o.uuid, WAIT)));
    expect(done.map((o) => o.status)).toEqual(Array(20).fill('completed'));
    const sameKeyOrders: string[] = [];
    for await (const order of clientA.orders.list({ per_page: 100 })) if (order.uuid === onA.uuid) sameKeyOrders.push(order.uuid);
    expect(sameKeyOrders).toHaveLength(1);

    // One clock: advanced on A, B's time has moved by as much.
    const before = await control<{ data: { now: string } }>(b!, 'GET', '/sandbox/clock');
    await control(a!, 'POST', '/sandbox/clock/advance', { seconds: 3600 });
    const after = await control<{ data: { now: string } }>(b!, 'GET', '/sandbox/clock');
    expect(Date.parse(after.data.now) - Date.parse(before.data.now)).toBeGreaterThanOrEqual(3_600_000);

    // Every event delivered, each exactly once, while the receiver answers 200 at once.
    const deliveries = await deliveriesSettled(a!);
    expect(deliveries.length).toBeGreaterThanOrEqual(22);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
    expect([...received].sort((x, y) => x - y)).toEqual(deliveries.map((d) => d.event_id).sort((x, y) => x - y));
    expect(new Set(received).size).toBe(received.length);
  });

  it('finishes the orders a replica accepted and then was killed with SIGKILL, and the books balance', async () => {
    const [a, b] = [replicas[0]!, replicas[1]!];
    const clientA = clientFor(a.baseUrl, a.token, { maxRetries: 0 });
    const clientB = clientFor(b.baseUrl, b.token, { maxRetries: 0 });
    const accepted = await Promise.all(Array.from({ length: 6 }, (_, i) => clientA.cards.create(issueBody({ cardholder_first_name: `Killed${i}` }), { idempotencyKey: `replicas-killed-${i}` })));
    a.child.kill('SIGKILL');
    await once(a.child, 'exit');
    const done = await Promise.all(accepted.map((o) => clientB.orders.wait(o.uuid, WAIT)));
    expect(done.map((o) => o.status)).toEqual(Array(6).fill('completed'));

    // Every ledger group balances, and each wallet's available is its balance less what is held.
    const groups = new Map<string, { debit: bigint; credit: bigint }>();
    const cents = (amount: string): bigint => BigInt(amount.replace('.', ''));
    for await (const row of clientB.ledger.list({ per_page: 100 })) {
      const group = groups.get(row.txn_group_id) ?? { debit: 0n, credit: 0n };
      group[row.direction] += cents(row.amount);
      groups.set(row.txn_group_id, group);
    }
    expect(groups.size).toBeGreaterThan(30);
    for (const [id, group] of groups) expect(group.debit, id).toBe(group.credit);
    const wallet = await clientB.wallet.get();
    for (const w of wallet.wallets) expect(cents(w.available)).toBe(cents(w.balance) - cents(w.held_balance));

    // At least once under failure: every delivery ends succeeded on the surviving replica (one in flight at the
    // kill is sent again after its lease, which the contract allows).
    const deliveries = await deliveriesSettled(b);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
    expect(new Set(received)).toEqual(new Set(deliveries.map((d) => d.event_id)));
  });

  it('refuses a database it cannot reach: exit 2, the URL shown without its password', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [GEN, 'sandbox', '--port', '0', '--db', `postgres://someone:hunter2secret@127.0.0.1:${port}/nothing`], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--db postgres://someone:***@127.0.0.1:${port}/nothing: PostgreSQL cannot use it (ECONNREFUSED`);
    expect(stderr).not.toContain('hunter2secret');
  });
});
