/**
 * Sandbox throughput and latency on loopback, next to a bare Fastify route answering the same JSON, in ONE
 * run (ratios only between measurements of this run). The difference is the cost of the generated plugin
 * (request and response validation, D2 errors, request ids), authentication and the SQLite rate counters,
 * and the storage work of the sandbox itself.
 *
 * - `GET /cards/{uuid}`: one card read.
 * - `POST /cards` with a fresh `X-Idempotency-Key` per request (autocannon `setupRequest`): every request is
 *   a real issue (hold, order, card), and the orders then complete in the background as they would.
 *
 * The servers run in a worker thread so that autocannon's own work does not share their event loop.
 * Loopback only, 10 connections, 5 s per case. The bench token has its own high rate limit, and the IP
 * ceiling is raised, so no request is refused with 429.
 *
 * Run: node --import tsx bench/sandbox.ts
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import Fastify from 'fastify';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 10;

interface Targets {
  sandbox: string;
  bare: string;
  token: string;
  cardUuid: string;
}

/** Worker side: the sandbox (in memory) and the bare Fastify app, both on 127.0.0.1. */
async function serve(): Promise<void> {
  const { ABILITIES, startSandbox } = await import('../packages/sandbox/src/index.js');
  const running = await startSandbox({ port: 0, host: '127.0.0.1', sandboxOptions: { rateLimits: { ipPerMinute: 1_000_000_000 }, onError: () => undefined } });
  const { sandbox } = running;
  const workspaceId = 1;
  sandbox.admin.deposit(workspaceId, { amount: '1000000000.00', description: 'bench funding' });
  const token = sandbox.admin.createToken(workspaceId, { name: 'bench', abilities: [...ABILITIES], rateLimitPerMinute: 1_000_000_000 }).token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const issue = { card_product_id: 1, initial_topup_amount: '20.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };
  const accepted = (await (await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers, body: JSON.stringify(issue) })).json()) as { data: { related_card_uuid: string } };
  const cardUuid = accepted.data.related_card_uuid;
  // Wait for the card to be active so that the read is of a settled card.
  let card: unknown;
  for (let i = 0; i < 200; i++) {
    card = await (await fetch(`${running.baseUrl}/cards/${cardUuid}`, { headers })).json();
    if ((card as { data: { status: string } }).data.status === 'active') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const order = (await (await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': 'bench-sample' }, body: JSON.stringify(issue) })).json()) as unknown;

  // The peer: the same JSON from a bare route, no validation, no auth, no storage.
  const bare = Fastify({ logger: false });
  bare.get('/api/v1/cards/:uuid', async () => card);
  bare.post('/api/v1/cards', async (_request, reply) => reply.code(202).send(order));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareAddress = bare.server.address() as { port: number };

  const targets: Targets = { sandbox: running.baseUrl, bare: `http://127.0.0.1:${bareAddress.port}/api/v1`, token, cardUuid };
  parentPort!.postMessage(targets);
  parentPort!.once('message', async () => {
    await bare.close();
    await running.close();
    parentPort!.postMessage('closed');
  });
}

interface Measure {
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function measure(url: string, method: 'GET' | 'POST', token: string): Promise<Measure> {
  const body = JSON.stringify({ card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'Bench', cardholder_last_name: 'Mark' });
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    method,
    headers: { authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(method === 'POST'
      ? {
          requests: [
            {
              method: 'POST' as const,
              body,
              // A fresh key per request: each POST is a new issue, not an idempotent replay.
              setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-idempotency-key': randomUUID() } }),
            },
          ],
        }
      : {}),
  });
  return { rps: result.requests.average, mean: result.latency.mean, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, non2xx: result.non2xx, errors: result.errors };
}

async function main(): Promise<void> {
  // On Node 20 a worker does not inherit `--import tsx` hooks for its entry: register tsx, then load this file.
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true });
  const [targets] = (await once(worker, 'message')) as [Targets];
  const cases = [
    { name: 'GET /cards/{uuid}', method: 'GET' as const, path: `/cards/${targets.cardUuid}` },
    { name: 'POST /cards (fresh key)', method: 'POST' as const, path: '/cards' },
  ];
  console.log(`loopback, ${CONNECTIONS} connections, ${DURATION_S} s per case; servers in a worker thread\n`);
  const header = `${'case'.padEnd(26)} ${'server'.padEnd(8)} ${'req/s'.padStart(9)} ${'mean ms'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'requests'.padStart(9)} ${'non-2xx'.padStart(8)} ${'errors'.padStart(7)}`;
  console.log(header);
  const ratios: string[] = [];
  for (const c of cases) {
    const bare = await measure(`${targets.bare}${c.path}`, c.method, targets.token);
    const sandbox = await measure(`${targets.sandbox}${c.path}`, c.method, targets.token);
    for (const [label, m] of [['bare', bare], ['sandbox', sandbox]] as const) {
      console.log(
        `${c.name.padEnd(26)} ${label.padEnd(8)} ${m.rps.toFixed(0).padStart(9)} ${m.mean.toFixed(2).padStart(8)} ${String(m.p50).padStart(7)} ${String(m.p99).padStart(7)} ${String(m.requests).padStart(9)} ${String(m.non2xx).padStart(8)} ${String(m.errors).padStart(7)}`,
      );
    }
    // autocannon reports percentiles in whole milliseconds: a bare p50 of 0 has no ratio, the mean does.
    const x = (a: number, b: number): string => (b === 0 ? `n/a (bare ${b} ms)` : `${(a / b).toFixed(2)}x`);
    ratios.push(
      `${c.name}: sandbox throughput ${x(sandbox.rps, bare.rps)} of bare (bare ${x(bare.rps, sandbox.rps)} faster); mean latency ${x(sandbox.mean, bare.mean)}, p50 ${x(sandbox.p50, bare.p50)}, p99 ${x(sandbox.p99, bare.p99)}`,
    );
  }
  console.log('');
  for (const line of ratios) console.log(line);
  worker.postMessage('close');
  await once(worker, 'message');
  await worker.terminate();
}

if (isMainThread) await main();
else await serve();
