/**
 * The packages as a stranger gets them (`make test-registry`, run by `make test` after `make build`): published
 * to a real registry, installed in folders outside the repository, run under plain `node` and compiled with
 * `tsc --strict` without skipLibCheck. Every tarball also passes publint and attw (`--profile esm-only`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, entriesOf, readAssignments, readmeExample, startRegistry, stopTree, type CommandResult, type Registry } from './harness.js';

let registry: Registry;
const timings: Record<string, number> = {};
const bin = (name: string): string => path.join(ROOT, 'node_modules/.bin', name);

function ok(result: CommandResult, what: string): CommandResult {
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  return result;
}

/** npm's own warnings a stranger must not see: engine mismatches and install scripts nobody asked for. */
function installWarnings(result: CommandResult): string[] {
  return `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => /EBADENGINE|install-scripts/i.test(line));
}

const TSC = (dir: string): string => path.join(dir, 'node_modules/typescript/bin/tsc');

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The fenced ts block under a `## heading` of the root README. */
async function rootReadmeSection(heading: string): Promise<string> {
  const text = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = text.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const match = /```ts\n([\s\S]*?)```/.exec(text.slice(start));
  if (!match) throw new Error(`README.md section "${heading}" has no ts block`);
  return match[1]!;
}

/**
 * A stranger's project that installed @card-api/sandbox, as `gen-card-api sandbox` tells them to, with install
 * scripts off: nothing in the sandbox's tree is built (it stores its state with node:sqlite), and no `binding.gyp`
 * is there. The tests that need the sandbox installed share this one project. Started as soon as the registry is
 * up, so that the install runs while the tests that need no sandbox (placed first) do; the tests that need it wait.
 */
let sandboxProject: Promise<string> | undefined;
function projectWithSandbox(): Promise<string> {
  sandboxProject ??= (async () => {
    const folder = await registry.folder('project');
    // An ES module project (the examples use top-level await).
    await writeJson(path.join(folder, 'package.json'), { name: 'stranger', private: true, type: 'module' });
    const install = ok(await registry.run('npm', ['install', '-D', '--ignore-scripts', '@card-api/sandbox'], { cwd: folder }), 'npm install -D @card-api/sandbox');
    timings['npm install -D @card-api/sandbox'] = install.ms;
    // Checked here, not with expect: this may run while another test does.
    const warnings = installWarnings(install);
    if (warnings.length > 0) throw new Error(`npm install -D @card-api/sandbox printed warnings a stranger must not see:\n${warnings.join('\n')}`);
    const gyp = ok(await registry.run('find', ['node_modules', '-name', 'binding.gyp', '-o', '-name', '*.node'], { cwd: folder }), 'find binding.gyp').stdout.trim();
    if (gyp !== '') throw new Error(`the sandbox's installed tree holds a native module:\n${gyp}`);
    return folder;
  })();
  return sandboxProject;
}

beforeAll(async () => {
  const started = performance.now();
  registry = await startRegistry();
  timings['registry up, 6 packages packed and published'] = performance.now() - started;
  // A failure surfaces in the tests that await it.
  projectWithSandbox().catch(() => {});
});

afterAll(async () => {
  await registry?.close();
  const lines = Object.entries(timings).map(([what, ms]) => `  ${what.padEnd(60)} ${(ms / 1000).toFixed(1).padStart(6)} s`);
  console.log(`stranger's path on Node ${process.version}, wall time on this machine:\n${lines.join('\n')}`);
});

describe("the stranger's Node", () => {
  it('is the node first on PATH, the one this run is on: plain node, npm and what npx runs all report it', async () => {
    // `make test-lines` and .ci/run put a Node line first on PATH: this is what makes "the stranger phase on 22"
    // true (tsc and the consumer scripts run on process.execPath, the same node).
    const folder = await registry.folder('node-line');
    const node = ok(await registry.run('node', ['-p', 'process.version'], { cwd: folder }), 'node -p process.version').stdout.trim();
    const npm = JSON.parse(ok(await registry.run('npm', ['version', '--json'], { cwd: folder }), 'npm version --json').stdout) as { node: string };
    const npx = ok(await registry.run('npx', ['--yes', '-c', 'node -p process.version'], { cwd: folder }), 'npx -c node').stdout.trim();
    timings[`the stranger's node, npm and npx: ${node}, v${npm.node}, ${npx}`] = 0;
    expect([node, `v${npm.node}`, npx]).toEqual([process.version, process.version, process.version]);
  });
});

describe('every tarball', () => {
  it('passes publint and attw --profile esm-only with no problem', async () => {
    for (const [name, tarball] of registry.tarballs) {
      const publint = ok(await registry.run(process.execPath, [bin('publint'), 'run', tarball, '--strict'], { cwd: path.dirname(tarball) }), `publint ${name}`);
      expect(publint.stdout, `publint ${name}`).toContain('All good');
      // attw exits 1 on any problem in the resolutions the profile keeps (node16 from ESM, bundler).
      ok(await registry.run(process.execPath, [bin('attw'), tarball, '--profile', 'esm-only', '--format', 'ascii'], { cwd: path.dirname(tarball) }), `attw ${name}`);
    }
  });

  it('ships dist, README and LICENSE only: no sources, tests or fixtures', async () => {
    for (const [name, tarball] of registry.tarballs) {
      const listing = ok(await registry.run('tar', ['-tzf', tarball], { cwd: path.dirname(tarball) }), `tar ${name}`).stdout.trim().split('\n');
      const files = listing.map((f) => f.replace(/^package\//, ''));
      expect(files, name).toContain('README.md');
      expect(files, name).toContain('LICENSE');
      const withBin = name === 'gen-card-api' || name === '@card-api/sandbox';
      // The CLI also ships the scenario fixtures `trigger --fixture <name>` runs.
      const fixtures = name === 'gen-card-api' ? (f: string) => f.startsWith('fixtures/') : () => false;
      const unexpected = files.filter((f) => !(f === 'package.json' || f === 'README.md' || f === 'LICENSE' || f.startsWith('dist/') || (withBin && f.startsWith('bin/')) || fixtures(f)));
      expect(unexpected, name).toEqual([]);
      expect(files.filter((f) => /\.test(-d)?\.|__fixtures__|test-receiver|test-support/.test(f)), name).toEqual([]);
      // TypeScript sources ship only as the CLI's templates, which it copies into generated output.
      expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('dist/assets/templates/')), name).toEqual([]);
    }
  });
});

describe('gen-card-api installed alone', () => {
  it('brings no native module, no server and no database: only what generating, lint, check, diff and verify use', async () => {
    const folder = await registry.folder('cli-only');
    await writeJson(path.join(folder, 'package.json'), { name: 'stranger-cli', private: true, type: 'module' });
    const install = ok(await registry.run('npm', ['install', '-D', 'gen-card-api'], { cwd: folder }), 'npm install -D gen-card-api');
    timings['npm install -D gen-card-api (alone)'] = install.ms;
    expect(installWarnings(install)).toEqual([]);
    const tree = ok(await registry.run('npm', ['ls', '--all', '--parseable'], { cwd: folder }), 'npm ls').stdout.split('\n').filter(Boolean);
    const names = tree.map((dir) => dir.split(`${path.sep}node_modules${path.sep}`).pop()!);
    for (const heavy of ['@card-api/sandbox', 'better-sqlite3', 'fastify', 'bindings', 'prebuild-install', 'node-gyp']) expect(names, heavy).not.toContain(heavy);
    const gyp = ok(await registry.run('find', ['node_modules', '-name', 'binding.gyp'], { cwd: folder }), 'find binding.gyp').stdout.trim();
    expect(gyp).toBe('');
    const client = ok(await registry.run(path.join(folder, 'node_modules/.bin/gen-card-api'), ['client', '--out', 'card-api'], { cwd: folder }), 'gen-card-api client (installed alone)');
    expect(client.stdout).toContain('wrote');
    // lint runs on the Redocly engine vendored into dist/vendor (scripts/build.ts buildVendor), installed by nobody.
    const lint = ok(await registry.run(path.join(folder, 'node_modules/.bin/gen-card-api'), ['lint'], { cwd: folder }), 'gen-card-api lint (installed alone)');
    expect(lint.stdout).toMatch(/openapi\.yaml: 0 errors, 0 warnings/);
    for (const vendored of ['@redocly/openapi-core', 'openapi-typescript']) expect(names, vendored).not.toContain(vendored);
    // The documents it names ship with it, by a path that opens from the folder it runs in.
    const help = ok(await registry.run(path.join(folder, 'node_modules/.bin/gen-card-api'), ['diff', '--help'], { cwd: folder, env: { ...registry.env, COLUMNS: '400' } }), 'gen-card-api diff --help');
    const named = /\(see ([^)\s]+\.md)\)/.exec(help.stdout.replace(/\s+/g, ' '))?.[1];
    expect(named).toBe('node_modules/gen-card-api/dist/assets/docs/diff-checks.md');
    expect(await readFile(path.join(folder, named!), 'utf8')).toContain('# ');
  });
});

