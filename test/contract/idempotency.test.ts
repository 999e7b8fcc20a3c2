/**
 * Idempotency over real connections: a burst of identical writes with one key, and a connection lost after
 * the server committed a write, each leave exactly one order and one hold in the ledger.
 */
import type { RunningSandbox } from '@card-api/sandbox';
import type { CardApiClient, LedgerEntry } from '@card-api/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, FAST_WAIT, freshWorkspace, issueBody, Recorder, startTestSandbox } from './support.js';

let running: RunningSandbox;

beforeAll(async () => {
  running = await startTestSandbox();
});

afterAll(async () => {
  await running?.close();
});

/** Every ledger row of the workspace with `reason`, read page by page through the API. */
async function ledgerRows(client: CardApiClient, reason: 'card_issue_held' | 'card_topup_held'): Promise<LedgerEntry[]> {
  const rows: LedgerEntry[] = [];
  for await (const row of client.ledger.list({ reason, per_page: 100 })) rows.push(row);
  return rows;
}

describe('idempotent writes over HTTP', () => {
  it('20 concurrent identical POST /cards with one key make one order and one hold', async () => {
    const ws = freshWorkspace(running.sandbox, 'burst');
    const recorder = new Recorder(running.baseUrl);
    const client = clientFor(running.baseUrl, ws.token, { fetch: recorder.fetch, maxRetries: 0 });
    const body = issueBody({ initial_topup_amount: '250.00' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.cards.create(body, { idempotencyKey: 'burst-key-1' })));

    expect(new Set(answers.map((o) => o.uuid)).size).toBe(1);
    expect(answers.every((o) => o.lastResponse.status === 202)).toBe(true);
    const orders = await client.orders.list();
    expect(orders.meta.total).toBe(1);
    const holds = await ledgerRows(client, 'card_issue_held');
    expect(new Set(holds.map((r) => r.txn_group_id)).size).toBe(1);
    expect(holds.filter((r) => r.direction === 'debit').map((r) => r.amount)).toEqual(['255.00']);
    const wallet = await client.wallet.get();
    // 10000.00 - 250.00 - 5.00 fee, held or already captured: available is the same either way.
    expect(wallet.wallets[0]?.available).toBe('9745.00');
    expect(recorder.problems()).toEqual([]);
  });

  it('a connection dropped after the server committed the write: the retry with the same key makes no second hold', async () => {
    const ws = freshWorkspace(running.sandbox, 'dropped');
    const recorder = new Recorder(running.baseUrl);
    let dropped = 0;
    // Performs the request (the server commits and answers), then loses the answer once, like a reset socket.
    const lossyFetch = async (request: Request): Promise<Response> => {
      const response = await recorder.fetch(request);
      if (request.method === 'POST' && dropped === 0) {
        dropped += 1;
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      }
      return response;
    };
    const client = clientFor(running.baseUrl, ws.token, { fetch: lossyFetch, maxRetries: 2 });

    const order = await client.cards.create(issueBody(), { idempotencyKey: 'dropped-key-1' });
    expect(dropped).toBe(1);
    expect(order.lastResponse.attempts).toBe(2);
    expect(order.lastResponse.idempotencyKey).toBe('dropped-key-1');
    // Both attempts reached the server and got the same order.
    const posts = recorder.captured.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts.map((c) => (c.body as { data: { uuid: string } }).data.uuid)).toEqual([order.uuid, order.uuid]);

    expect((await client.orders.wait(order.uuid, FAST_WAIT)).status).toBe('completed');
    expect((await client.orders.list()).meta.total).toBe(1);
    const holds = await ledgerRows(client, 'card_issue_held');
    expect(new Set(holds.map((r) => r.txn_group_id)).size).toBe(1);
    const cards = await client.cards.list();
    expect(cards.data.map((c) => c.card_balance)).toEqual(['100.00']);
    expect(recorder.problems()).toEqual([]);
  });

  it('a dropped top-up is retried without a second hold either', async () => {
    const ws = freshWorkspace(running.sandbox, 'dropped topup');
    const setup = clientFor(running.baseUrl, ws.token);
    const issued = await setup.orders.wait((await setup.cards.create(issueBody())).uuid, FAST_WAIT);
    let drops = 0;
    const client = clientFor(running.baseUrl, ws.token, {
      fetch: async (request) => {
        const response = await fetch(request);
        if (request.method === 'POST' && drops++ < 2) throw new TypeError('fetch failed');
        return response;
      },
      maxRetries: 3,
    });
    const topup = await client.cards.topup(issued.related_card_uuid!, { amount: '20.00' });
    expect(topup.lastResponse.attempts).toBe(3);
    await client.orders.wait(topup.uuid, FAST_WAIT);
    const holds = await ledgerRows(setup, 'card_topup_held');
    expect(new Set(holds.map((r) => r.txn_group_id)).size).toBe(1);
    expect((await setup.cards.get(issued.related_card_uuid!)).card_balance).toBe('120.00');
  });
});
