#!/usr/bin/env node
// The card-api-sandbox command (`npx @card-api/sandbox`). An installed package runs the compiled dist/cli.js. Inside a
// card-api-kit checkout (where src/ exists; it is never published) it runs the TypeScript sources through tsx, with
// the workspace packages resolved to their sources too, so that development needs no build step.
import { existsSync } from 'node:fs';

// Read before the slow imports below: a parent (npx, a shell) that exits while the sandbox starts must still stop it.
const parentPid = process.ppid;

const source = new URL('../src/cli.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  const { registerSourceCondition } = await import('../../../scripts/source-condition.mjs');
  registerSourceCondition();
  cli = await import(source.href);
} else {
  cli = await import('../dist/cli.js');
}
process.exitCode = await cli.runSandboxCli(process.argv.slice(2), { name: 'card-api-sandbox', parentPid });
