#!/usr/bin/env node
// The gen-card-api command. An installed package runs the compiled dist/main.js. Inside a card-api-kit checkout
// (where src/ exists; it is never published) it runs the TypeScript sources through tsx instead, with the
// workspace packages resolved to their sources too, so that development needs no build step.
import { existsSync } from 'node:fs';
import nodeModule from 'node:module';

// V8's on-disk code cache (Node >= 22.1; a no-op before): later runs skip compiling the CLI and its dependencies
// again, as Redocly's CLI does. Enabled before the imports below, so that they are cached.
nodeModule.enableCompileCache?.();

// Read before the slow imports below: `sandbox` and `listen` stop when this parent exits, even during their startup.
const parentPid = process.ppid;

const source = new URL('../src/main.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  const { registerSourceCondition } = await import('../../../scripts/source-condition.mjs');
  registerSourceCondition();
  cli = await import(source.href);
} else {
  cli = await import('../dist/main.js');
}
await cli.main(process.argv, { parentPid });
