/**
 * Cold wall time and CPU of the installed CLI against openapi-typescript's, in one run: both installed from packages
 * in one temp folder outside the repository (ours packed from `make build` output), each command a fresh `node`
 * process, the same spec file for both, rounds interleaved with the order rotated (the machine is shared).
 * `client --out` generates the types *and* the client, so the goal is "no slower than openapi-typescript for types
 * alone". bench/install.ts prints the same cold figures from two separate installs, next to their sizes; this one
 * is the quick check (one install).
 *
 * Run: make build && node --import tsx bench/cli-startup.ts   (BENCH_COLD_ROUNDS=n, default 11)
 */
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { coldRatio, coldRounds, coldText } from './lib.js';
import { ROOT, runCommand, strangerEnv } from '../test/registry/harness.js';

const ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 11);

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'card-api-bench-cli-'));
  try {
    const env = strangerEnv({});
    const packed = await runCommand('npm', ['pack', path.join(ROOT, 'packages/cli'), '--pack-destination', dir, '--json'], { cwd: dir, env });
    if (packed.code !== 0) throw new Error(`npm pack packages/cli failed (run \`make build\` first):\n${packed.stderr}`);
    const tarball = path.join(dir, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
    const openapiTs = JSON.parse(execFileSync('npm', ['pkg', 'get', 'devDependencies.openapi-typescript'], { cwd: ROOT, encoding: 'utf8', env })) as string;
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-cli', private: true, type: 'module' }));
    const install = await runCommand('npm', ['install', '--no-audit', '--no-fund', tarball, `openapi-typescript@${openapiTs}`], { cwd: dir, env });
    if (install.code !== 0) throw new Error(`npm install failed:\n${install.stderr}`);
    const ours = path.join(dir, 'node_modules/gen-card-api/bin/gen-card-api.js');
    const theirs = path.join(dir, 'node_modules/openapi-typescript/bin/cli.js');
    const spec = path.join(dir, 'openapi.yaml');
    await copyFile(path.join(dir, 'node_modules/gen-card-api/dist/assets/spec/openapi.yaml'), spec);

    const node = (label: string, ...args: string[]) => ({ label, command: process.execPath, args });
    const pairs: Array<[ReturnType<typeof node>, ReturnType<typeof node>]> = [
      [node('gen-card-api --help', ours, '--help'), node('openapi-typescript --help', theirs, '--help')],
      [node('gen-card-api --version', ours, '--version'), node('openapi-typescript --version', theirs, '--version')],
      [node('gen-card-api client <spec> --out ./client (types + client)', ours, 'client', spec, '--out', path.join(dir, 'out-client')), node('openapi-typescript <spec> -o x.ts (types)', theirs, spec, '-o', path.join(dir, 'x.ts'))],
      [node('gen-card-api types <spec> --out ./types', ours, 'types', spec, '--out', path.join(dir, 'out-types')), node('openapi-typescript <spec> -o y.ts (types)', theirs, spec, '-o', path.join(dir, 'y.ts'))],
    ];
    // The floor: Node starting and exiting, what every figure includes.
    const floor = node('node -e 0 (Node alone)', '-e', '0');
    const samples = coldRounds([...pairs.flat(), floor], ROUNDS, { cwd: dir, env });
    console.log(`cold start, ${ROUNDS} rounds of ${pairs.length * 2 + 1} fresh node processes in a rotated order, packages installed from a tarball and the registry in ${dir}; median (min-max)`);
    for (const [a, b] of pairs) {
      const [sa, sb] = [samples.get(a.label)!, samples.get(b.label)!];
      console.log(`${a.label.padEnd(58)} wall ${coldText(sa, 'wall').padEnd(20)} cpu ${coldText(sa, 'cpu')}`);
      console.log(`${b.label.padEnd(58)} wall ${coldText(sb, 'wall').padEnd(20)} cpu ${coldText(sb, 'cpu')}`);
      console.log(`${'  ours / peer'.padEnd(58)} wall ${coldRatio(sa, sb, 'wall').text}, cpu ${coldRatio(sa, sb, 'cpu').text}`);
    }
    console.log(`${floor.label.padEnd(58)} wall ${coldText(samples.get(floor.label)!, 'wall').padEnd(20)} cpu ${coldText(samples.get(floor.label)!, 'cpu')}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
