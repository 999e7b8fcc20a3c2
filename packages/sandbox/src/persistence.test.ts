import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { migrations } from './migrations.js';
import { createSandbox } from './sandbox.js';
import { issueActiveCard, issueBody, newestCard } from './test-support.js';

describe('file database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-file-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses WAL and records the schema version', () => {
    const sandbox = createSandbox({ db: join(dir, 'wal.db'), clock: createManualClock() });
    expect(sandbox.db.pluck('PRAGMA journal_mode').get()).toBe('wal');
    expect(sandbox.db.pluck('PRAGMA user_version').get()).toBe(migrations.at(-1)!.version);
    sandbox.close();
    // Reopening applies nothing twice (the seed migration would violate the products' primary key).
    const again = createSandbox({ db: join(dir, 'wal.db'), clock: createManualClock() });
    expect(again.catalogue.list(again.admin.createWorkspace({ name: 'w' }).id)).toHaveLength(4);
    again.close();
  });

  it('a card read sees what another connection committed to the same file, and a write of its own at once', () => {
    const file = join(dir, 'two-connections.db');
    const reader = createSandbox({ db: file, clock: createManualClock('2026-03-01T12:00:00.000Z'), orderLatencyMs: 50 });
    const ws = reader.seedDefaultWorkspace().workspace.id;
    const uuid = issueActiveCard(reader, ws);
    expect(reader.cards.get(ws, uuid)).toMatchObject({ status: 'active', held_amount: '0.00' });
    // The reader has the row cached; a second connection (as a second process would) writes to the card.
    const writer = createSandbox({ db: file, clock: createManualClock('2026-03-01T13:00:00.000Z'), orderLatencyMs: 50 });
    writer.simulate.authorize(ws, uuid, { amount: '7.25' });
    expect(reader.cards.get(ws, uuid)).toMatchObject({ status: 'active', held_amount: '7.25', available_balance: '92.75' });
    writer.close();
    // The reader's own write is seen by its next read, and inside its write transaction too.
    reader.cards.freeze(ws, uuid);
    reader.advance(1000);
    expect(reader.cards.get(ws, uuid).status).toBe('frozen');
    reader.close();
  });

  it('resumes pending orders and close stage 2 after a restart, losing nothing', () => {
    const file = join(dir, 'restart.db');
    const clock = createManualClock('2026-03-01T12:00:00.000Z');
    const before = createSandbox({ db: file, clock, orderLatencyMs: 50, closeDelayMs: 1000 });
    const { workspace, token } = before.seedDefaultWorkspace();
    const ws = workspace.id;
    before.cards.create(ws, issueBody({ initial_topup_amount: '40.00' }), 'issue-a');
    const closing = newestCard(before, ws);
    before.advance(100);
    before.cards.close(ws, closing);
    before.advance(100); // close order completed, stage 2 due 1000 ms later
    const pendingIssue = before.cards.create(ws, issueBody(), 'issue-b');
    before.advance(50); // now processing
    before.admin.failNextOrder('next-issue', 'not_found');
    const failing = before.cards.create(ws, issueBody({ initial_topup_amount: '20.00' }));
    const snapshot = { wallet: before.wallet.get(ws), events: before.events.since(0), orders: before.orders.list(ws).data };
    expect(before.orders.get(ws, pendingIssue.uuid).status).toBe('processing');
    before.close();

    // A new process: same file, a clock that has moved on.
    const after = createSandbox({ db: file, clock, orderLatencyMs: 50, closeDelayMs: 1000 });
    expect(after.auth.authenticate(token, '127.0.0.1').workspace.id).toBe(ws);
    expect(after.wallet.get(ws)).toEqual(snapshot.wallet);
    expect(after.events.since(0)).toEqual(snapshot.events);
    expect(after.orders.list(ws).data).toEqual(snapshot.orders);
    // Idempotency keys survive too.
    expect(after.cards.create(ws, issueBody(), 'issue-b').uuid).toBe(pendingIssue.uuid);

    after.advance(2000);
    expect(after.orders.get(ws, pendingIssue.uuid).status).toBe('completed');
    expect(after.orders.get(ws, failing.uuid)).toMatchObject({ status: 'failed', failure_reason: 'not_found' });
    expect(after.cards.get(ws, closing)).toMatchObject({ status: 'closed', card_balance: '0.00' });
    expect(after.wallet.get(ws).wallets[0]).toMatchObject({ balance: '9890.00', held_balance: '0.00' });
    expect(after.events.since(snapshot.events.at(-1)!.event_id).map((e) => e.event).sort()).toEqual(['card.closed', 'order.completed', 'order.failed']);
    expect(after.admin.audit()).toEqual([]);
    after.close();
  });

  it('runs resumed work by itself on real timers', async () => {
    const file = join(dir, 'auto.db');
    const first = createSandbox({ db: file, clock: createManualClock(new Date()), orderLatencyMs: 0 });
    const { workspace } = first.seedDefaultWorkspace();
    const order = first.cards.create(workspace.id, issueBody());
    first.close();

    const second = createSandbox({ db: file, orderLatencyMs: 0 });
    const completed = new Promise((resolve) => second.events.onEvent((e) => e.event === 'order.completed' && resolve(e.data)));
    await expect(completed).resolves.toMatchObject({ order_uuid: order.uuid });
    expect(second.orders.get(workspace.id, order.uuid).status).toBe('completed');
    second.close();
  });
});

describe('real-time defaults', () => {
  it('processes orders on its own with the default clock and latency', async () => {
    const sandbox = createSandbox();
    const { workspace } = sandbox.seedDefaultWorkspace();
    // Waits for the event instead of a fixed sleep, which a loaded machine can outlast (the test timeout bounds it).
    const completed = new Promise((resolve) => sandbox.events.onEvent((e) => e.event === 'order.completed' && resolve(e.data)));
    const order = sandbox.cards.create(workspace.id, issueBody());
    expect(order.status).toBe('pending');
    await expect(completed).resolves.toMatchObject({ order_uuid: order.uuid });
    expect(sandbox.orders.get(workspace.id, order.uuid).status).toBe('completed');
    sandbox.close();
  });
});
