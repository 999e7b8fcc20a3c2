/** Small helpers shared by the benchmarks: timing with warm-up, medians, ratio lines, the sandbox bench's card and requests. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type autocannon from 'autocannon';

export async function sample(fn: () => Promise<unknown> | unknown, runs: number, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

/**
 * Per-call time of each task, measured in rounds: every round runs a batch of calls of each task, back to back, in
 * an order rotated from round to round (task i first in round i), so that no task always runs first, last, or
 * right after the same neighbour, and a task's batches meet the machine's load in every position. The batch size
 * is calibrated once, untimed, to take about `batchMs` for the slowest task; every task runs that many calls.
 * Returns, per task, the mean wall time of one call in each round and the mean process CPU time (user + system,
 * every thread: GC, the thread pool), both in microseconds; compare tasks round by round. On a shared machine the
 * CPU figure is the steadier one: a batch that was preempted loses wall time, not CPU time.
 */
export async function interleaved(
  tasks: ReadonlyArray<readonly [name: string, fn: () => unknown]>,
  options: { rounds: number; batchMs: number; warmupMs?: number },
): Promise<{ wall: Map<string, number[]>; cpu: Map<string, number[]> }> {
  const run = async (fn: () => unknown, calls: number): Promise<{ wall: number; cpu: number }> => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < calls; i++) await fn();
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { wall, cpu: (used.user + used.system) / 1000 };
  };
  // Warm-up: every task for warmupMs, so that each is compiled before any batch counts.
  for (const [, fn] of tasks) {
    const until = performance.now() + (options.warmupMs ?? 300);
    while (performance.now() < until) await fn();
  }
  let slowest = 0;
  for (const [, fn] of tasks) slowest = Math.max(slowest, (await run(fn, 200)).wall / 200);
  const calls = Math.max(20, Math.round(options.batchMs / Math.max(slowest, 1e-3)));
  const wall = new Map<string, number[]>(tasks.map(([name]) => [name, []]));
  const cpu = new Map<string, number[]>(tasks.map(([name]) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < tasks.length; i++) {
      const [name, fn] = tasks[(i + round) % tasks.length]!;
      const t = await run(fn, calls);
      wall.get(name)!.push((t.wall / calls) * 1000);
      cpu.get(name)!.push((t.cpu / calls) * 1000);
    }
  }
  return { wall, cpu };
}

/**
 * `a/b` per round (the rounds of {@link interleaved}): the median ratio and its spread, and the ratio of each
 * side's fastest round (the least disturbed measurement of each, when the machine is busy for both).
 */
export function pairedRatio(a: number[], b: number[]): { median: number; min: number; max: number; fastest: number; text: string } {
  const ratios = a.map((x, i) => x / b[i]!);
  const m = median(ratios);
  const [min, max] = [Math.min(...ratios), Math.max(...ratios)];
  const fastest = Math.min(...a) / Math.min(...b);
  return { median: m, min, max, fastest, text: `${m.toFixed(3)}x (rounds ${min.toFixed(3)}-${max.toFixed(3)}; fastest rounds ${fastest.toFixed(3)}x)` };
}

/** One cold process: wall time, and CPU (user + system) when GNU time is there to report it. */
export interface ColdSample {
  wall: number;
  cpu: number;
}

const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/**
 * Runs each command as a fresh process, `rounds` times, the order rotated from round to round (command i first in
 * round i), so that each side of a pair meets the shared machine's load in every position. CPU comes from GNU time
 * (NaN without it). A command that exits non-zero fails the bench with its stderr.
 */
