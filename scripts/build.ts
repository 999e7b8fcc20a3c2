/**
 * `make build`: every library to `packages/<name>/dist` with `tsc -b` (JavaScript, `.d.ts`, declaration maps),
 * then the `gen-card-api` CLI: its sources and the generators bundled by esbuild into `packages/cli/dist`
 * (npm packages stay external, so they are the declared dependencies), the two vendored engines in
 * `packages/cli/dist/vendor` (see {@link buildVendor}), and the files the generators read at run time (the bundled
 * spec, the control document, `templates/`, the lint configuration) and the documents the CLI names copied into
 * `packages/cli/dist/assets`, where generators/core/assets.ts finds them.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
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

/**
 * The CLI alone, into `dist` (`packages/cli/dist` unless told; bench/lint.ts builds it without the libraries' `tsc -b`,
 * test/cli/vendor.test.ts into a folder of its own).
 */
export async function buildCli(dist: string = path.join(cliDir, 'dist')): Promise<void> {
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
  await buildVendor(dist);
  await copyCliAssets(path.join(dist, 'assets'));
}

/**
 * The packages the CLI loads through a subpath import (`#redocly`, `#openapi-typescript`) rather than by name,
 * each bundled into one CommonJS file of `dist/vendor/`. packages/cli/package.json maps each import to its file,
 * the root package.json to the package itself (so the checkout, the tests and tsx use the installed package).
 *
 * Why: @redocly/openapi-core 1.x is some 330 CommonJS modules, and a cold `gen-card-api lint` spent about a
 * tenth of its CPU finding, reading and compiling them one by one; Redocly's own CLI ships as one bundled file
 * (issue 34, bench/lint.ts). openapi-typescript goes with it, bundled against the same vendored engine, so that
 * `client` loads one copy, not the bundle and the package as well. `typescript`, which openapi-typescript prints
 * through, stays a declared dependency: 9 MB that gains nothing from a bundle. A user installs neither package nor
 * their dependencies (59 packages became 23, bench/install.ts).
 */
export const VENDORED = [
  { specifier: '#redocly', name: '@redocly/openapi-core', file: 'redocly.cjs' },
  { specifier: '#openapi-typescript', name: 'openapi-typescript', file: 'openapi-typescript.cjs' },
] as const;

/** The notices of every package bundled into `dist/vendor/`, as their licenses ask. */
export const VENDOR_NOTICES = 'THIRD_PARTY_NOTICES.md';

const LAZY_PROXY_AGENT = path.join(root, 'scripts/vendor/https-proxy-agent.cjs');

/**
 * The modules of @redocly/openapi-core that openapi-typescript requires by path rather than from the package entry
 * (`parseRef` and `escapePointer`, which the entry does not export). The vendored Redocly carries them under
 * {@link DEEP_KEY}, and openapi-typescript's bundle reads them from there: one copy of the engine. A deep import not
 * listed here fails the build (a new openapi-typescript that needs another one).
 */
const REDOCLY_DEEP = ['lib/ref-utils.js'];
const DEEP_KEY = '__cardApiKitDeepModules';

const bundleOptions = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22.13',
  metafile: true,
  legalComments: 'none',
  logLevel: 'error',
  absWorkingDir: root,
} as const;

/** Loaded when first used, not with the bundle (scripts/vendor/https-proxy-agent.cjs says why); the shim's own require of it is the real module. */
const lazyProxyAgent: Plugin = {
  name: 'lazy-https-proxy-agent',
  setup(b) {
    b.onResolve({ filter: /^https-proxy-agent$/ }, (args) => (args.importer === LAZY_PROXY_AGENT ? undefined : { path: LAZY_PROXY_AGENT }));
  },
};

