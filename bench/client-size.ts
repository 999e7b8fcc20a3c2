/**
 * Shipped size of the client runtime: templates/client/index.ts bundled with openapi-fetch,
 * minified (esbuild, ESM, browser-neutral platform), then gzipped.
 *
 * Run: node --import tsx bench/client-size.ts
 * Goal: <= 8 kB gzipped, openapi-fetch included.
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const GOAL_BYTES = 8 * 1024;
const entry = fileURLToPath(new URL('../templates/client/index.ts', import.meta.url));

async function bundle(external: string[]): Promise<{ raw: number; gzip: number; inputs: Record<string, number> }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    // "neutral" refuses Node built-ins, which is the point: the runtime must run on edge workers too.
    platform: 'neutral',
    mainFields: ['module', 'main'],
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

const full = await bundle([]);
const ownOnly = await bundle(['openapi-fetch']);

console.log('client bundle size (esbuild --minify, ESM, platform neutral, gzip -9)');
console.log(`runtime + openapi-fetch: ${full.raw.toLocaleString('en-US')} B minified, ${full.gzip.toLocaleString('en-US')} B gzipped`);
console.log(`runtime alone:           ${ownOnly.raw.toLocaleString('en-US')} B minified, ${ownOnly.gzip.toLocaleString('en-US')} B gzipped`);
console.log('minified bytes by input:');
for (const [file, bytes] of Object.entries(full.inputs).sort((x, y) => y[1] - x[1])) {
  console.log(`  ${String(bytes).padStart(6)}  ${file}`);
}
console.log(`goal <= ${GOAL_BYTES} B gzipped: ${full.gzip <= GOAL_BYTES ? 'OK' : 'OVER'}`);
if (full.gzip > GOAL_BYTES) process.exitCode = 1;
