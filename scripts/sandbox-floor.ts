/**
 * How fast `POST /cards` could be with storage that cost nothing: `node --import tsx scripts/sandbox-floor.ts`.
 *
 * Issue 12's bar asks for `POST /cards` at 0.25x of bare Fastify (bench/sandbox.ts, 100 connections). This script
 * answers whether any storage design could get there behind the sandbox's HTTP layer (the generated plugin with
 * request and response validation, authentication, request ids, D2 errors). It measures, in one run, the bench's
 * POST case (fresh `X-Idempotency-Key` per request) against four servers, all in one child process:
 *
 * - `bare`: the bench's peer, a Fastify route answering the same 202 JSON (measured first and last; the ratios use
 *   the mean of the two, and both are printed so that the machine's drift during the run shows);
 * - `http only`: the real sandbox whose `cards.create` returns one canned accepted order: the HTTP layer's cost;
 * - `floor`: the real sandbox whose `cards.create` is a lean in-memory issue: the same validation, idempotency hash,
 *   money arithmetic, ids, PAN and ledger legs, in Maps and arrays, and a 5 ms timer that takes each order through
 *   processing to completed (capture and fee postings, card activated, `order.completed` recorded). It keeps no
 *   history beyond that, writes nothing durable, queues no deliveries and serves no reads. An in-memory engine that
 *   does the whole job does at least this work, so its ratio is about the best any storage design can reach behind
 *   this HTTP layer (only leaner arithmetic, integer cents instead of Decimal for example, would buy some back);
 * - `sandbox`: the real sandbox (in memory), as bench/sandbox.ts measures it.
 *
 * Two figures per server, each as a ratio to `bare`:
 * - throughput (requests per second while the load ran), the bench's own figure;
 * - CPU time of the server process per request, user and system, from the start of the load until every order it
 *   issued has completed (the completions a server defers past the load window are its cost too). The machine's
 *   other load stretches wall-clock time, not CPU time, so this ratio moves far less between runs than throughput.
 *   `bare`'s CPU over `server`'s is what the throughput ratio would be if both were bound by one core; bare alone
 *   is usually bound by the load generator instead, which makes this ratio the harder of the two.
 *
 * A diagnostic, not a benchmark of a product: `floor` and `http only` are not servers anyone runs. The sandbox runs
 * from its TypeScript sources (the `@card-api/source` condition). `BENCH_CONNECTIONS` (default 100) and
 * `BENCH_DURATION_S` (default 5) as in bench/sandbox.ts.
 */
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { BENCH_ISSUE, benchCard, benchRequests, sourceChild } from '../bench/lib.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);

type Variant = 'http only' | 'floor' | 'sandbox';