export async function buildVendor(dist: string): Promise<void> {
  const out = path.join(dist, 'vendor');
  await mkdir(out, { recursive: true });
  const [redocly, openapiTs] = VENDORED;
  const deep = REDOCLY_DEEP.map((sub) => `${JSON.stringify(sub)}: require(${JSON.stringify(`${redocly.name}/${sub}`)})`).join(', ');
  const core = await build({
    ...bundleOptions,
    stdin: {
      contents: `module.exports = require(${JSON.stringify(redocly.name)});\nObject.defineProperty(module.exports, ${JSON.stringify(DEEP_KEY)}, { value: { ${deep} } });\n`,
      resolveDir: root,
      sourcefile: 'vendor-redocly-entry.cjs',
      loader: 'js',
    },
    outfile: path.join(out, redocly.file),
    plugins: [lazyProxyAgent],
  });
  const escaped = redocly.name.replace(/[/.]/g, '\\$&');
  const types = await build({
    ...bundleOptions,
    // Its named exports, without the `default` its CommonJS build sets beside `__esModule` (publint: a pattern that
    // breaks default imports from ESM in some bundlers); the generators use named functions only.
    stdin: {
      contents: `const { default: _openapiTS, ...named } = require(${JSON.stringify(openapiTs.name)});\nmodule.exports = named;\n`,
      resolveDir: root,
      sourcefile: 'vendor-openapi-typescript-entry.cjs',
      loader: 'js',
    },
    outfile: path.join(out, openapiTs.file),
    // `typescript` is a declared dependency of the CLI; Redocly is the vendored file next to this one.
    external: ['typescript'],
    plugins: [
      lazyProxyAgent,
      {
        name: 'vendored-redocly',
        setup(b) {
          b.onResolve({ filter: new RegExp(`^${escaped}$`) }, () => ({ path: `./${redocly.file}`, external: true }));
          b.onResolve({ filter: new RegExp(`^${escaped}/`) }, (args) => {
            const sub = args.path.slice(redocly.name.length + 1);
            if (!REDOCLY_DEEP.includes(sub)) return { errors: [{ text: `${openapiTs.name} requires ${args.path}, which the vendored ${redocly.name} does not carry: add it to REDOCLY_DEEP in scripts/build.ts` }] };
            return { path: sub, namespace: 'redocly-deep' };
          });
          b.onLoad({ filter: /.*/, namespace: 'redocly-deep' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(`./${redocly.file}`)})[${JSON.stringify(DEEP_KEY)}][${JSON.stringify(args.path)}];\n`, loader: 'js' }));
          b.onResolve({ filter: new RegExp(`^\\./${redocly.file.replace(/\./g, '\\.')}$`), namespace: 'redocly-deep' }, (args) => ({ path: args.path, external: true }));
        },
      },
    ],
  });
  const inputs = [core, types].flatMap((result) => Object.keys((result.metafile as Metafile).inputs));
  await writeFile(path.join(out, VENDOR_NOTICES), await vendorNotices(inputs));
}

/** `THIRD_PARTY_NOTICES.md`: each package a vendored file holds, with its version, license and license text. */
async function vendorNotices(inputs: string[]): Promise<string> {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    dirs.add(path.join(root, input.slice(0, at), 'node_modules', ...rest.slice(0, rest[0]!.startsWith('@') ? 2 : 1)));
  }
  const packages = await Promise.all(
    [...dirs].map(async (dir) => ({ dir, manifest: JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string; author?: string | { name?: string } } })),
  );
  packages.sort((a, b) => (a.manifest.name === b.manifest.name ? a.manifest.version.localeCompare(b.manifest.version) : a.manifest.name < b.manifest.name ? -1 : 1));
  const sections: string[] = [];
  for (const { dir, manifest } of packages) {
    const texts: string[] = [];
    for (const entry of (await readdir(dir)).sort()) {
      if (/^(licen[cs]e|copying|notice)(\.|$)/i.test(entry)) texts.push((await readFile(path.join(dir, entry), 'utf8')).trim());
    }
    const author = typeof manifest.author === 'string' ? manifest.author : manifest.author?.name;
    sections.push(
      [
        `## ${manifest.name}@${manifest.version}`,
        '',
        `License: ${manifest.license ?? 'not stated'}${author ? `; author: ${author}` : ''}`,
        '',
        ...(texts.length > 0 ? texts.map((text) => `\`\`\`\`text\n${text}\n\`\`\`\``) : ['(the package ships no license file; its package.json states the license above)']),
        '',
      ].join('\n'),
    );
  }
  return `# Third-party notices\n\nThe files in this folder bundle the following packages (scripts/build.ts \`buildVendor\`).\n\n${sections.join('\n')}`;
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
