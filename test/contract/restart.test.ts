/**
 * A sandbox on a database file, stopped and started again, loses nothing: cards, orders, balances, the ledger,
 * and its default token, which is printed again and still valid.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningSandbox } from '@card-api/sandbox';
import { afterAll, describe, expect, it } from 'vitest';
import { clientFor, FAST_WAIT, issueBody, Recorder, startTestSandbox } from './support.js';

const dir = mkdtempSync(path.join(tmpdir(), 'card-api-restart-'));
const running: RunningSandbox[] = [];

afterAll(async () => {
  for (const r of running) await r.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Everything a caller can read, through the API. */
async function snapshot(baseUrl: string, token: string, recorder: Recorder) {
  const client = clientFor(baseUrl, token, { fetch: recorder.fetch, maxRetries: 0 });
  const cards = [];
  for await (const c of client.cards.list({ per_page: 100 })) cards.push({ ...(await client.cards.get(c.uuid)) });
  const orders = [];
  for await (const o of client.orders.list({ per_page: 100 })) orders.push(o);
  const ledger = [];
  for await (const row of client.ledger.list({ per_page: 100 })) ledger.push(row);
  const wallet = { ...(await client.wallet.get()) };
  const ping = { ...(await client.ping()) };
  return { cards, orders, ledger, wallet, ping };
}

describe('restart on a file database', () => {
  it('keeps cards, orders, balances and a valid token', async () => {
    const db = path.join(dir, 'sandbox.db');
    const first = await startTestSandbox({ db });
    running.push(first);
    expect(first.tokenMinted).toBe(true);
    const recorder = new Recorder(first.baseUrl);
    const client = clientFor(first.baseUrl, first.token!);
    const created = await client.cards.create(issueBody({ initial_topup_amount: '200.00' }), { idempotencyKey: 'restart-issue-1' });
    const issued = await client.orders.wait(created.uuid, FAST_WAIT);
    const cardUuid = issued.related_card_uuid!;
    await client.orders.wait((await client.cards.topup(cardUuid, { amount: '50.00' })).uuid, FAST_WAIT);
    await client.orders.wait((await client.cards.freeze(cardUuid, { reason: 'before restart' })).uuid, FAST_WAIT);
    await client.orders.wait((await client.cards.create(issueBody({ cardholder_first_name: 'Second' }))).uuid, FAST_WAIT);
    // An extra token minted through the admin API must also survive.
    const extra = first.sandbox.admin.createToken(1, { name: 'extra', abilities: ['cards.read'] });
    const before = await snapshot(first.baseUrl, first.token!, recorder);
    expect(before.cards).toHaveLength(2);
    expect(before.orders).toHaveLength(4);
    await first.close();

    const second = await startTestSandbox({ db });
    running.push(second);
    expect(second.tokenMinted).toBe(false);
    expect(second.token).toBe(first.token);
    expect(second.tokenId).toBe(first.tokenId);
    const after = await snapshot(second.baseUrl, second.token!, new Recorder(second.baseUrl));
    expect(after).toEqual(before);
    expect(after.cards.find((c) => c.uuid === cardUuid)).toMatchObject({ status: 'frozen', card_balance: '250.00' });

    const extraPing = await clientFor(second.baseUrl, extra.token).ping();
    expect(extraPing.abilities).toEqual(['cards.read']);
    // The reopened sandbox still takes writes, with idempotency keys from before the restart honoured.
    const again = await clientFor(second.baseUrl, second.token!).cards.create(issueBody({ initial_topup_amount: '200.00' }), { idempotencyKey: 'restart-issue-1' });
    expect(again).toMatchObject({ uuid: created.uuid, status: 'completed' });
    expect(recorder.problems()).toEqual([]);
  });

  it('mints a new default token when the stored one was revoked', async () => {
    const db = path.join(dir, 'revoked.db');
    const first = await startTestSandbox({ db });
    running.push(first);
    first.sandbox.admin.revokeToken(first.tokenId!);
    await first.close();
    const second = await startTestSandbox({ db });
    running.push(second);
    expect(second.tokenMinted).toBe(true);
    expect(second.token).not.toBe(first.token);
    expect((await clientFor(second.baseUrl, second.token!).ping()).workspace_slug).toBe('default');
  });
});