/** The lean in-memory issue of the `floor` variant (see the header): returns the `cards.create` replacement. */
async function leanIssue(): Promise<{ create: (workspaceId: number, body: Record<string, unknown>, key: string | undefined) => unknown; open: () => number }> {
  const { Money, fmt, money } = await import('../packages/sandbox/src/money.js');
  const { requestHash } = await import('../packages/sandbox/src/idempotency.js');
  const { timeOrderedUuid } = await import('../packages/sandbox/src/ids.js');
  const { digits: randomDigits, luhnDigit } = await import('../packages/sandbox/src/cards.js');
  // The sandbox's default random source (sandbox.ts).
  const random = (): number => randomInt(0, 2 ** 32) / 2 ** 32;
  const digits = (n: number): string => randomDigits(random, n);
  type Amount = InstanceType<typeof Money>;
  // The seeded product 1 (catalogue.ts): its BIN, currency, issue fee and minimum top-up.
  const product = { bin: '424242', currency: 'USD', fee: '2.00', min: '5.00' };
  const AMOUNT = /^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/;
  interface FloorOrder {
    uuid: string;
    status: 'pending' | 'processing' | 'completed';
    card: { uuid: string; status: string; lifetime_topup_amount: string; issued_at: string | null; updated_at: string; secrets?: unknown };
    held_amount: string;
    credit_amount: string;
    fee_amount: string;
    due: number;
    updated_at: string;
    completed_at: string | null;
  }
  const keys = new Map<string, { hash: string; accepted: unknown }>();
  const balances = new Map<string, Amount>([['wallet.available', new Money('1000000000.00')]]);
  const ledger: unknown[] = [];
  const events: unknown[] = [];
  let queue: FloorOrder[] = [];
  const post = (reason: string, legs: [account: string, direction: 'debit' | 'credit', amount: Amount][], cardUuid: string): void => {
    const group = timeOrderedUuid();
    const now = new Date().toISOString();
    for (const [account, direction, amount] of legs) {
      ledger.push({ workspace_id: 1, txn_group_id: group, reason_code: reason, direction, amount: fmt(amount), currency: product.currency, account_code: account, reference_type: 'Card', reference_uuid: cardUuid, created_at: now });
      const balance = balances.get(account) ?? new Money(0);
      balances.set(account, direction === 'credit' ? balance.plus(amount) : balance.minus(amount));
    }
  };
  const step = (): void => {
    const now = Date.now();
    const due = queue.filter((o) => o.due <= now);
    if (due.length === 0) return;
    queue = queue.filter((o) => o.due > now);
    for (const order of due) {
      const at = new Date().toISOString();
      order.updated_at = at;
      if (order.status === 'pending') {
        order.status = 'processing';
        order.due = now + 50;
        queue.push(order);
        continue;
      }
      const card = order.card;
      post('held_capture', [['wallet.held', 'debit', money(order.credit_amount)], [`card:${card.uuid}`, 'credit', money(order.credit_amount)]], card.uuid);
      post('card_issue_fee', [['wallet.held', 'debit', money(order.fee_amount)], ['platform.revenue', 'credit', money(order.fee_amount)]], card.uuid);
      Object.assign(card, { lifetime_topup_amount: fmt(money(card.lifetime_topup_amount).plus(order.credit_amount)), status: 'active', issued_at: at, updated_at: at, secrets: undefined });
      Object.assign(order, { status: 'completed', completed_at: at });
      const data = JSON.stringify({ order_uuid: order.uuid, type: 'issue_card', held_amount: order.held_amount, currency: product.currency, card_uuid: card.uuid, completed_at: at });
      events.push({ event: 'order.completed', event_id: events.length + 1, occurred_at: at, workspace_id: 1, data: JSON.parse(data) as unknown });
    }
  };
  setInterval(step, 5).unref();

  const create = (workspaceId: number, body: Record<string, unknown>, key: string | undefined): unknown => {
    const amount = body.initial_topup_amount;
    if (body.card_product_id !== 1 || typeof amount !== 'string' || !AMOUNT.test(amount)) throw new Error('floor: unexpected body');
    const initial = new Money(amount);
    if (initial.lessThan(product.min)) throw new Error('floor: below the minimum');
    for (const field of ['cardholder_first_name', 'cardholder_last_name'] as const) {
      const value = body[field];
      if (typeof value !== 'string' || value.trim().length === 0 || value.length > 100) throw new Error(`floor: ${field}`);
    }
    const request = { card_product_id: 1, initial_topup_amount: fmt(initial), cardholder_first_name: body.cardholder_first_name, cardholder_last_name: body.cardholder_last_name, billing_address: body.billing_address, purpose: body.purpose, notes: body.notes, cardholder_type: body.cardholder_type ?? 'user' };
    const hash = requestHash({ operation: 'cards.create', request });
    const scope = `${workspaceId}\u0000${key ?? ''}`;
    const seen = keys.get(scope);
    if (seen !== undefined) {
      if (seen.hash !== hash) throw new Error('floor: key reused');
      return seen.accepted;
    }
    const fee = money(product.fee);
    const held = initial.plus(fee);
    if (balances.get('wallet.available')!.lessThan(held)) throw new Error('floor: wallet too low');
    const now = new Date();
    const at = now.toISOString();
    const body15 = product.bin + digits(15 - product.bin.length);
    const pan = body15 + luhnDigit(body15);
    const card = {
      uuid: timeOrderedUuid(),
      status: 'pending_issue',
      cardholder_first_name: String(body.cardholder_first_name).trim(),
      cardholder_last_name: String(body.cardholder_last_name).trim(),
      pan_bin: pan.slice(0, 6),
      pan_last4: pan.slice(-4),
      lifetime_topup_amount: '0.00',
      issued_at: null,
      created_at: at,
      updated_at: at,
      secrets: { pan, cvv: digits(3), expiry_month: String(now.getUTCMonth() + 1).padStart(2, '0'), expiry_year: String(now.getUTCFullYear() + 3) },
    };
    post('card_issue_held', [['wallet.available', 'debit', held], ['wallet.held', 'credit', held]], card.uuid);
    const order: FloorOrder = { uuid: timeOrderedUuid(), status: 'pending', card, held_amount: fmt(held), credit_amount: fmt(initial), fee_amount: fmt(fee), due: Date.now() + 50, updated_at: at, completed_at: null };
    queue.push(order);
    const accepted = { uuid: order.uuid, type: 'issue_card', status: 'pending', related_card_uuid: card.uuid, held_amount: order.held_amount, currency: product.currency, created_at: at, failure_reason: null, related_card_id: card.uuid };
    keys.set(scope, { hash, accepted });
    return accepted;
  };
  return { create, open: () => queue.length };
}

type Server = 'bare' | Variant;
interface Targets {
  origin: Record<Server, string>;
  token: Record<Server, string>;
}

/**
 * Child side: the bare peer and the three sandboxes, all on 127.0.0.1 in this process. Commands from the parent,
 * one per line: `begin`, then `end <server>`, answered once every order that server issued has completed, with
 * the process's CPU time since `begin` (JSON of `process.cpuUsage`).
 */
