/**
 * What a stranger installs to generate code: the packed `gen-card-api` tarball, installed in an empty folder outside
 * the repository, against the peer `openapi-typescript` + `typescript` from the registry, in the same run, rounds
 * interleaved with the order rotated (the machine is shared). Prints installed size, package count, install time
 * (median and spread), whether anything carries a native build (`binding.gyp`), and the ratios. Issue 23's bar:
 * size at most 2x, no `binding.gyp`.
 *
 * Both sides install through the same npm cache, warmed by one untimed install each, so the times compare npm's
 * work on each tree rather than the network. `BENCH_ROUNDS` (default 3) sets the rounds. With `BENCH_SANDBOX=1` it
 * also installs `@card-api/sandbox` from its tarballs once, untimed against any peer, to show what the separate
 * package costs (a native build).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { median } from './lib.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const work = mkdtempSync(path.join(tmpdir(), 'bench-install-'));

interface Install {
  ms: number;
  bytes: number;
  packages: number;
  native: string[];
}

function npm(args: string[], cwd: string): void {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${result.stderr}`);
}

function pack(): Map<string, string> {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const out = path.join(work, 'packs');
  mkdirSync(out);
  execFileSync('npm', ['pack', '--workspaces', '--pack-destination', out, '--silent'], { cwd: ROOT, stdio: 'ignore' });
  return new Map(readdirSync(out).map((file) => [file.replace(/-\d+\.\d+\.\d+\.tgz$/, ''), path.join(out, file)]));
}

function installInto(name: string, specs: string[], extra: Record<string, unknown> = {}): Install {
  const dir = mkdtempSync(path.join(work, `${name}-`));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `stranger-${name}`, private: true, ...extra }));
  const started = performance.now();
  npm(['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], dir);
  const ms = performance.now() - started;
  const bytes = Number(execFileSync('du', ['-sb', 'node_modules'], { cwd: dir, encoding: 'utf8' }).split('\t')[0]);
  const tree = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
  const native = execFileSync('find', ['node_modules', '-name', 'binding.gyp'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
  rmSync(dir, { recursive: true, force: true });
  return { ms, bytes, packages: new Set(tree.slice(1)).size, native: native.map((f) => f.replace(/^node_modules\//, '').replace(/\/binding\.gyp$/, '')) };
}

function main(): void {
  const tarballs = pack();
  const cli = tarballs.get('gen-card-api');
  if (cli === undefined) throw new Error(`no gen-card-api tarball among ${[...tarballs.keys()].join(', ')}`);
  const sides: Record<string, () => Install> = {
    'gen-card-api': () => installInto('ours', [cli]),
    'openapi-typescript + typescript': () => installInto('peer', ['openapi-typescript@^7', 'typescript@~5.9']),
  };
  const names = Object.keys(sides);
  for (const name of names) sides[name]!(); // warm npm's cache, untimed
  const results = new Map<string, Install[]>(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) results.get(name)!.push(sides[name]!());
  }
  const ours = results.get(names[0]!)!;
  const peer = results.get(names[1]!)!;
  const mb = (b: number): string => `${(b / 1_048_576).toFixed(1)} MB`;
  const row = (name: string, runs: Install[]): string => {
    const times = runs.map((r) => r.ms);
    return `  ${name.padEnd(34)} ${mb(median(runs.map((r) => r.bytes))).padStart(9)} ${String(median(runs.map((r) => r.packages))).padStart(9)} ${`${(median(times) / 1000).toFixed(1)} s`.padStart(8)} (${(Math.min(...times) / 1000).toFixed(1)}-${(Math.max(...times) / 1000).toFixed(1)})   ${runs[0]!.native.length ? runs[0]!.native.join(', ') : 'none'}`;
  };
  console.log(`install into an empty folder, ${ROUNDS} rounds interleaved, order rotated (npm ${execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim()}, node ${process.version})`);
  console.log(`  ${''.padEnd(34)} ${'size'.padStart(9)} ${'packages'.padStart(9)} ${'install'.padStart(8)} (spread)     binding.gyp`);
  for (const name of names) console.log(row(name, results.get(name)!));
  const sizeRatio = median(ours.map((r) => r.bytes)) / median(peer.map((r) => r.bytes));
  const timeRatio = median(ours.map((r) => r.ms)) / median(peer.map((r) => r.ms));
  const perRound = ours.map((r, i) => (r.bytes / peer[i]!.bytes).toFixed(2));
  console.log(`  ratio gen-card-api / peer: size ${sizeRatio.toFixed(2)}x (per round ${perRound.join(', ')}; bar <= 2x), packages ${(median(ours.map((r) => r.packages)) / median(peer.map((r) => r.packages))).toFixed(2)}x, install time ${timeRatio.toFixed(2)}x`);

  if (process.env['BENCH_SANDBOX'] === '1') {
    const sandbox = ['sandbox', 'server', 'types', 'webhooks'].map((n) => tarballs.get(`card-api-${n}`)!);
    const result = installInto('sandbox', sandbox, { allowScripts: { 'better-sqlite3': true } });
    console.log(`  the separate sandbox (@card-api/sandbox and its @card-api/* tarballs): ${mb(result.bytes)}, ${result.packages} packages, ${(result.ms / 1000).toFixed(1)} s, native: ${result.native.join(', ') || 'none'}`);
  }
  rmSync(work, { recursive: true, force: true });
}

main();
