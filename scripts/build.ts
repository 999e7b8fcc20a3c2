/**
 * `make build`: every library to `packages/<name>/dist` with `tsc -b` (JavaScript, `.d.ts`, declaration maps),
 * then the `gen-card-api` CLI: its sources and the generators bundled by esbuild into `packages/cli/dist`
 * (npm packages stay external, so they are the declared dependencies), and the files the generators read at
 * run time (the bundled spec, the control document, `templates/`, the lint configuration) and the documents the CLI
 * names copied into `packages/cli/dist/assets`, where generators/core/assets.ts finds them.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SHIPPED_DOCS } from '../generators/core/assets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cliDir = path.join(root, 'packages/cli');
const LIBRARIES = ['types', 'client', 'webhooks', 'server', 'sandbox'];

/** Test files and test-only folders never ship, from templates/ or anywhere else. */
function shipped(file: string): boolean {
  const base = path.basename(file);
  return !/\.test(-d)?\.ts$/.test(base) && !base.startsWith('__') && base !== 'node_modules';
}

async function buildLibraries(clean: boolean): Promise<void> {
  if (clean) for (const lib of LIBRARIES) await rm(path.join(root, 'packages', lib, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}

/**
 * What the CLI bundle leaves to `npm install`: exactly the packages its package.json declares (dependencies and
 * the optional peer @card-api/sandbox). The workspace libraries it uses at run time (@card-api/webhooks for
 * verify's receiver) are bundled from their sources, so that the one gen-card-api tarball installs on its own.
 */
async function cliExternals(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(cliDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** The CLI alone (bench/lint.ts builds it when `packages/cli/dist` is missing, without the libraries' `tsc -b`). */
export async function buildCli(): Promise<void> {
  const dist = path.join(cliDir, 'dist');
  await rm(dist, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(cliDir, 'src/main.ts')],
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22.13',
    external: await cliExternals(),
    conditions: ['@card-api/source'],
    chunkNames: 'chunks/[name]-[hash]',
    legalComments: 'none',
    logLevel: 'warning',
  });
  await copyCliAssets(path.join(dist, 'assets'));
}

/**
 * What the bundled generators read at run time (the spec, the control document, `templates/`, the lint
 * configuration) and every document the CLI names (SHIPPED_DOCS), copied under `assets` at their paths from the root.
 */
export async function copyCliAssets(assets: string): Promise<void> {
  await mkdir(assets, { recursive: true });
  await cp(path.join(root, 'redocly.yaml'), path.join(assets, 'redocly.yaml'));
  for (const dir of ['spec', 'templates']) {
    await cp(path.join(root, dir), path.join(assets, dir), { recursive: true, filter: (source) => shipped(source) });
  }
  for (const doc of SHIPPED_DOCS) {
    await mkdir(path.dirname(path.join(assets, doc)), { recursive: true });
    await cp(path.join(root, doc), path.join(assets, doc));
  }
}

async function main(): Promise<void> {
  const clean = process.argv.includes('--clean');
  const started = performance.now();
  await buildLibraries(clean);
  await buildCli();
  const files = await readdir(path.join(cliDir, 'dist'), { recursive: true });
  console.log(`build: ${LIBRARIES.length} libraries (tsc -b) and gen-card-api (${files.length} files in packages/cli/dist) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

// Imported by a test (copyCliAssets), run by `npm run build`.
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