async function serve(): Promise<void> {
  const { ABILITIES, startSandbox } = await import('../packages/sandbox/src/index.js');
  const running: Awaited<ReturnType<typeof startSandbox>>[] = [];
  const targets = { origin: {}, token: {} } as Targets;
  const open: Record<Server, () => number> = { bare: () => 0, 'http only': () => 0, floor: () => 0, sandbox: () => 0 };
  let sample: unknown;
  for (const variant of ['sandbox', 'http only', 'floor'] as const) {
    const started = await startSandbox({ port: 0, host: '127.0.0.1', rateLimit: 0, ipRateLimit: 0, sandboxOptions: { onError: () => undefined } });
    running.push(started);
    const { token, headers } = await benchCard(started, ABILITIES);
    const cards = started.sandbox.cards as { create: (...args: never[]) => unknown };
    if (variant === 'sandbox') {
      sample = await (await fetch(`${started.baseUrl}/cards`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': 'floor-sample' }, body: BENCH_ISSUE })).json();
      const { orders } = started.sandbox;
      open.sandbox = () => orders.list(1, { status: 'pending' }).meta.total + orders.list(1, { status: 'processing' }).meta.total;
    } else if (variant === 'http only') {
      const real = cards.create.bind(cards) as (...args: unknown[]) => unknown;
      let canned: unknown;
      cards.create = ((...args: unknown[]) => (canned ??= real(...args))) as never;
    } else {
      const lean = await leanIssue();
      cards.create = lean.create as never;
      open.floor = lean.open;
    }
    targets.origin[variant] = started.origin;
    targets.token[variant] = token;
  }
  const bare = Fastify({ logger: false });
  bare.post('/api/v1/cards', async (_request, reply) => reply.code(202).send(sample));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  targets.origin.bare = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}`;
  targets.token.bare = '';
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  let cpu = process.cpuUsage();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'begin') {
      cpu = process.cpuUsage();
      process.stdout.write('begun\n');
    } else if (line.startsWith('end ')) {
      const server = line.slice(4) as Server;
      while (open[server]() > 0) await new Promise((r) => setTimeout(r, 10));
      process.stdout.write(`${JSON.stringify(process.cpuUsage(cpu))}\n`);
    }
  }
  await bare.close();
  for (const r of running) await r.close();
}

interface Measure {
  rps: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Server CPU per request, µs, until its orders completed. */
  cpu: number;
}

async function main(): Promise<void> {
  const { child, send, answer } = sourceChild(import.meta.filename);
  const targets = JSON.parse(await answer()) as Targets;
  const load = (server: Server, connections: number, duration: number): Promise<autocannon.Result> =>
    autocannon({ url: targets.origin[server], connections, duration, headers: { authorization: `Bearer ${targets.token[server]}` }, requests: benchRequests('post', '') });
  const measure = async (server: Server): Promise<Measure> => {
    send('begin');
    await answer();
    const result = await load(server, CONNECTIONS, DURATION_S);
    send(`end ${server}`);
    const used = JSON.parse(await answer()) as NodeJS.CpuUsage;
    const ok = result.requests.total - result.non2xx;
    return { rps: result.requests.average, p99: result.latency.p99, requests: result.requests.total, non2xx: result.non2xx, errors: result.errors, cpu: (used.user + used.system) / ok };
  };
  const servers = ['bare', 'http only', 'floor', 'sandbox'] as const;
  // Warm-up (not reported).
  for (const server of servers) await load(server, 10, 1);

  console.log(`POST /cards (fresh key), loopback, ${CONNECTIONS} connections, ${DURATION_S} s per server; servers in one child process`);
  console.log('CPU = server process time per request (user + system) until every order it issued completed\n');
  const row = (label: string, m: Measure, ratios = ''): void =>
    console.log(`${label.padEnd(10)} ${m.rps.toFixed(0).padStart(7)} req/s  p99 ${String(m.p99).padStart(4)} ms  CPU ${m.cpu.toFixed(1).padStart(6)} µs  non-2xx ${m.non2xx}  errors ${m.errors}${ratios}`);
  const first = await measure('bare');
  row('bare', first);
  const results = new Map<Variant, Measure>();
  for (const v of ['http only', 'floor', 'sandbox'] as const) {
    results.set(v, await measure(v));
    row(v, results.get(v)!);
  }
  const last = await measure('bare');
  row('bare', last, ' (again)');
  const peer = { rps: (first.rps + last.rps) / 2, cpu: (first.cpu + last.cpu) / 2 };
  console.log(`\nratios to bare (the mean of its two measurements):`);
  for (const [v, m] of results) console.log(`${v.padEnd(10)} throughput ${(m.rps / peer.rps).toFixed(2)}x, CPU per request ${(peer.cpu / m.cpu).toFixed(2)}x`);
  child.stdin!.end();
  await once(child, 'exit');
}

if (process.argv.includes('--serve')) await serve();
else await main();
