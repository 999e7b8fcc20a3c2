/**
 * CPU profile of the sandbox under load: `node --import tsx scripts/profile-sandbox.ts [get|post|mixed] [connections]`.
 *
 * Starts the sandbox (in memory, no rate limits) in a child process, warms it up, then drives one case of
 * bench/sandbox.ts at it with autocannon from this process for `PROFILE_DURATION_S` seconds (default 5) while the
 * child profiles itself (the inspector's CPU profiler, started and stopped around the load: start-up, compilation
 * and the warm-up are not in the figures). It prints the functions with the most self time and the heaviest
 * inclusive frames of the sandbox's own code. The profile file is kept (its path is printed) for Chrome DevTools.
 *
 * The sandbox runs from its TypeScript sources (the `@card-api/source` condition), as the tests and benches do.
 *
 * It also prints the sandbox process's CPU time per request over the load (all its threads, user and system), a
 * figure that the machine's other load does not inflate; `PROFILE_CPU_ONLY=1` measures it without the profiler.
 *
 * Not a benchmark (it prints no ratios and profiling slows the server); it answers "where does the time go".
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { benchCard, benchRequests, sourceChild, type BenchKind } from '../bench/lib.js';

interface Targets {
  origin: string;
  token: string;
  cardUuid: string;
}


async function serve(): Promise<void> {
  const { ABILITIES, startSandbox } = await import('../packages/sandbox/src/index.js');
  const running = await startSandbox({ port: 0, host: '127.0.0.1', rateLimit: 0, ipRateLimit: 0, sandboxOptions: { onError: () => undefined } });
  const { token, cardUuid } = await benchCard(running, ABILITIES);
  process.stdout.write(`${JSON.stringify({ origin: running.origin, token, cardUuid } satisfies Targets)}\n`);
  // Commands from the parent, one per line: `start`, then `stop <file>` (writes the profile, answers `stopped`).
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  const profiling = process.env.PROFILE_CPU_ONLY !== '1';
  let cpu = process.cpuUsage();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'start') {
      if (profiling) await session.post('Profiler.start');
      cpu = process.cpuUsage();
      process.stdout.write('started\n');
    } else if (line.startsWith('stop ')) {
      // CPU time of the process (all its threads) over the load: unlike the profile's wall-clock samples, it does
      // not count the time this process waited for a core the load generator was using.
      const used = process.cpuUsage(cpu);
      if (profiling) writeFileSync(line.slice(5), JSON.stringify((await session.post('Profiler.stop')).profile));
      process.stdout.write(`${JSON.stringify(used)}\n`);
    }
  }
  await running.close();
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

function summarize(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const label = (n: ProfileNode): string => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
  let total = 0;
  for (const t of selfTime.values()) total += t;
  const bySelf = new Map<string, number>();
  for (const n of profile.nodes) bySelf.set(label(n), (bySelf.get(label(n)) ?? 0) + (selfTime.get(n.id) ?? 0));
  // Inclusive time per frame label, counting a recursive label once per stack.
  const inclusive = new Map<string, number>();
  const subtree = new Map<number, number>();
  const sum = (id: number): number => {
    const known = subtree.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id)!;
    let t = selfTime.get(id) ?? 0;
    for (const c of n.children ?? []) t += sum(c);
    subtree.set(id, t);
    return t;
  };
  const visit = (id: number, open: Set<string>): void => {
    const n = byId.get(id)!;
    const key = label(n);
    const fresh = !open.has(key);
    if (fresh) inclusive.set(key, (inclusive.get(key) ?? 0) + sum(id));
    const next = fresh ? new Set(open).add(key) : open;
    for (const c of n.children ?? []) visit(c, next);
  };
  visit(profile.nodes[0]!.id, new Set());
  const pct = (t: number): string => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
  console.log(`\nself time, top 20 (of ${(total / 1e6).toFixed(1)} s sampled)`);
  for (const [k, t] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${pct(t)}  ${k}`);
  console.log('\ninclusive time of the sandbox, server runtime and generated code, top 25');
  const ours = /\/(packages|templates)\//;
  const frames = [...inclusive].filter(([k]) => ours.test(k.split(' ')[1] ?? '') || k.includes('packages/') || k.includes('src/'));
  for (const [k, t] of frames.sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(t)}  ${k}`);
}

async function main(): Promise<void> {
  const kind = (process.argv[2] ?? 'get') as BenchKind;
  if (!['get', 'post', 'mixed'].includes(kind)) throw new Error(`case must be get, post or mixed, not ${kind}`);
  const connections = Number(process.argv[3] ?? 100);
  const duration = Number(process.env.PROFILE_DURATION_S ?? 5);
  const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-profile-'));
  const { child, send, answer } = sourceChild(import.meta.filename);
  const targets = JSON.parse(await answer()) as Targets;
  const headers = { authorization: `Bearer ${targets.token}` };
  // Warm-up outside the profile, then the profiled run.
  await autocannon({ url: targets.origin, connections: 10, duration: 1, headers, requests: benchRequests(kind, targets.cardUuid) });
  send('start');
  await answer();
  const result = await autocannon({ url: targets.origin, connections, duration, headers, requests: benchRequests(kind, targets.cardUuid) });
  const file = path.join(dir, `${kind}-${connections}.cpuprofile`);
  send(`stop ${file}`);
  const used = JSON.parse(await answer()) as NodeJS.CpuUsage;
  const perRequest = (µs: number): string => (µs / result.requests.total).toFixed(1);
  console.log(`${kind} @${connections}: ${result.requests.average.toFixed(0)} req/s while measured, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
  const cpuOnly = process.env.PROFILE_CPU_ONLY === '1';
  console.log(`sandbox process CPU per request: ${perRequest(used.user + used.system)} µs (user ${perRequest(used.user)}, system ${perRequest(used.system)})${cpuOnly ? '' : ', profiler included'}`);
  child.stdin!.end();
  await new Promise((resolve) => child.once('exit', resolve));
  if (cpuOnly) return;
  summarize(file);
  console.log(`\nprofile: ${file}`);
}
if (process.argv.includes('--serve')) await serve();
else await main();
