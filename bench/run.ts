/**
 * `make bench`: runs every benchmark in bench/ one after the other (never in parallel: they share two
 * cores), each printing ratios against its named peer measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'lib.ts'].includes(f))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n=== bench/${script} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, script)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exitCode = failed ? 1 : 0;
