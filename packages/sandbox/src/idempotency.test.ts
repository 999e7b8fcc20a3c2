import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { IDEMPOTENCY_WINDOW_MS, requestHash } from './idempotency.js';
import { createSandbox } from './sandbox.js';
import { catchError, issueActiveCard, issueBody, setup } from './test-support.js';

describe('request fingerprint', () => {
  it('is the SHA-256 of the canonical JSON, key order aside, as stored by every earlier version (a file database keeps its keys)', () => {
    const expected = '2f2496eb33478721068f3f7846ffedeb6ac921d4a6f18c9c3570a5684add30a6';
    expect(requestHash({ operation: 'cards.create', request: { amount: '10.00', card: 'x' } })).toBe(expected);
    expect(requestHash({ request: { card: 'x', amount: '10.00', notes: undefined }, operation: 'cards.create' })).toBe(expected);
  });
});

describe('idempotency (D7)', () => {
  it('returns the same order for the same key, with one hold', () => {
    const { sandbox, ws } = setup();
    const first = sandbox.cards.create(ws, issueBody(), 'order-1');
    const again = sandbox.cards.create(ws, { ...issueBody(), initial_topup_amount: '100.0' }, 'order-1');
    expect(again).toEqual(first);
    expect(sandbox.orders.list(ws).meta.total).toBe(1);
    expect(sandbox.wallet.get(ws).wallets[0]?.held_balance).toBe('105.00');
    // After completion the replay shows the order as it is now.
    sandbox.advance(100);
    expect(sandbox.cards.create(ws, issueBody(), 'order-1')).toMatchObject({ uuid: first.uuid, status: 'completed' });
  });

  it('gives 20 concurrent identical creates one order and one hold', async () => {
    const { sandbox, ws } = setup();
    const results = await Promise.all(Array.from({ length: 20 }, async () => sandbox.cards.create(ws, issueBody(), 'burst-key')));
    expect(new Set(results.map((o) => o.uuid)).size).toBe(1);
    expect(sandbox.orders.list(ws).meta.total).toBe(1);
    expect(sandbox.cards.list(ws).meta.total).toBe(1);
    expect(sandbox.ledger.list(ws, { reason: 'card_issue_held' }).meta.total).toBe(2);
    expect(sandbox.wallet.get(ws).wallets[0]).toMatchObject({ held_balance: '105.00', available: '9895.00' });
  });

  it('keeps a failed order failed for its key; a new key retries', () => {
    const { sandbox, ws } = setup();
    sandbox.admin.failNextOrder('next-issue', 'business4xx');
    const failed = sandbox.cards.create(ws, issueBody(), 'k');
    sandbox.advance(100);
    expect(sandbox.cards.create(ws, issueBody(), 'k')).toMatchObject({ uuid: failed.uuid, status: 'failed', failure_reason: 'business4xx' });
    expect(sandbox.wallet.get(ws).wallets[0]?.held_balance).toBe('0.00');
    const retry = sandbox.cards.create(ws, issueBody(), 'k2');
    expect(retry.uuid).not.toBe(failed.uuid);
  });

  it('answers 409 idempotency.key_reused for the same key with another body, and leaves state alone', () => {
    const { sandbox, ws } = setup();
    sandbox.cards.create(ws, issueBody(), 'k');
    expect(catchError(() => sandbox.cards.create(ws, issueBody({ initial_topup_amount: '200.00' }), 'k'))).toMatchObject({ status: 409, code: 'idempotency.key_reused' });
    expect(sandbox.orders.list(ws).meta.total).toBe(1);
  });

  it('scopes a key to the workspace: another endpoint, card or body with it is 409 (D33)', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const other = issueActiveCard(sandbox, ws);
    const topup = sandbox.cards.topup(ws, card, { amount: '10.00' }, 'shared');
    expect(sandbox.cards.topup(ws, card, { amount: '10.00' }, 'shared').uuid).toBe(topup.uuid);
    const orders = sandbox.orders.list(ws).meta.total;
    expect(catchError(() => sandbox.cards.freeze(ws, card, undefined, 'shared'))).toMatchObject({ status: 409, code: 'idempotency.key_reused' });
    expect(catchError(() => sandbox.cards.topup(ws, other, { amount: '10.00' }, 'shared')).code).toBe('idempotency.key_reused');
    expect(catchError(() => sandbox.cards.create(ws, issueBody(), 'shared')).code).toBe('idempotency.key_reused');
    expect(sandbox.orders.list(ws).meta.total).toBe(orders);
    const second = sandbox.admin.createWorkspace({ name: 'Second' });
    sandbox.admin.deposit(second.id, { amount: '500.00' });
    expect(sandbox.cards.create(second.id, issueBody(), 'shared').status).toBe('pending');
  });

  it('issue, top-up and freeze with one key make one order, not three (D33)', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const before = sandbox.orders.list(ws).meta.total;
    sandbox.cards.create(ws, issueBody(), 'one-key');
    expect(catchError(() => sandbox.cards.topup(ws, card, { amount: '10.00' }, 'one-key')).code).toBe('idempotency.key_reused');
    expect(catchError(() => sandbox.cards.freeze(ws, card, null, 'one-key')).code).toBe('idempotency.key_reused');
    expect(sandbox.orders.list(ws).meta.total).toBe(before + 1);
  });

  it('replays a freeze after completion instead of answering 409', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    const freeze = sandbox.cards.freeze(ws, card, { reason: 'r' }, 'f1');
    sandbox.advance(100);
    expect(sandbox.cards.freeze(ws, card, { reason: 'r' }, 'f1')).toMatchObject({ uuid: freeze.uuid, status: 'completed' });
    expect(catchError(() => sandbox.cards.freeze(ws, card, { reason: 'r' }, 'f2')).code).toBe('card.state_conflict');
  });

  it('forgets keys after 24 hours of clock time', () => {
    const { sandbox, ws } = setup();
    const first = sandbox.cards.create(ws, issueBody(), 'daily');
    sandbox.advance(IDEMPOTENCY_WINDOW_MS - 1);
    expect(sandbox.cards.create(ws, issueBody(), 'daily').uuid).toBe(first.uuid);
    sandbox.advance(1);
    const fresh = sandbox.cards.create(ws, issueBody({ initial_topup_amount: '20.00' }), 'daily');
    expect(fresh.uuid).not.toBe(first.uuid);
    expect(sandbox.orders.list(ws).meta.total).toBe(2);
  });

  it('rejects malformed keys with 422 before doing anything', () => {
    const { sandbox, ws } = setup();
    for (const key of ['', 'has space', 'x'.repeat(256), 'ünï']) {
      expect(catchError(() => sandbox.cards.create(ws, issueBody(), key))).toMatchObject({ status: 422, fieldErrors: { 'X-Idempotency-Key': expect.any(Array) } });
    }
    expect(sandbox.orders.list(ws).meta.total).toBe(0);
  });

  it('does not bind a key to a refused request', () => {
    const { sandbox, ws } = setup();
    expect(catchError(() => sandbox.cards.create(ws, issueBody({ initial_topup_amount: '50000.00' }), 'k')).status).toBe(402);
    sandbox.admin.deposit(ws, { amount: '50000.00' });
    expect(sandbox.cards.create(ws, issueBody({ initial_topup_amount: '50000.00' }), 'k').status).toBe('pending');
  });
});