export function coldRounds(
  commands: ReadonlyArray<{ label: string; command: string; args: string[] }>,
  rounds: number,
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Map<string, ColdSample[]> {
  const samples = new Map<string, ColdSample[]>(commands.map((c) => [c.label, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < commands.length; i++) {
      const { label, command, args } = commands[(i + round) % commands.length]!;
      const [file, argv] = GNU_TIME ? [GNU_TIME, ['-f', '@@cpu %U %S', command, ...args]] : [command, args];
      const started = performance.now();
      const result = spawnSync(file, argv, { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const wall = performance.now() - started;
      if (result.status !== 0) throw new Error(`${label}: ${command} ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
      const cpu = /@@cpu ([\d.]+) ([\d.]+)/.exec(result.stderr ?? '');
      samples.get(label)!.push({ wall, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : Number.NaN });
    }
  }
  return samples;
}

/** `ours / peer` of two {@link coldRounds} series: ratio of medians, and the spread of the per-round ratios. */
export function coldRatio(ours: ColdSample[], peer: ColdSample[], key: keyof ColdSample): { median: number; text: string } {
  const m = median(ours.map((s) => s[key])) / median(peer.map((s) => s[key]));
  const per = ours.map((s, i) => s[key] / peer[i]![key]);
  return { median: m, text: Number.isNaN(m) ? 'n/a' : `${m.toFixed(2)}x (rounds ${Math.min(...per).toFixed(2)}-${Math.max(...per).toFixed(2)})` };
}

/** `median (min-max) ms` of one key of {@link coldRounds} samples. */
export function coldText(samples: ColdSample[], key: keyof ColdSample): string {
  const values = samples.map((s) => s[key]);
  if (values.some(Number.isNaN)) return 'n/a';
  return `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function ratio(ours: number, peer: number): string {
  return `${(ours / peer).toFixed(2)}x`;
}

/**
 * An OpenAPI document with the operations of `doc` replicated `copies` times under distinct paths, operation ids
 * and client resources: the synthetic large spec of bench/generate.ts and bench/diff.ts.
 */
export function replicateOperations(doc: any, copies: number): any {
  const out = structuredClone(doc);
  const paths: Record<string, any> = {};
  for (let i = 0; i < copies; i += 1) {
    for (const [route, item] of Object.entries<any>(doc.paths)) {
      const copy = structuredClone(item);
      for (const method of ['get', 'post']) {
        if (!copy[method]) continue;
        copy[method].operationId = `${copy[method].operationId}${i}`;
        copy[method]['x-client'] = { ...copy[method]['x-client'], resource: `${copy[method]['x-client'].resource ?? 'meta'}${i}` };
      }
      paths[`/r${i}${route}`] = copy;
    }
  }
  out.paths = paths;
  return out;
}

/**
 * A funded sandbox token and an active card, through the HTTP API: deposits into the default workspace, mints a
 * token with every ability, issues a card and polls its order until it completed (an issue names its card only
 * then, D29). For the sandbox benchmark and the profile script, which load the same card.
 */
export async function benchCard(
  running: { baseUrl: string; sandbox: { admin: { deposit(ws: number, input: { amount: string; description: string }): unknown; createToken(ws: number, input: { name: string; abilities: string[] }): { token: string } } } },
  abilities: readonly string[],
): Promise<{ token: string; headers: Record<string, string>; cardUuid: string }> {
  running.sandbox.admin.deposit(1, { amount: '1000000000.00', description: 'bench funding' });
  const token = running.sandbox.admin.createToken(1, { name: 'bench', abilities: [...abilities] }).token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const issue = { card_product_id: 1, initial_topup_amount: '100000.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };
  const accepted = (await (await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers, body: JSON.stringify(issue) })).json()) as { data: { uuid: string } };
  for (let i = 0; i < 200; i++) {
    const polled = (await (await fetch(`${running.baseUrl}/orders/${accepted.data.uuid}`, { headers })).json()) as { data: { status: string; related_card_uuid: string | null } };
    if (polled.data.status === 'completed' && polled.data.related_card_uuid !== null) return { token, headers, cardUuid: polled.data.related_card_uuid };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the bench card was not issued');
}

/** The body of every benchmarked issue, and of a simulated authorization. */
export const BENCH_ISSUE = JSON.stringify({ card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'Bench', cardholder_last_name: 'Mark' });
export const BENCH_AUTHORIZE = JSON.stringify({ amount: '1.00' });

export type BenchKind = 'get' | 'post' | 'mixed';

/**
 * autocannon requests of a sandbox case; the mixed rotation is 7 reads, 2 issues, 1 authorization per 10 requests.
 * `apiRoot` is where the public API's paths start (a Prism mock serves them at the root).
 */
export function benchRequests(kind: BenchKind, cardUuid: string, apiRoot = '/api/v1'): autocannon.Request[] {
  const read = { method: 'GET' as const, path: `${apiRoot}/cards/${cardUuid}` };
  const issue = {
    method: 'POST' as const,
    path: `${apiRoot}/cards`,
    body: BENCH_ISSUE,
    headers: { 'content-type': 'application/json' },
    // A fresh key per request: each POST is a new issue, not an idempotent replay.
    setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-idempotency-key': randomUUID() } }),
  };
  const authorize = { method: 'POST' as const, path: `/sandbox/cards/${cardUuid}/authorizations`, body: BENCH_AUTHORIZE, headers: { 'content-type': 'application/json' } };
  if (kind === 'get') return [read];
  if (kind === 'post') return [issue];
  return [read, read, issue, read, read, authorize, read, issue, read, read];
}

/**
 * A worker thread that runs `moduleUrl` (the caller's own file, `import.meta.url`) from its TypeScript source: on
 * Node 20 a worker does not inherit the `--import tsx` hooks for its entry, so it registers tsx, then loads the file.
 */
export function tsxWorker(moduleUrl: string): Worker {
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  return new Worker(boot, { eval: true });
}

/**
 * A child process that runs `file` (the caller's own, `import.meta.filename`) with `--serve` from its TypeScript
 * sources (the `@card-api/source` condition), and a line protocol with it: `send` writes one command line to its
 * stdin, `answer` reads its next stdout line (and throws if it exited). Its stderr is this process's.
 */
export function sourceChild(file: string): { child: ChildProcess; send: (line: string) => void; answer: () => Promise<string> } {
  const child = spawn(process.execPath, ['--conditions=@card-api/source', '--import', 'tsx', file, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    answer: async () => {
      const next = await lines.next();
      if (next.done) throw new Error(`${file} --serve exited`);
      return next.value as string;
    },
  };
}
