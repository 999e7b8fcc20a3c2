/**
 * Cold wall time of the installed CLI against openapi-typescript's, in one run: both installed from packages in
 * a temp folder outside the repository (ours packed from `make build` output), each command a fresh `node`
 * process, the same spec file for both. `client --out` generates the types *and* the client, so the goal is
 * "no slower than openapi-typescript for types alone".
 *
 * Run: make build && node --import tsx bench/cli-startup.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { median } from './lib.js';
import { ROOT, packAll, runCommand, strangerEnv } from '../test/registry/harness.js';

const RUNS = 7;

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'card-api-bench-cli-'));
  try {
    const env = strangerEnv({});
    const tarballs = await packAll(dir, env);
    const openapiTs = (JSON.parse(execFileSync('npm', ['pkg', 'get', 'devDependencies.openapi-typescript'], { cwd: ROOT, encoding: 'utf8', env })) as string);
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-cli', private: true, type: 'module' }));
    // No install scripts: neither command loads the sandbox, so better-sqlite3 need not be built.
    const install = await runCommand('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', ...tarballs.values(), `openapi-typescript@${openapiTs}`], { cwd: dir, env });
    if (install.code !== 0) throw new Error(`npm install failed:\n${install.stderr}`);
    const ours = path.join(dir, 'node_modules/gen-card-api/bin/gen-card-api.js');
    const theirs = path.join(dir, 'node_modules/openapi-typescript/bin/cli.js');
    const spec = path.join(dir, 'node_modules/gen-card-api/dist/assets/spec/openapi.yaml');

    const time = async (args: string[]): Promise<number> => {
      const samples: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const result = await runCommand(process.execPath, args, { cwd: dir, env });
        if (result.code !== 0) throw new Error(`${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
        samples.push(result.ms);
      }
      return median(samples);
    };
    const rows: Array<[string, number, string, number]> = [
      ['gen-card-api --help', await time([ours, '--help']), 'openapi-typescript --help', await time([theirs, '--help'])],
      ['gen-card-api client <spec> --out ./client (types + client)', await time([ours, 'client', spec, '--out', path.join(dir, 'out-client')]), 'openapi-typescript <spec> -o x.ts (types)', await time([theirs, spec, '-o', path.join(dir, 'x.ts')])],
      ['gen-card-api types <spec> --out ./types', await time([ours, 'types', spec, '--out', path.join(dir, 'out-types')]), 'openapi-typescript <spec> -o x.ts (types)', await time([theirs, spec, '-o', path.join(dir, 'x.ts')])],
    ];
    console.log(`cold wall time, median of ${RUNS} fresh processes each, packages installed from tarballs in ${dir}`);
    console.log(`${'ours'.padEnd(58)} ${'ms'.padStart(7)}   ${'peer'.padEnd(44)} ${'ms'.padStart(7)}   ours/peer`);
    for (const [a, am, b, bm] of rows) console.log(`${a.padEnd(58)} ${am.toFixed(0).padStart(7)}   ${b.padEnd(44)} ${bm.toFixed(0).padStart(7)}   ${(am / bm).toFixed(2)}x`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
