/**
 * Sandbox throughput, latency and webhook delivery on loopback, next to two peers in ONE run (ratios only between
 * measurements of this run): a bare Fastify route answering the same JSON (the difference is the cost of the
 * generated plugin, authentication, the rate counters and the storage work of the sandbox itself), and Prism's mock
 * server of the same document (`prism mock spec/openapi.yaml`, the stateless stand-in a team would otherwise run;
 * GET and POST only: it has no control API for the mixed case).
 * Before the sandbox moved to node:sqlite (issue 30) this bench ran one sandbox per SQLite driver side by side; the
 * figures of that run are in docs/decisions.md (P3).
 *
 * - `GET /cards/{uuid}`: one card read.
 * - `POST /cards` with a fresh `X-Idempotency-Key` per request (autocannon `setupRequest`): every request is
 *   a real issue (hold, order, card), and the orders then complete in the background as they would.
 * - mixed: 70 % card reads, 20 % issues (fresh key), 10 % simulated authorizations of 1.00 through the control
 *   API (`POST /sandbox/cards/{uuid}/authorizations`), in a fixed rotation per connection; the bare peer answers
 *   the same three routes with the same JSON.
 * Each at 10 and at 100 connections, 5 s per case (`BENCH_DURATION_S`; `BENCH_CONNECTIONS=100` for one level), in
 * `BENCH_ROUNDS` rounds (2 by default) whose order rotates, each server first in turn; a ratio is the median of the
 * per-round ratios, with their spread.
 * After each sandbox case the bench prints how many of the orders the load issued were still open (pending or
 * processing) when it stopped: work deferred past the window costs the sandbox nothing in the figure.
 *
 * - delivery latency (the first driver's sandbox): 200 card issues, one every 10 ms, to a sandbox whose healthy endpoint receives every event
 *   (latency = receipt minus the event's `occurred_at`), once alone and once next to an endpoint that never
 *   answers (registered first, default 10 s attempt timeout). The receivers run in the main thread.
 *
 * The servers run in a worker thread so that autocannon's own work does not share their event loop. The token
 * and the IP have no rate limit (`rateLimit: 0, ipRateLimit: 0`), so no request is refused with 429.
 *
 * Run: npm run bench -- sandbox   (BENCH_CONNECTIONS=100 for one level; from the repository root, so that
 * @card-api/* resolve to their sources)
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { isMainThread, parentPort, type Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { BENCH_AUTHORIZE as AUTHORIZE, BENCH_ISSUE as ISSUE, benchCard, benchRequests, median, tsxWorker, type BenchKind } from './lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const LEVELS = process.env.BENCH_CONNECTIONS ? [Number(process.env.BENCH_CONNECTIONS)] : [10, 100];
const DELIVERY_EVENTS = Number(process.env.BENCH_DELIVERY_EVENTS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DRIVERS = ['node:sqlite'];
const ROOT = path.resolve(import.meta.dirname, '..');

interface Targets {
  /** Origins (no path): the sandbox's API is under /api/v1, its control API under /sandbox. */
  sandbox: string;
  bare: string;
  token: string;
  cardUuid: string;
}

type Command = { type: 'close' } | { type: 'open-orders' } | { type: 'deliveries'; healthyUrl: string; hangingUrl: string | null; count: number };


