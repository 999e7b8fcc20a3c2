/**
 * The verify mutation harness: `node --conditions=@card-api/source --import tsx scripts/verify-mutants.ts [name filter] [--clean N] [--seed S] [--token-rate N] [--shard k/n]`.
 *
 * Runs `verify` (writes, webhooks, a read-only token and another workspace's token, all minted through the
 * sandbox's control API) once per fault of test/verify/mutants.ts, each injected by a proxy in front of a fresh,
 * unmodified sandbox, and prints which checks caught it; then N clean runs (default 2), which must fail nothing.
 * `--token-rate N` runs the sandbox with its per-minute ceiling of N per token (600 per IP), as `gen-card-api sandbox`
 * has by default (120): the other runs have none in effect.
 * Prints `caught C / T` and exits 1 when a fault was missed or a clean run failed. Slow (about 15 s a run on a
 * loaded machine): not part of `make test`; test/verify/mutants.test.ts runs a subset.
 */
import { runScene } from '../test/verify/harness.js';
import { MUTANTS } from '../test/verify/mutants.js';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const clean = Number(flag('--clean') ?? 2);
const seed = flag('--seed');
const rate = flag('--token-rate');
// `--shard k/n`: the k-th of n slices of the faults (1-based), to run slices in parallel processes.
const shard = flag('--shard')?.split('/').map(Number);
const filter = args[0]?.toLowerCase();
const verify = seed === undefined ? {} : { seed: Number(seed) };
const rateLimits = rate === undefined ? {} : { rateLimits: { tokenPerMinute: Number(rate), ipPerMinute: 600 } };

const missed: string[] = [];
let caught = 0;
const chosen = MUTANTS.filter((m) => !filter || m.name.toLowerCase().includes(filter)).filter((_, i) => !shard || i % shard[1]! === shard[0]! - 1);
for (const mutant of chosen) {
  const started = Date.now();
  const { report, failed } = await runScene({ writes: true, webhooks: true, tokens: true, mutant, verify, ...rateLimits });
  const ok = failed.length > 0;
  if (ok) caught++;
  else missed.push(mutant.name);
  const stopped = report.stopped ? ` [stopped: ${report.stopped.reason}]` : '';
  console.log(`${ok ? 'CAUGHT' : 'MISSED'}  ${mutant.kind.padEnd(16)} ${mutant.name} (${((Date.now() - started) / 1000).toFixed(1)} s, seed ${report.seed})${stopped}${ok ? `: ${failed.join(', ')}` : ''}`);
}
const cleanFailures: string[] = [];
for (let i = 1; i <= clean; i++) {
  const started = Date.now();
  const { report, failed } = await runScene({ writes: true, webhooks: true, tokens: true, verify, ...rateLimits });
  console.log(`CLEAN   run ${i}: ${failed.length === 0 ? 'no failure' : `FAILED ${failed.join(', ')}`} (${((Date.now() - started) / 1000).toFixed(1)} s, ${report.requests} requests, seed ${report.seed})`);
  for (const id of failed) cleanFailures.push(`run ${i}: ${id}: ${report.checks.find((c) => c.id === id)?.details.join(' | ')}`);
}
console.log(`\ncaught ${caught} / ${chosen.length}${missed.length > 0 ? `; missed: ${missed.join('; ')}` : ''}`);
console.log(`clean runs: ${clean - new Set(cleanFailures.map((f) => f.split(':')[0])).size} / ${clean} without a failure`);
for (const f of cleanFailures) console.log(`  ${f}`);
process.exitCode = missed.length > 0 || cleanFailures.length > 0 ? 1 : 0;
