/**
 * `gen-card-api lint` against `redocly lint` (@redocly/cli), side by side in one run, on the same file with the same
 * configuration (redocly.yaml: recommended-strict plus this API's rules and plugin). Each command is a fresh `node`
 * process, the pairs interleaved with the order rotated (bench/lib.ts `coldRounds`), CPU (user + system of the child,
 * from GNU time) compared pair by pair: the machine is shared, so wall time says more about the neighbours than
 * about the tools. Our side is the compiled CLI, as installed users run it (built here from the current sources
 * with scripts/build.ts `buildCli`, without the libraries); the checkout's bin would add tsx's transpiling.
 *
 * Bar (issue 34): the median of the per-pair CPU ratios is at most 1.0x.
 *
 * Run: node --import tsx bench/lint.ts [spec]   (ROUNDS=n, default 5; the spec defaults to spec/openapi.yaml)
 *      REDOCLY_V1=<path to @redocly/cli 1.x bin/cli.js> adds Redocly 1.x, whose engine (@redocly/openapi-core 1.x)
 *      is the one gen-card-api lints with, as a third command (installed outside the repository).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildCli } from '../scripts/build.js';
import { coldRounds, coldText, median, pairedRatio } from './lib.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'bench/.out');
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SPEC = process.argv[2] ?? 'spec/openapi.yaml';
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

if (!existsSync(REDOCLY)) throw new Error('@redocly/cli is not installed: npm install (it is a devDependency)');
await buildCli();
mkdirSync(OUT, { recursive: true });
// The installed bin (packages/cli/bin) minus its checkout test: the compiled CLI, whatever sources sit next to it.
const ours = path.join(OUT, 'gen-card-api-dist.mjs');
writeFileSync(ours, `import nodeModule from 'node:module';\nnodeModule.enableCompileCache?.();\nconst cli = await import(${JSON.stringify(path.join(ROOT, 'packages/cli/dist/main.js'))});\nawait cli.main(process.argv, { parentPid: process.ppid });\n`);

// Neither tool may phone home during a measurement (there is no network here; a timeout would count as wall time).
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
const v1 = process.env.REDOCLY_V1;
const samples = coldRounds(
  [
    { label: 'gen-card-api lint', command: process.execPath, args: [ours, 'lint', SPEC] },
    { label: 'redocly lint', command: process.execPath, args: [REDOCLY, 'lint', SPEC, '--config', 'redocly.yaml'] },
    ...(v1 ? [{ label: 'redocly 1.x lint', command: process.execPath, args: [v1, 'lint', SPEC, '--config', 'redocly.yaml'] }] : []),
  ],
  ROUNDS,
  { cwd: ROOT, env },
);
const a = samples.get('gen-card-api lint')!;
const b = samples.get('redocly lint')!;
console.log(`${SPEC}, ${ROUNDS} interleaved pairs, node ${process.version}`);
console.log(`  gen-card-api lint  CPU ${coldText(a, 'cpu')}  wall ${coldText(a, 'wall')}`);
console.log(`  redocly lint       CPU ${coldText(b, 'cpu')}  wall ${coldText(b, 'wall')}`);
const cpu = pairedRatio(a.map((s) => s.cpu), b.map((s) => s.cpu));
console.log(`  CPU ours/redocly, median of the per-pair ratios: ${cpu.text}`);
console.log(`  wall ours/redocly (median of medians): ${(median(a.map((s) => s.wall)) / median(b.map((s) => s.wall))).toFixed(3)}x`);
console.log(`  bar (at most 1.0x CPU): ${cpu.median <= 1 ? 'met' : 'not met'}`);
if (v1) {
  const c = samples.get('redocly 1.x lint')!;
  console.log(`  redocly 1.x lint   CPU ${coldText(c, 'cpu')}; ours/redocly 1.x, median of the per-pair ratios: ${pairedRatio(a.map((s) => s.cpu), c.map((s) => s.cpu)).text}`);
}