/** Worker side: the sandbox (in memory) and the bare Fastify app, both on 127.0.0.1. */
async function serve(): Promise<void> {
  const { ABILITIES, createSandbox, startSandbox } = await import('../packages/sandbox/src/index.js');
  const running = await startSandbox({ port: 0, host: '127.0.0.1', rateLimit: 0, ipRateLimit: 0, sandboxOptions: { onError: () => undefined } });
  const { sandbox } = running;
  const { token, headers, cardUuid } = await benchCard(running, ABILITIES);
  const card: unknown = await (await fetch(`${running.baseUrl}/cards/${cardUuid}`, { headers })).json();
  const order = (await (await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': 'bench-sample' }, body: ISSUE })).json()) as unknown;
  const authorization = (await (await fetch(`${running.origin}/sandbox/cards/${cardUuid}/authorizations`, { method: 'POST', headers, body: AUTHORIZE })).json()) as unknown;

  // The peer: the same JSON from bare routes, no validation, no auth, no storage.
  const bare = Fastify({ logger: false });
  bare.get('/api/v1/cards/:uuid', async () => card);
  bare.post('/api/v1/cards', async (_request, reply) => reply.code(202).send(order));
  bare.post('/sandbox/cards/:uuid/authorizations', async (_request, reply) => reply.code(201).send(authorization));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareAddress = bare.server.address() as { port: number };

  const targets: Targets = { sandbox: running.origin, bare: `http://127.0.0.1:${bareAddress.port}`, token, cardUuid };
  parentPort!.postMessage(targets);
  parentPort!.on('message', async (command: Command) => {
    if (command.type === 'open-orders') {
      // Orders issued by the load and not completed yet: the work a case left behind when its load stopped.
      const open = sandbox.orders.list(1, { status: 'pending' }).meta.total + sandbox.orders.list(1, { status: 'processing' }).meta.total;
      parentPort!.postMessage({ open });
      return;
    }
    if (command.type === 'close') {
      await bare.close();
      await running.close();
      parentPort!.postMessage('closed');
      return;
    }
    // Delivery latency: a fresh sandbox with real timers; the receivers are in the main thread.
    const hooks = createSandbox({ orderLatencyMs: 0, onError: () => undefined });
    const ws = hooks.seedDefaultWorkspace().workspace.id;
    if (command.hangingUrl !== null) hooks.webhooks.registerEndpoint(ws, { url: command.hangingUrl, events: '*' });
    const healthy = hooks.webhooks.registerEndpoint(ws, { url: command.healthyUrl, events: '*' });
    for (let i = 0; i < command.count; i++) {
      hooks.cards.create(ws, { card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'Hook', cardholder_last_name: 'Bench' });
      await new Promise((r) => setTimeout(r, 10));
    }
    const expected = (): number => hooks.events.since(0).filter((e) => e.workspace_id === ws).length;
    const open = (): number => hooks.orders.list(ws, { status: 'pending' }).meta.total + hooks.orders.list(ws, { status: 'processing' }).meta.total;
    const deadline = Date.now() + 60_000;
    // Every order settled (so every event exists), then every event delivered.
    while (Date.now() < deadline && (open() > 0 || hooks.deliveries.list({ endpointId: healthy.id, status: 'succeeded' }).length < expected())) await new Promise((r) => setTimeout(r, 20));
    const delivered = hooks.deliveries.list({ endpointId: healthy.id, status: 'succeeded' }).length;
    const events = expected();
    hooks.close();
    parentPort!.postMessage({ events, delivered });
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

type Case = { name: string; kind: BenchKind };

async function measure(origin: string, kind: Case['kind'], token: string, cardUuid: string, connections: number, apiRoot?: string): Promise<Measure> {
  const result = await autocannon({
    url: origin,
    connections,
    duration: DURATION_S,
    headers: { authorization: `Bearer ${token}` },
    requests: benchRequests(kind, cardUuid, apiRoot),
  });
  return { rps: result.requests.average, mean: result.latency.mean, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total, non2xx: result.non2xx, errors: result.errors };
}

/** Prism's mock server of the public document, on 127.0.0.1 (it answers the document's examples, stateless). */
async function startPrismMock(): Promise<{ origin: string; close: () => Promise<void> }> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  const child = spawn(path.join(ROOT, 'node_modules/.bin/prism'), ['mock', path.join(ROOT, 'spec/openapi.yaml'), '--host', '127.0.0.1', '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = once(child, 'exit');
  const deadline = Date.now() + 120_000;
  while (!output.includes('Prism is listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`prism mock did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A receiver in this thread: `hang` never answers; otherwise 204 and the latency of each event recorded. */
async function receiver(hang: boolean): Promise<{ server: Server; url: string; latencies: number[] }> {
  const latencies: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (hang) return;
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { occurred_at: string };
      latencies.push(Date.now() - Date.parse(event.occurred_at));
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, latencies };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function deliveries(worker: Worker, withHanging: boolean): Promise<{ events: number; delivered: number; latencies: number[] }> {
  const healthy = await receiver(false);
  const hanging = withHanging ? await receiver(true) : null;
  try {
    worker.postMessage({ type: 'deliveries', healthyUrl: healthy.url, hangingUrl: hanging?.url ?? null, count: DELIVERY_EVENTS } satisfies Command);
    const [answer] = (await once(worker, 'message')) as [{ events: number; delivered: number }];
    return { ...answer, latencies: healthy.latencies };
  } finally {
    healthy.server.closeAllConnections();
    healthy.server.close();
    hanging?.server.closeAllConnections();
    hanging?.server.close();
  }
}

/** One sandbox per driver, each in its own worker (the first also serves the bare peer). */
async function startSandboxes(): Promise<Array<{ driver: string; worker: Worker; targets: Targets }>> {
  const started = [];
  for (const driver of DRIVERS) {
    const worker = tsxWorker(import.meta.url);
    const [targets] = (await once(worker, 'message')) as [Targets];
    started.push({ driver, worker, targets });
  }
  return started;
}

async function main(): Promise<void> {
  const sandboxes = await startSandboxes();
  const first = sandboxes[0]!;
  const prism = await startPrismMock();
  const cases: Case[] = [
    { name: 'GET /cards/{uuid}', kind: 'get' },
    { name: 'POST /cards (fresh key)', kind: 'post' },
    { name: 'mixed 70/20/10', kind: 'mixed' },
  ];
  // Every server of a case: the two peers and one sandbox per driver.
  type Side = { label: string; origin: string; token: string; cardUuid: string; apiRoot?: string; worker?: Worker };
  const sidesOf = (kind: BenchKind): Side[] => [
    { label: 'bare', origin: first.targets.bare, token: first.targets.token, cardUuid: first.targets.cardUuid },
    ...(kind === 'mixed' ? [] : [{ label: 'prism', origin: prism.origin, token: first.targets.token, cardUuid: first.targets.cardUuid, apiRoot: '' }]),
    ...sandboxes.map((s) => ({ label: s.driver, origin: s.targets.sandbox, token: s.targets.token, cardUuid: s.targets.cardUuid, worker: s.worker })),
  ];
  console.log(`loopback, ${LEVELS.join(' and ')} connections, ${DURATION_S} s per case, ${ROUNDS} rounds in rotated order; sandboxes (${DRIVERS.join(', ')}) and bare in worker threads, prism mock in a child process\n`);
  const header = `${'case'.padEnd(26)} ${'conns'.padStart(5)} ${'server'.padEnd(17)} ${'req/s'.padStart(9)} ${'mean ms'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'requests'.padStart(9)} ${'non-2xx'.padStart(8)} ${'errors'.padStart(7)}`;
  console.log(header);
  // Warm-up (not reported): every route of every server once through the JIT.
  for (const side of sidesOf('get')) {
    for (const kind of side.label === 'prism' ? (['get', 'post'] as const) : (['mixed'] as const)) {
      await autocannon({ url: side.origin, connections: 10, duration: 1, headers: { authorization: `Bearer ${side.token}` }, requests: benchRequests(kind, side.cardUuid, side.apiRoot) });
    }
  }
  const ratios: string[] = [];
  for (const connections of LEVELS) {
    for (const [index, c] of cases.entries()) {
      const sides = sidesOf(c.kind);
      // Rounds with the order rotated (each server first in turn, starting differently from case to case): a fixed
      // order let whichever ran while the shared machine was busy lose.
      const rounds: Array<Map<string, Measure & { open?: number }>> = [];
      for (let round = 0; round < ROUNDS; round++) {
        const got = new Map<string, Measure & { open?: number }>();
        const order = sides.map((_, i) => sides[(i + index + round) % sides.length]!);
        for (const side of order) {
          const m: Measure & { open?: number } = await measure(side.origin, c.kind, side.token, side.cardUuid, connections, side.apiRoot);
          if (side.worker !== undefined && c.kind !== 'get') {
            // Right after the sandbox's own load, before anything else runs.
            side.worker.postMessage({ type: 'open-orders' } satisfies Command);
            m.open = ((await once(side.worker, 'message')) as [{ open: number }])[0].open;
          }
          got.set(side.label, m);
          console.log(
            `${c.name.padEnd(26)} ${String(connections).padStart(5)} ${`${side.label} r${round + 1}`.padEnd(17)} ${m.rps.toFixed(0).padStart(9)} ${m.mean.toFixed(2).padStart(8)} ${String(m.p50).padStart(7)} ${String(m.p99).padStart(7)} ${String(m.requests).padStart(9)} ${String(m.non2xx).padStart(8)} ${String(m.errors).padStart(7)}`,
          );
        }
        rounds.push(got);
      }
      // autocannon reports percentiles in whole milliseconds: a peer's p99 of 0 has no ratio, the mean does.
      const x = (ours: string, peer: string, pick: (m: Measure) => number): string => {
        const per = rounds.map((r) => (pick(r.get(peer)!) === 0 ? Number.NaN : pick(r.get(ours)!) / pick(r.get(peer)!)));
        if (per.some(Number.isNaN)) return `n/a (${peer} ${rounds.map((r) => pick(r.get(peer)!)).join(', ')} ms)`;
        return `${median(per).toFixed(2)}x (rounds ${Math.min(...per).toFixed(2)}-${Math.max(...per).toFixed(2)})`;
      };
      for (const s of sandboxes) {
        const issued = (m: Measure) => (c.kind === 'get' ? 0 : Math.round(m.requests * (c.kind === 'post' ? 1 : 0.2)));
        const backlog = c.kind === 'get' ? '' : `; orders still open when the load stopped: ${rounds.map((r) => `${r.get(s.driver)!.open} of about ${issued(r.get(s.driver)!)}`).join(', ')} issued`;
        const peers = sides.filter((side) => side.worker === undefined).map((side) => `${x(s.driver, side.label, (m) => m.rps)} of ${side.label}`);
        ratios.push(`${c.name} @${connections} ${s.driver}: throughput ${peers.join(', ')}; mean latency ${x(s.driver, 'bare', (m) => m.mean)} of bare, p99 ${x(s.driver, 'bare', (m) => m.p99)} (p99 ${rounds.map((r) => r.get(s.driver)!.p99).join(', ')} ms)${backlog}`);
      }
      for (const s of sandboxes.slice(1)) ratios.push(`${c.name} @${connections}: ${first.driver} throughput ${x(first.driver, s.driver, (m) => m.rps)} of ${s.driver}`);
    }
  }
  console.log('');
  for (const line of ratios) console.log(line);
  await prism.close();

  const worker = first.worker;
  console.log(`\nwebhook delivery to a healthy endpoint (${first.driver}), ${DELIVERY_EVENTS} card issues 10 ms apart (latency = receipt - occurred_at, ms)`);
  const alone = await deliveries(worker, false);
  const hung = await deliveries(worker, true);
  for (const [label, run] of [['healthy endpoint alone', alone], ['next to a hanging endpoint', hung]] as const) {
    const l = run.latencies;
    console.log(
      `${label.padEnd(28)} delivered ${run.delivered}/${run.events}  median ${percentile(l, 50)}  p90 ${percentile(l, 90)}  p99 ${percentile(l, 99)}  max ${percentile(l, 100)}`,
    );
  }
  const base = Math.max(1, percentile(alone.latencies, 50));
  console.log(`median with a hanging endpoint: ${(percentile(hung.latencies, 50) / base).toFixed(2)}x of the median alone (medians under 1 ms count as 1 ms)`);

  for (const s of sandboxes) {
    s.worker.postMessage({ type: 'close' } satisfies Command);
    await once(s.worker, 'message');
    await s.worker.terminate();
  }
}

if (isMainThread) await main();
else await serve();
