/**
 * Starts and stops the sandbox as a user does, N times, and fails on any start or stop that is not clean:
 * `npm run cycles -- [--cycles N] [--bin <card-api-sandbox.js>]` (N defaults to 50).
 *
 * Each cycle runs the `card-api-sandbox` bin with `--port 0` in a fresh process, reads `CARD_API_BASE_URL` from its
 * stdout, waits for `GET /ping` to answer 200 with its token, then sends a signal and expects exit code 0 with no
 * signal. Cycles alternate SIGTERM and SIGINT, and in-memory and `--db <file>` (a new file each time), so that both
 * ways a database is closed are covered. An abort (SIGABRT, exit 134: Node 24 with better-sqlite3 asserted in
 * `RemoveEnvironmentCleanupHook` as a database object was freed) is counted apart from other failures.
 * Exit 0 when every cycle was clean, 1 otherwise, 2 on a usage error. The bounds below only stop a hung process
 * from hanging the script; nothing is judged by time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Longest wait for the sandbox to print its address and answer /ping, and then to exit after the signal. */
const START_BOUND_MS = 120_000;
const STOP_BOUND_MS = 60_000;

type Outcome = { kind: 'clean' } | { kind: 'abort' | 'failed'; detail: string };

interface Cycle {
  signal: 'SIGTERM' | 'SIGINT';
  db: boolean;
}

async function cycle(bin: string, plan: Cycle, dir: string, index: number): Promise<Outcome> {
  const args = [bin, '--port', '0', ...(plan.db ? ['--db', path.join(dir, `cycle-${index}.db`)] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let exit: [number | null, NodeJS.Signals | null] | undefined;
  void exited.then((e) => (exit = e));
  const judge = (code: number | null, signal: NodeJS.Signals | null, when: string): Outcome => {
    if (signal === 'SIGABRT' || code === 134 || /Assertion failed|Aborted|core dumped/.test(stderr)) return { kind: 'abort', detail: `${when}: exit ${code ?? signal}: ${lastLines(stderr)}` };
    return { kind: 'failed', detail: `${when}: exit ${code ?? signal}: ${lastLines(stderr)}` };
  };
  try {
    const deadline = Date.now() + START_BOUND_MS;
    for (;;) {
      if (exit !== undefined) return judge(exit[0], exit[1], 'before it was ready');
      if (Date.now() > deadline) return { kind: 'failed', detail: `not ready within ${START_BOUND_MS / 1000} s: ${lastLines(stderr)}` };
      const base = /^CARD_API_BASE_URL=(.+)$/m.exec(stdout)?.[1];
      const token = /^CARD_API_TOKEN=(.+)$/m.exec(stdout)?.[1];
      if (base !== undefined && token !== undefined) {
        const ping = await fetch(`${base}/ping`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
        if (ping !== undefined) {
          await ping.arrayBuffer();
          if (ping.status !== 200) return { kind: 'failed', detail: `GET /ping answered ${ping.status}` };
          break;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    child.kill(plan.signal);
    const stopDeadline = Date.now() + STOP_BOUND_MS;
    while (exit === undefined && Date.now() < stopDeadline) await new Promise((resolve) => setTimeout(resolve, 25));
    if (exit === undefined) return { kind: 'failed', detail: `still running ${STOP_BOUND_MS / 1000} s after ${plan.signal}` };
    if (exit[0] !== 0 || exit[1] !== null) return judge(exit[0], exit[1], `after ${plan.signal}`);
    return { kind: 'clean' };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ') || '(nothing on stderr)';
}

async function main(): Promise<number> {
  let values: { cycles?: string; bin?: string };
  try {
    ({ values } = parseArgs({ options: { cycles: { type: 'string' }, bin: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    console.error(`start-stop-cycles: ${(error as Error).message}\nrun 'npm run cycles -- --cycles 50'`);
    return 2;
  }
  const count = Number(values.cycles ?? 50);
  if (!Number.isSafeInteger(count) || count < 1) {
    console.error(`start-stop-cycles: --cycles must be an integer >= 1, got ${JSON.stringify(values.cycles)}\nrun 'npm run cycles -- --cycles 50'`);
    return 2;
  }
  const bin = path.resolve(values.bin ?? path.join(ROOT, 'packages/sandbox/bin/card-api-sandbox.js'));
  const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-cycles-'));
  const plans: Cycle[] = [
    { signal: 'SIGTERM', db: false },
    { signal: 'SIGINT', db: true },
    { signal: 'SIGINT', db: false },
    { signal: 'SIGTERM', db: true },
  ];
  const counts = { clean: 0, abort: 0, failed: 0 };
  try {
    for (let i = 0; i < count; i++) {
      const plan = plans[i % plans.length]!;
      const outcome = await cycle(bin, plan, dir, i);
      counts[outcome.kind]++;
      if (outcome.kind !== 'clean') console.log(`cycle ${i + 1} (${plan.signal}, ${plan.db ? '--db' : 'in memory'}): ${outcome.kind === 'abort' ? 'ABORT' : 'FAILED'} ${outcome.detail}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const shown = bin.startsWith(ROOT + path.sep) ? path.relative(ROOT, bin) : bin;
  console.log(`${count} start/stop cycles of ${shown} on Node ${process.version}: ${counts.clean} clean, ${counts.abort} aborts, ${counts.failed} other failures`);
  return counts.clean === count ? 0 : 1;
}

process.exitCode = await main();
