/**
 * `make test`: every check CI runs, quiet where it passes and complete where it fails, ending on one line that
 * totals them all: `N passed, N failed, N skipped`.
 *
 * Phases (each an npm script, so each can be rerun alone):
 *   lint:spec, check, diff:released   one line each when they pass, their whole output when they fail
 *   test       vitest (unit, contract, end to end), its own output streamed; its typecheck runs
 *              `tsc -p tsconfig.json` over the whole repository, what `npm run typecheck` does, and fails the
 *              run on any type error, so no separate typecheck runs here
 *   test:postgres      the sandbox's domain and contract suites again with every sandbox on PostgreSQL, after vitest
 *   build, test:registry   the packages built, published to a local Verdaccio and used as a stranger would
 *
 * All start at once. The three checks print first, vitest's output is held until they have; the registry phase
 * reports after vitest. Every phase runs even when another failed; the exit code is 1 if any failed. A check
 * counts as one test; vitest's tests are counted by scripts/test-reporter.ts. Full logs and the per-file times of
 * both vitest runs, slowest first, go to .tmp/make-test/.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileReport, RunReport } from './test-reporter.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, '.tmp', 'make-test');
const REPORTER = path.join(ROOT, 'scripts', 'test-reporter.ts');
const SHOW_SLOWEST = 5;

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

interface PhaseResult extends Counts {
  name: string;
  /** How to run it alone. */
  command: string;
  ok: boolean;
  ms: number;
  /** One line for a phase that passed. */
  summary: string;
  /** Everything it printed, stdout and stderr interleaved as they came. */
  output: string;
  /** Its output went to the terminal as it ran (vitest): not repeated on failure. */
  streamed: boolean;
  files: FileReport[];
}

interface Run {
  code: number;
  output: string;
  ms: number;
}

/** Runs `npm run --silent <script> [-- args]` from the root; `onChunk` sees the output as it comes. */
function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv, onChunk?: (chunk: Buffer) => void): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script, ...(args.length > 0 ? ['--', ...args] : [])], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer): void => {
      output += chunk.toString();
      onChunk?.(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (error) => resolve({ code: 1, output: `${output}\n${error.message}`, ms: performance.now() - started }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output: signal ? `${output}\n[make test] ${script} ended by ${signal}` : output, ms: performance.now() - started }));
  });
}

/** `lint:spec` → `lint-spec.log`: no colons in file names. */
const logName = (phase: string): string => `${phase.replaceAll(':', '-')}.log`;

const lines = (text: string): string[] => text.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');

/** A check: one test, passed or failed. */
async function check(name: string, summarize: (output: string) => string): Promise<PhaseResult> {
  const run = await npmRun(name, [], {});
  const ok = run.code === 0;
  writeFileSync(path.join(OUT, logName(name)), run.output);
  return { name, command: `npm run ${name}`, ok, ms: run.ms, summary: ok ? summarize(run.output) : '', output: run.output, streamed: false, files: [], passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0 };
}

/** A vitest run through `npm run <script>`, counted by the reporter; a failure the counts miss still counts once. */
async function vitest(name: string, script: string, command: string, onChunk?: (chunk: Buffer) => void): Promise<PhaseResult> {
  const reportFile = path.join(OUT, logName(name).replace(/\.log$/, '.json'));
  rmSync(reportFile, { force: true });
  const color = process.stdout.isTTY && onChunk ? { FORCE_COLOR: '1' } : {};
  const run = await npmRun(script, ['--reporter=default', `--reporter=${REPORTER}`], { CARD_API_TEST_REPORT: reportFile, ...color }, onChunk);
  writeFileSync(path.join(OUT, logName(name)), run.output);
  let report: RunReport | undefined;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReport;
  } catch {
    report = undefined;
  }
  const counts: Counts = report ? { passed: report.passed, failed: report.failed, skipped: report.skipped } : { passed: 0, failed: 0, skipped: 0 };
  if (run.code !== 0 && counts.failed === 0) counts.failed = 1;
  const ok = run.code === 0;
  const summary = `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped in ${report?.files.length ?? 0} files`;
  return { name, command, ok, ms: run.ms, summary, output: run.output, streamed: onChunk !== undefined, files: report?.files ?? [], ...counts };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function phaseLine(result: PhaseResult): string {
  const rerun = result.ok ? '' : `${result.summary ? '; ' : ''}rerun: ${result.command}, log: .tmp/make-test/${logName(result.name)}`;
  return `${result.ok ? 'ok    ' : 'FAILED'} ${result.name.padEnd(14)} ${seconds(result.ms).padStart(8)}  ${result.summary}${rerun}`;
}