describe('idempotency across connections (worker threads on one file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-idem-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets exactly one of several processes-worth of writers create the order', async () => {
    const file = join(dir, 'sandbox.db');
    const clock = createManualClock('2026-03-01T12:00:00.000Z');
    const sandbox = createSandbox({ db: file, clock });
    const { workspace } = sandbox.seedDefaultWorkspace();
    const source = `
      import { workerData, parentPort } from 'node:worker_threads';
      import { register } from 'tsx/esm/api';
      register();
      const { createSandbox, createManualClock } = await import(workerData.entry);
      const sandbox = createSandbox({ db: workerData.file, clock: createManualClock('2026-03-01T12:00:00.000Z') });
      const body = { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };
      const uuids = [];
      for (let i = 0; i < 10; i++) uuids.push(sandbox.cards.create(workerData.ws, body, 'cross-process').uuid);
      sandbox.close();
      parentPort.postMessage(uuids);
    `;
    const entry = new URL('./index.ts', import.meta.url).href;
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<string[]>((resolve, reject) => {
          const worker = new Worker(source, { eval: true, workerData: { entry, file, ws: workspace.id } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    );
    const uuids = (await Promise.all(runs)).flat();
    expect(uuids).toHaveLength(40);
    expect(new Set(uuids).size).toBe(1);
    expect(sandbox.orders.list(workspace.id).meta.total).toBe(1);
    expect(sandbox.wallet.get(workspace.id).wallets[0]?.held_balance).toBe('105.00');
    sandbox.close();
  });
});