describe('@card-api/server in a consumer Fastify app', () => {
  it('compiles app.register(cardApi, ...) against a fastify 5 minor other than the repository\'s', async () => {
    const repoFastify = (JSON.parse(await readFile(path.join(ROOT, 'node_modules/fastify/package.json'), 'utf8')) as { version: string }).version;
    const minor = repoFastify.startsWith('5.6.') ? '5.7' : '5.6';
    const folder = await registry.folder('fastify-app');
    await writeJson(path.join(folder, 'package.json'), { name: 'stranger-fastify', private: true, type: 'module' });
    // fastify is the consumer's own (a peer): any npm warning about its dependencies is fastify's, not ours.
    ok(await registry.run('npm', ['install', '@card-api/server', `fastify@~${minor}.0`, 'typescript@~5.9.3', '@types/node@^22.13.0'], { cwd: folder }), 'npm install (fastify app)');
    const installed = (JSON.parse(await readFile(path.join(folder, 'node_modules/fastify/package.json'), 'utf8')) as { version: string }).version;
    expect(installed.startsWith(`${minor}.`)).toBe(true);
    expect(installed).not.toBe(repoFastify);
    await writeFile(path.join(folder, 'app.ts'), await readmeExample(path.join(ROOT, 'packages/server/README.md')));
    await writeJson(path.join(folder, 'tsconfig.json'), {
      compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'es2022', lib: ['es2023'], types: ['node'] },
      include: ['app.ts'],
    });
    ok(await registry.run(process.execPath, [TSC(folder), '-p', 'tsconfig.json'], { cwd: folder }), `tsc app.ts (fastify ${installed})`);
  });
});