/** A phase's line, and when it failed everything it printed. */
function report(result: PhaseResult): string {
  if (result.ok || result.streamed || result.output.trim() === '') return `${phaseLine(result)}\n`;
  const body = result.output.endsWith('\n') ? result.output : `${result.output}\n`;
  return `${phaseLine(result)}\n----- ${result.command}: its output\n${body}----- end of ${result.name}\n`;
}

async function main(): Promise<number> {
  const started = performance.now();
  mkdirSync(OUT, { recursive: true });
  const write = (text: string): void => void process.stdout.write(text);

  // The registry phase needs the build; it reads nothing the other phases write.
  const registry = (async (): Promise<PhaseResult[]> => {
    const build = await check('build', (out) => lines(out).at(-1) ?? '');
    if (!build.ok) {
      const notRun: PhaseResult = { ...build, name: 'test:registry', command: 'make test-registry', ms: 0, summary: 'not run: the build failed', output: '', passed: 0, failed: 1 };
      writeFileSync(path.join(OUT, logName('test:registry')), 'not run: the build failed (see build.log)\n');
      return [build, notRun];
    }
    return [build, await vitest('test:registry', 'test:registry', 'make test-registry')];
  })();

  const checks: Array<Promise<PhaseResult>> = [
    check('lint:spec', (out) => lines(out).join('; ')),
    check('check', (out) => lines(out).at(-1) ?? ''),
    check('diff:released', (out) => `${lines(out).find((l) => /^\d+ breaking, /.test(l)) ?? lines(out).at(-1) ?? ''} (each one: npm run diff:released)`),
  ];

  // vitest starts now; what it prints waits until the checks' lines are out.
  let held: Buffer[] | null = [];
  // Its stderr (failure details, tests' console.error) joins stdout, so that one stream reads in order and ends
  // on the closing line.
  const main = vitest('vitest', 'test', 'npm test', (chunk) => {
    if (held) held.push(chunk);
    else process.stdout.write(chunk);
  });

  write('make test: lint:spec, check, diff:released, vitest (with tsc over the repository) and the registry phase (build, test:registry) run side by side; logs in .tmp/make-test/\n');
  const results: PhaseResult[] = [];
  for (const pending of checks) {
    const result = await pending;
    results.push(result);
    write(report(result));
  }
  write('\n');
  for (const chunk of held) process.stdout.write(chunk);
  held = null;
  const vitestResult = await main;
  results.push(vitestResult);
  // The sandbox's domain and contract suites again, on PostgreSQL (issue 35): after vitest, not beside it, since
  // both keep the CPUs busy.
  const postgres = await vitest('test:postgres', 'test:postgres', 'npm run test:postgres');
  results.push(postgres);
  write(report(postgres));

  const after = await registry;
  results.push(...after);
  write('\n');
  for (const result of after) write(report(result));

  // Both vitest runs' files, slowest first: where the time goes.
  const files = results.flatMap((r) => r.files).sort((a, b) => b.ms - a.ms);
  writeFileSync(path.join(OUT, 'slowest-files.txt'), files.map((f, i) => `${String(i + 1).padStart(3)} ${seconds(f.ms).padStart(8)}  (import ${seconds(f.importMs).padStart(7)})  ${f.file}\n`).join(''));

  const total = results.reduce<Counts>((sum, r) => ({ passed: sum.passed + r.passed, failed: sum.failed + r.failed, skipped: sum.skipped + r.skipped }), { passed: 0, failed: 0, skipped: 0 });
  const failedPhases = results.filter((r) => !r.ok);
  write(`\nsummary (wall ${seconds(performance.now() - started)}; phases overlap):\n`);
  for (const result of results) write(`  ${phaseLine(result)}\n`);
  write(`slowest test files (all ${files.length}: .tmp/make-test/slowest-files.txt):\n`);
  for (const file of files.slice(0, SHOW_SLOWEST)) write(`  ${seconds(file.ms).padStart(8)}  ${file.file}\n`);
  if (failedPhases.length > 0) write(`failed: ${failedPhases.map((r) => `${r.name} (${r.command})`).join(', ')}\n`);
  write(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
  return failedPhases.length > 0 || total.failed > 0 ? 1 : 0;
}

process.exitCode = await main();
