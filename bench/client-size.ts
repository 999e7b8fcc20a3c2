/**
 * Shipped size of @card-api/client as an app bundles it: the generated package (packages/client/src: client.gen.ts
 * over the runtime copied from templates/client) with openapi-fetch, bundled by esbuild (ESM, browser-neutral
 * platform, minified), then gzipped. The package declares `sideEffects: false`, so a bundler keeps what is imported.
 *
 * Goal: <= 8 kB gzipped for `import { CardApiClient } from '@card-api/client'`, openapi-fetch included: what the
 * README's example imports (the errors it throws come with it). Every export together is printed, not held to it:
 * it adds the decimal helpers (`decimal.ts`) and the generated `<Enum>Values` lists, which an app that does not
 * import them does not ship. The goal was first measured on templates/client/index.ts (the runtime alone); the
 * package is what users install, so that is what the goal now names.
 *
 * Run: node --import tsx bench/client-size.ts
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const GOAL_BYTES = 8 * 1024;
const PACKAGE = fileURLToPath(new URL('../packages/client/src/', import.meta.url));
const RUNTIME = fileURLToPath(new URL('../templates/client/', import.meta.url));

async function bundle(contents: string, resolveDir: string, external: string[] = []): Promise<{ raw: number; gzip: number; inputs: Record<string, number> }> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    // "neutral" refuses Node built-ins, which is the point: the runtime must run on edge workers too.
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['@card-api/source'],
    target: 'es2022',
    external,
    write: false,
    metafile: true,
    legalComments: 'none',
  });
  const code = result.outputFiles[0]!.contents;
  const output = Object.values(result.metafile.outputs)[0]!;
  const inputs = Object.fromEntries(Object.entries(output.inputs).map(([k, v]) => [k, v.bytesInOutput]));
  return { raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, inputs };
}

const rows: Array<[string, Awaited<ReturnType<typeof bundle>>, number?]> = [
  ["import { CardApiClient } from '@card-api/client'", await bundle("export { CardApiClient } from './index.js';", PACKAGE), GOAL_BYTES],
  ['every export of @card-api/client', await bundle("export * from './index.js';", PACKAGE)],
  ['the runtime alone (templates/client), openapi-fetch included', await bundle("export * from './index.js';", RUNTIME)],
  ['the runtime alone, without openapi-fetch', await bundle("export * from './index.js';", RUNTIME, ['openapi-fetch'])],
];

console.log('client bundle size (esbuild --minify, ESM, platform neutral, gzip -9)');
for (const [label, size, goal] of rows) {
  const verdict = goal === undefined ? '' : ` (goal <= ${goal.toLocaleString('en-US')} B: ${size.gzip <= goal ? 'OK' : 'OVER'})`;
  console.log(`  ${label.padEnd(62)} ${size.raw.toLocaleString('en-US').padStart(7)} B minified ${size.gzip.toLocaleString('en-US').padStart(6)} B gzipped${verdict}`);
}
console.log('minified bytes by input, every export:');
for (const [file, bytes] of Object.entries(rows[1]![1].inputs).sort((x, y) => y[1] - x[1])) console.log(`  ${String(bytes).padStart(6)}  ${file}`);
if (rows[0]![1].gzip > GOAL_BYTES) process.exitCode = 1;