describe('npx gen-card-api in an empty folder', () => {
  let folder: string;
  let sandbox: ReturnType<Registry['start']> | undefined;
  let env: Record<string, string> = {};

  beforeAll(async () => {
    folder = await registry.folder('npx');
    // An ES module project (the examples use top-level await).
    await writeJson(path.join(folder, 'package.json'), { name: 'stranger', private: true, type: 'module' });
  });
  afterAll(() => {
    if (sandbox) stopTree(sandbox);
  });

  it('answers --version', async () => {
    const result = ok(await registry.run('npx', ['--yes', '--registry', registry.url, 'gen-card-api', '--version'], { cwd: folder }), 'npx gen-card-api --version');
    timings['npx gen-card-api --version (first call: installs)'] = result.ms;
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string };
    expect(result.stdout.trim()).toBe(manifest.version);
  });

  it('writes a vendorable client with client --out', async () => {
    const result = ok(await registry.run('npx', ['--yes', 'gen-card-api', 'client', '--out', './card-api'], { cwd: folder }), 'gen-card-api client --out');
    timings['npx gen-card-api client --out ./card-api'] = result.ms;
    expect(result.stdout).toContain('./card-api');
    const index = await readFile(path.join(folder, 'card-api/index.ts'), 'utf8');
    expect(index).toContain('CardApiClient');
    expect(index).not.toMatch(/from '@card-api\//);
  });

  it('names the one install the sandbox needs (exit 2), then starts it with sandbox --port 0 once installed', async () => {
    // This folder has no sandbox installed; the install is done as the message says in an identical project.
    const before = await registry.run('npx', ['--yes', 'gen-card-api', 'sandbox', '--port', '0'], { cwd: folder });
    expect(before.code, before.stderr).toBe(2);
    expect(before.stdout).toBe('');
    // npm's own warnings about this machine's npm config are npx's, not ours.
    const ours = before.stderr.trim().split('\n').filter((line) => !line.startsWith('npm warn'));
    expect(ours).toEqual([expect.stringMatching(/^gen-card-api sandbox: needs @card-api\/sandbox, .*npm install -D @card-api\/sandbox/)]);
    const help = ok(await registry.run('npx', ['--yes', 'gen-card-api', 'sandbox', '--help'], { cwd: folder }), 'gen-card-api sandbox --help (not installed)');
    expect(help.stdout).toContain('npm install -D @card-api/sandbox');

    // What the message says: the project installs the sandbox.
    const project = await projectWithSandbox();
    const started = performance.now();
    sandbox = registry.start('npx', ['--yes', 'gen-card-api', 'sandbox', '--port', '0', '--latency', '5'], { cwd: project });
    env = await readAssignments(sandbox, 'CARD_API_TOKEN');
    timings['npx gen-card-api sandbox --port 0 (until it prints its token)'] = performance.now() - started;
    expect(env['CARD_API_BASE_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(env['CARD_API_TOKEN']).toMatch(/_sk_/);
  });

  it('compiles a consumer of the vendored client with tsc --strict (node16 and bundler, skipLibCheck false) and drives the sandbox with plain node', async () => {
    const install = ok(await registry.run('npm', ['install', 'openapi-fetch@^0.17.0', 'typescript@~5.9.3', '@types/node@^22.13.0'], { cwd: folder }), 'npm install (consumer)');
    timings['npm install openapi-fetch typescript @types/node'] = install.ms;
    expect(installWarnings(install)).toEqual([]);

    await writeFile(
      path.join(folder, 'consumer.ts'),
      [
        "import { CardApiClient, type Card } from './card-api/index.js';",
        '',
        "const api = new CardApiClient({ token: process.env['CARD_API_TOKEN'] ?? '', baseUrl: process.env['CARD_API_BASE_URL'] ?? '' });",
        'const ping = await api.ping();',
        'const products = await api.cardProducts.list();',
        'const product = products.find((p) => p.available && !p.supports_custom_billing_address) ?? products[0]!;',
        'const order = await api.cards.create({',
        '  card_product_id: product.id,',
        '  initial_topup_amount: product.min_initial_topup_amount,',
        "  cardholder_first_name: 'Ada',",
        "  cardholder_last_name: 'Lovelace',",
        '});',
        'const done = await api.orders.wait(order.uuid, { intervalMs: 50 });',
        'const cards: Card[] = [];',
        'for await (const card of api.cards.list()) cards.push(card);',
        'console.log(JSON.stringify({ workspace: ping.workspace_slug, order: done.status, type: done.type, cards: cards.length }));',
        '',
      ].join('\n'),
    );
    await writeFile(path.join(folder, 'readme-example.ts'), await rootReadmeSection('A typed client for your code'));
    const common = { strict: true, skipLibCheck: false, types: ['node'] };
    await writeJson(path.join(folder, 'tsconfig.json'), {
      compilerOptions: { ...common, module: 'node16', moduleResolution: 'node16', target: 'es2022', outDir: 'out', rootDir: '.' },
      include: ['consumer.ts', 'readme-example.ts', 'card-api/**/*.ts'],
    });
    await writeJson(path.join(folder, 'tsconfig.bundler.json'), {
      compilerOptions: { ...common, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', noEmit: true },
      include: ['consumer.ts', 'readme-example.ts', 'card-api/**/*.ts'],
    });
    const node16 = ok(await registry.run(process.execPath, [TSC(folder), '-p', 'tsconfig.json'], { cwd: folder }), 'tsc --strict (node16)');
    timings['tsc --strict, node16 (emits)'] = node16.ms;
    ok(await registry.run(process.execPath, [TSC(folder), '-p', 'tsconfig.bundler.json'], { cwd: folder }), 'tsc --strict (bundler)');

    const run = ok(await registry.run(process.execPath, ['out/consumer.js'], { cwd: folder, env: { ...registry.env, ...env } }), 'node out/consumer.js');
    timings['node out/consumer.js (ping, issue, wait, list)'] = run.ms;
    const summary = JSON.parse(run.stdout.trim().split('\n').pop()!) as { order: string; type: string; cards: number };
    expect(summary).toMatchObject({ order: 'completed', type: 'issue_card' });
    expect(summary.cards).toBeGreaterThanOrEqual(1);
  });
});

describe('the libraries installed from the registry', () => {
  const LIBRARIES = ['@card-api/types', '@card-api/client', '@card-api/webhooks', '@card-api/server', '@card-api/sandbox'];
  let folder: string;

  beforeAll(async () => {
    // The project that has the sandbox installed already; the other four join it.
    folder = await projectWithSandbox();
    const install = ok(await registry.run('npm', ['install', ...LIBRARIES.filter((name) => name !== '@card-api/sandbox'), 'typescript@~5.9.3', '@types/node@^22.13.0'], { cwd: folder }), 'npm install (libraries)');
    timings['npm install the other four libraries'] = install.ms;
    expect(installWarnings(install)).toEqual([]);
  });

  it('imports every entry with plain node, as ESM and with require()', async () => {
    for (const name of LIBRARIES) {
      for (const entry of await entriesOf(name)) {
        const esm = await registry.run(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(entry)});`], { cwd: folder });
        ok(esm, `import('${entry}')`);
        const cjs = await registry.run(process.execPath, ['--no-warnings', '-e', `require(${JSON.stringify(entry)})`], { cwd: folder });
        ok(cjs, `require('${entry}')`);
      }
    }
  });

  it("compiles every package README's example and every entry's types without the DOM lib", async () => {
    const examples: string[] = [];
    for (const dir of ['types', 'client', 'webhooks', 'sandbox']) {
      const file = `readme-${dir}.ts`;
      await writeFile(path.join(folder, file), await readmeExample(path.join(ROOT, 'packages', dir, 'README.md')));
      examples.push(file);
    }
    const imports: string[] = [];
    for (const name of LIBRARIES) {
      for (const [i, entry] of (await entriesOf(name)).entries()) imports.push(`import * as e${imports.length}_${i} from '${entry}';\nvoid e${imports.length}_${i};`);
    }
    await writeFile(path.join(folder, 'entries.ts'), `${imports.join('\n')}\nexport {};\n`);
    await writeJson(path.join(folder, 'tsconfig.json'), {
      compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'es2022', lib: ['es2023'], types: ['node'] },
      include: [...examples, 'entries.ts'],
    });
    ok(await registry.run(process.execPath, [TSC(folder), '-p', 'tsconfig.json'], { cwd: folder }), 'tsc (README examples, every entry, no DOM)');
  });

  it("runs the sandbox README's example under plain node", async () => {
    // The example is TypeScript without annotations, so it also runs as JavaScript.
    await writeFile(path.join(folder, 'sandbox-example.mjs'), await readmeExample(path.join(ROOT, 'packages/sandbox/README.md')));
    const run = ok(await registry.run(process.execPath, ['sandbox-example.mjs'], { cwd: folder }), 'node sandbox-example.mjs');
    expect(run.stdout).toMatch(/CARD_API_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    expect(run.stdout).toMatch(/^200 /m);
  });

  it('runs its own bin: npx @card-api/sandbox --port 0 prints the base URL and token, and stops on SIGTERM', async () => {
    const proc = registry.start('npx', ['@card-api/sandbox', '--port', '0'], { cwd: folder });
    try {
      const env = await readAssignments(proc, 'CARD_API_TOKEN');
      expect(env['CARD_API_BASE_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      const ping = await fetch(`${env['CARD_API_BASE_URL']}/ping`, { headers: { authorization: `Bearer ${env['CARD_API_TOKEN']}` } });
      expect(ping.status).toBe(200);
    } finally {
      stopTree(proc);
    }
  });
});
