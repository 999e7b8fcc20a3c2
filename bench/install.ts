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
 *
 * Then, from those two installs (the untimed first ones, kept), the cold start a stranger meets: each command a
 * fresh `node` process, `BENCH_COLD_ROUNDS` (default 11) rounds with the order rotated, wall time and CPU (GNU
 * time): `gen-card-api client spec.yaml --out dir` (types and client) against `openapi-typescript spec.yaml -o
 * out.ts` (types alone), `types --out` against the same, and `--help` / `--version` of both. Issue 23's bars:
 * client --out at most 1.0x by median, --help and --version under 150 ms.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { coldRatio, coldRounds, coldText, median } from './lib.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const COLD_ROUNDS = Number(process.env['BENCH_COLD_ROUNDS'] ?? 11);
const work = mkdtempSync(path.join(tmpdir(), 'bench-install-'));

interface Install {
  ms: number;
  bytes: number;
  packages: number;
  native: string[];
  /** The folder, when kept for the cold runs. */
  dir?: string;
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

function installInto(name: string, specs: string[], extra: Record<string, unknown> = {}, keep = false): Install {
  const dir = mkdtempSync(path.join(work, `${name}-`));
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `stranger-${name}`, private: true, ...extra }));
  const started = performance.now();
  npm(['install', '--no-audit', '--no-fund', '--loglevel=error', ...specs], dir);
  const ms = performance.now() - started;
  const bytes = Number(execFileSync('du', ['-sb', 'node_modules'], { cwd: dir, encoding: 'utf8' }).split('\t')[0]);
  const tree = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
  const native = execFileSync('find', ['node_modules', '-name', 'binding.gyp'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
  if (!keep) rmSync(dir, { recursive: true, force: true });
  return { ms, bytes, packages: new Set(tree.slice(1)).size, native: native.map((f) => f.replace(/^node_modules\//, '').replace(/\/binding\.gyp$/, '')), ...(keep ? { dir } : {}) };
}

function main(): void {
  const tarballs = pack();
  const cli = tarballs.get('gen-card-api');
  if (cli === undefined) throw new Error(`no gen-card-api tarball among ${[...tarballs.keys()].join(', ')}`);
  const sides: Record<string, (keep?: boolean) => Install> = {
    'gen-card-api': (keep) => installInto('ours', [cli], {}, keep),
    'openapi-typescript + typescript': (keep) => installInto('peer', ['openapi-typescript@^7', 'typescript@~5.9'], {}, keep),
  };
  const names = Object.keys(sides);
  // Warm npm's cache, untimed; these two installs stay for the cold runs.
  const [oursDir, peerDir] = names.map((name) => sides[name]!(true).dir!) as [string, string];
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
    const result = installInto('sandbox', sandbox);
    console.log(`  the separate sandbox (@card-api/sandbox and its @card-api/* tarballs): ${mb(result.bytes)}, ${result.packages} packages, ${(result.ms / 1000).toFixed(1)} s, native: ${result.native.join(', ') || 'none'}`);
  }
  cold(oursDir, peerDir);
  rmSync(work, { recursive: true, force: true });
}

/** The cold start of both installed CLIs, as a stranger runs them (see the module comment). */
function cold(oursDir: string, peerDir: string): void {
  const ours = path.join(oursDir, 'node_modules/gen-card-api/bin/gen-card-api.js');
  const theirs = path.join(peerDir, 'node_modules/openapi-typescript/bin/cli.js');
  // One copy of the card spec outside both installs, the same file for both tools.
  const spec = path.join(work, 'openapi.yaml');
  cpSync(path.join(oursDir, 'node_modules/gen-card-api/dist/assets/spec/openapi.yaml'), spec);
  const out = mkdtempSync(path.join(work, 'out-'));
  const node = (label: string, ...args: string[]) => ({ label, command: process.execPath, args });
  const commands = [
    node('gen-card-api client spec --out dir', ours, 'client', spec, '--out', path.join(out, 'client')),
    node('openapi-typescript spec -o out.ts', theirs, spec, '-o', path.join(out, 'types.ts')),
    node('gen-card-api types spec --out dir', ours, 'types', spec, '--out', path.join(out, 'types')),
    node('gen-card-api --help', ours, '--help'),
    node('openapi-typescript --help', theirs, '--help'),
    node('gen-card-api --version', ours, '--version'),
    node('openapi-typescript --version', theirs, '--version'),
    // The floor: Node starting and exiting, what every figure above includes.
    node('node -e 0 (Node alone)', '-e', '0'),
  ];
  const samples = coldRounds(commands, COLD_ROUNDS, { cwd: out });
  const get = (label: string) => samples.get(label)!;
  console.log(`\ncold start from the installs above, ${COLD_ROUNDS} rounds, ${commands.length} commands per round in a rotated order, each a fresh node process; median (min-max)`);
  for (const { label } of commands) console.log(`  ${label.padEnd(36)} wall ${coldText(get(label), 'wall').padEnd(20)} cpu ${coldText(get(label), 'cpu')}`);
  const peer = get('openapi-typescript spec -o out.ts');
  for (const label of ['gen-card-api client spec --out dir', 'gen-card-api types spec --out dir']) {
    const wall = coldRatio(get(label), peer, 'wall');
    const bar = label.includes('client') ? ` (bar <= 1.0x: ${wall.median <= 1 ? 'met' : 'MISSED'})` : '';
    console.log(`  ratio ${label} / openapi-typescript spec -o: wall ${wall.text}${bar}, cpu ${coldRatio(get(label), peer, 'cpu').text}`);
  }
  for (const flag of ['--help', '--version']) {
    const ms = median(get(`gen-card-api ${flag}`).map((s) => s.wall));
    console.log(`  gen-card-api ${flag}: ${ms.toFixed(0)} ms median wall (bar < 150 ms: ${ms < 150 ? 'met' : 'MISSED'}; Node alone ${median(get('node -e 0 (Node alone)').map((x) => x.wall)).toFixed(0)} ms); ${coldRatio(get(`gen-card-api ${flag}`), get(`openapi-typescript ${flag}`), 'wall').text} of openapi-typescript ${flag}`);
  }
}

main();
