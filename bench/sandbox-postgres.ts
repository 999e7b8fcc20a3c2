/**
 * The sandbox on PostgreSQL (issue 35) next to the sandbox on SQLite, in ONE run: requests per second and latency of
 * `GET /cards/{uuid}` and `POST /cards` (a fresh idempotency key per request) on loopback, against
 * - `sqlite`: one `gen-card-api sandbox --db <file>` (the default engine, on a file so that both are durable);
 * - `pg x1`: one `gen-card-api sandbox --db postgres://...`;
 * - `pg x2`: two of them on one database, the load split evenly (each gets half the connections; the figure is the
 *   sum of both).
 * PostgreSQL is a server started for the run (test/helpers/postgres.ts: fsync off, as for the tests; a production
 * server syncs every commit, which costs the POST case more). Every sandbox is a child process; autocannon runs in
 * this one. Each case runs `BENCH_ROUNDS` rounds (2 by default) in an order rotated per round; a ratio is the median
 * of the per-round ratios against `sqlite`, with their spread. 10 connections (`BENCH_CONNECTIONS`), 5 s per case
 * (`BENCH_DURATION_S`). On a machine with few CPUs two replicas share them with PostgreSQL and autocannon: the
 * `pg x2` figure shows what a second replica costs there, not what a second machine would add.
 *
 * First, one statement through the storage seam (a card product by id, the synchronous `get` the domain code
 * calls) on each engine, in interleaved rounds (bench/lib.ts): what the worker-thread bridge over `pg` costs per
 * statement against node:sqlite in process.
 *
 * Run: npm run bench -- sandbox-postgres
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startPostgres } from '../test/helpers/postgres.js';
import { openStore } from '../packages/sandbox/src/store/index.js';
import { migrations } from '../packages/sandbox/src/migrations.js';
import { benchRequests, interleaved, median, pairedRatio, type BenchKind } from './lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ROOT = path.resolve(import.meta.dirname, '..');
const GEN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CARD_API_')));

interface Replica {
  child: ChildProcess;
  origin: string;
  token: string;
}

async function startReplica(db: string): Promise<Replica> {
  // Port 0: the sandbox prints the port it got (a port found free here could be taken before it listens).
  const child = spawn(process.execPath, [GEN, 'sandbox', '--db', db, '--port', '0', '--rate-limit', '0', '--ip-rate-limit', '0'], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const deadline = Date.now() + 120_000;
  while (!/CARD_API_TOKEN=\S+\n/.test(stdout)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sandbox did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const origin = new URL(/^CARD_API_BASE_URL=(.*)$/m.exec(stdout)![1]!).origin;
  return { child, origin, token: /^CARD_API_TOKEN=(.*)$/m.exec(stdout)![1]! };
}

/** Funds the default workspace for the run's issues and issues the card the reads load; returns its uuid. */
async function prepare(replica: Replica): Promise<string> {
  const headers = { authorization: `Bearer ${replica.token}`, 'content-type': 'application/json' };
  const deposit = await fetch(`${replica.origin}/sandbox/deposits`, { method: 'POST', headers, body: JSON.stringify({ amount: '1000000000.00' }) });
  if (!deposit.ok) throw new Error(`deposit: ${deposit.status} ${await deposit.text()}`);
  const body = JSON.stringify({ card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' });
  const accepted = (await (await fetch(`${replica.origin}/api/v1/cards`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': 'bench-card' }, body })).json()) as { data: { uuid: string } };
  for (let i = 0; i < 500; i++) {
    const polled = (await (await fetch(`${replica.origin}/api/v1/orders/${accepted.data.uuid}`, { headers })).json()) as { data: { status: string; related_card_uuid: string | null } };
    if (polled.data.status === 'completed' && polled.data.related_card_uuid !== null) return polled.data.related_card_uuid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the bench card was not issued');
}

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Load spread evenly over `replicas` at once; requests per second summed, latency of the first. */
async function measure(replicas: Replica[], kind: BenchKind, cardUuid: string): Promise<Measure> {
  const results = await Promise.all(
    replicas.map((r) =>
      autocannon({
        url: r.origin,
        connections: Math.max(1, Math.round(CONNECTIONS / replicas.length)),
        duration: DURATION_S,
        headers: { authorization: `Bearer ${r.token}` },
        requests: benchRequests(kind, cardUuid),
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p50: median(results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.non2xx, 0),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'card-api-bench-pg-'));
  const server = await startPostgres();
  const started: Replica[] = [];
  try {
    const sqlite = [await startReplica(path.join(dir, 'bench.db'))];
    const one = [await startReplica(await server.createDatabase('bench_one'))];
    const twoDb = await server.createDatabase('bench_two');
    const two = await Promise.all([startReplica(twoDb), startReplica(twoDb)]);
    started.push(...sqlite, ...one, ...two);
    const setups: Array<[string, Replica[], string]> = [
      ['sqlite', sqlite, await prepare(sqlite[0]!)],
      ['pg x1', one, await prepare(one[0]!)],
      ['pg x2', two, await prepare(two[0]!)],
    ];
    // One statement through the seam, each engine.
    const sqliteStore = openStore(path.join(dir, 'statement.db'), migrations);
    const pgStore = openStore(await server.createDatabase('bench_statement'), migrations);
    const byId = 'SELECT id, code, card_issue_fixed FROM card_products WHERE id = ?';
    const { wall } = await interleaved(
      [
        ['node:sqlite', () => sqliteStore.prepare(byId).get(1)],
        ['postgres', () => pgStore.prepare(byId).get(1)],
      ],
      { rounds: 5, batchMs: 300 },
    );
    sqliteStore.close();
    pgStore.close();
    const perStatement = pairedRatio(wall.get('postgres')!, wall.get('node:sqlite')!);
    console.log(`one statement (get by key): node:sqlite ${median(wall.get('node:sqlite')!).toFixed(1)} µs, postgres ${median(wall.get('postgres')!).toFixed(1)} µs (${perStatement.text})`);

    console.log(`sandbox on SQLite vs PostgreSQL: ${CONNECTIONS} connections, ${DURATION_S} s per case, ${ROUNDS} rounds (order rotated)`);
    for (const kind of ['get', 'post'] as const) {
      const rounds = new Map<string, Measure[]>(setups.map(([name]) => [name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < setups.length; i++) {
          const [name, replicas, cardUuid] = setups[(i + round) % setups.length]!;
          rounds.get(name)!.push(await measure(replicas, kind, cardUuid));
        }
      }
      const base = rounds.get('sqlite')!;
      for (const [name, measures] of rounds) {
        const ratios = measures.map((m, i) => m.rps / base[i]!.rps);
        const spread = name === 'sqlite' ? '' : `  rps vs sqlite x${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`;
        console.log(
          `${kind.toUpperCase().padEnd(4)} ${name.padEnd(7)} ${median(measures.map((m) => m.rps)).toFixed(0).padStart(6)} req/s  p50 ${median(measures.map((m) => m.p50)).toFixed(1)} ms  p99 ${median(measures.map((m) => m.p99)).toFixed(1)} ms  errors+non-2xx ${measures.reduce((s, m) => s + m.errors, 0)}${spread}`,
        );
      }
    }
  } finally {
    for (const r of started) {
      r.child.kill('SIGTERM');
      if (r.child.exitCode === null) await once(r.child, 'exit');
    }
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
