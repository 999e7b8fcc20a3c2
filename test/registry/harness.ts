/**
 * A stranger's machine, as far as npm can tell: a real registry (Verdaccio on loopback, its storage in a temp
 * folder, proxying the one public registry this machine reaches for everything that is not ours), every
 * package packed from the built workspace and published to it, and commands run in temp folders outside the
 * repository with an environment scrubbed of this checkout's npm and Node settings (no `@card-api/source`
 * condition, no workspace, a fresh npm cache). Used by the registry test and by bench/cli-startup.ts.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGISTRY_HANG_MS, WAIT_MS } from '../helpers/limits.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Every publishable package, in dependency order. */
export const PACKAGES = ['types', 'client', 'webhooks', 'server', 'sandbox', 'cli'] as const;

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface Registry {
  url: string;
  /** Temp folder holding the registry's storage, the tarballs, the npm cache and the strangers' folders. */
  dir: string;
  tarballs: Map<string, string>;
  /** The environment of a stranger's shell: this registry, a fresh cache, nothing from the checkout. */
  env: NodeJS.ProcessEnv;
  /** Runs a command to completion (rejects on a spawn error only; check `code`); killed only if it hangs (REGISTRY_HANG_MS). */
  run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string }): Promise<CommandResult>;
  /** Starts a long-running command; `stop()` ends it and its children. */
  start(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): ChildProcess;
  /** A new empty folder for a stranger. */
  folder(name: string): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The environment without anything this checkout or the npm run that started us put there. */
export function strangerEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'NODE_OPTIONS' || key === 'INIT_CWD' || key.startsWith('VITEST') || key === 'NODE_ENV' || key === 'TEST') continue;
    env[key] = value;
  }
  // Drop the checkout's node_modules/.bin folders from PATH: a stranger has none of our tools. Any other folder
  // stays, a Node line's bin folder among them (even one cached under the checkout): strangers run on the `node`
  // first on PATH, the line being tested.
  env.PATH = (process.env.PATH ?? '').split(path.delimiter).filter((p) => !(p.startsWith(ROOT) && p.split(path.sep).includes('node_modules'))).join(path.delimiter);
  return { ...env, ...extra };
}

export function runCommand(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; input?: string }): Promise<CommandResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const limit = options.timeoutMs ?? REGISTRY_HANG_MS;
    const timer = setTimeout(() => {
      stderr += `\n[harness] killed after ${limit / 60_000} minutes: a hang, or a machine far slower than any CI`;
      child.kill('SIGKILL');
    }, limit);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
    // A child that exits without reading its stdin (tar, a fast npm) closes the pipe first: EPIPE then is no
    // failure of ours, and unhandled it would be an uncaught exception in whichever test runs at that moment.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') stderr += `\n[harness] writing stdin: ${error.message}`;
    });
    child.stdin.end(options.input ?? '');
  });
}

async function waitForRegistry(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${log()}`);
    try {
      const response = await fetch(`${url}-/ping`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`verdaccio did not answer on ${url} within ${WAIT_MS / 60_000} minutes:\n${log()}`);
}

/** Packs every package from its built `dist/` (run `make build` first) into `dir`, all at once; in PACKAGES order. */
export async function packAll(dir: string, env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const packed = await Promise.all(
    PACKAGES.map(async (name) => {
      const pkgDir = path.join(ROOT, 'packages', name);
      const main = name === 'cli' ? 'dist/main.js' : 'dist/index.js';
      if (!existsSync(path.join(pkgDir, main))) throw new Error(`packages/${name}/${main} is missing: run \`make build\` before the registry test`);
      const result = await runCommand('npm', ['pack', pkgDir, '--pack-destination', dir, '--json'], { cwd: dir, env });
      if (result.code !== 0) throw new Error(`npm pack packages/${name} failed:\n${result.stderr}`);
      const [info] = JSON.parse(result.stdout) as Array<{ filename: string; name: string }>;
      return [info!.name, path.join(dir, info!.filename)] as const;
    }),
  );
  return new Map(packed);
}

/** Starts Verdaccio, creates a publishing user, packs and publishes every package. */
export async function startRegistry(): Promise<Registry> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'card-api-registry-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', env: strangerEnv({}) }).trim();
  const config = [
    `storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
    'uplinks:',
    '  upstream:',
    `    url: ${JSON.stringify(upstream)}`,
    // Its limit on one upstream request: generous, as a starved Verdaccio reads slowly, which is no failure.
    '    timeout: 5m',
    'packages:',
    // Ours exist only here, never looked up upstream: a stranger gets exactly what we published.
    "  '@card-api/*':",
    '    access: $all',
    '    publish: $authenticated',
    "  'gen-card-api':",
    '    access: $all',
    '    publish: $authenticated',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    proxy: upstream',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n');
  await writeFile(path.join(dir, 'config.yaml'), config);
  let log = '';
  const verdaccio = spawn(process.execPath, [path.join(ROOT, 'node_modules/verdaccio/bin/verdaccio'), '--config', path.join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    env: strangerEnv({}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  verdaccio.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  verdaccio.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const children: ChildProcess[] = [verdaccio];

  try {
    await waitForRegistry(url, verdaccio, () => log);
    const user = await fetch(`${url}-/user/org.couchdb.user:stranger`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'stranger', password: 'stranger-password', email: 'stranger@example.test', type: 'user', roles: [], date: new Date().toISOString() }),
    });
    const { token } = (await user.json()) as { token?: string };
    if (!user.ok || !token) throw new Error(`cannot create a registry user: ${user.status}`);
    const host = url.replace(/^http:/, '');
    // The stranger keeps this machine's own user settings (such as where Node's headers are for native builds),
    // with our registry and its token on top.
    const userconfig = execFileSync('npm', ['config', 'get', 'userconfig'], { encoding: 'utf8', env: strangerEnv({}) }).trim();
    const own = existsSync(userconfig) ? (await readFile(userconfig, 'utf8')).split('\n').filter((line) => !/^\s*(registry|\/\/)/.test(line)) : [];
    const npmrc = path.join(dir, 'npmrc');
    await writeFile(npmrc, [...own, `registry=${url}`, `${host}:_authToken=${token}`, 'fund=false', 'audit=false', 'update-notifier=false', ''].join('\n'));
    // A fresh npm cache (so that no earlier run's gen-card-api@same-version is reused by npx), seeded with a copy
    // of this machine's package contents, which npm finds by integrity: public packages need not travel again.
    const cache = path.join(dir, 'npm-cache');
    const machineCache = path.join(execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8', env: strangerEnv({}) }).trim(), '_cacache');
    // cp(1), not fs.cp: several times faster on the cache's thousands of small files (about 1 s against 5 s here).
    // Its contents and index only: `tmp/` holds another npm's files in flight (an install running beside the
    // tests), which vanish under cp and failed the copy.
    if (existsSync(machineCache)) {
      await mkdir(path.join(cache, '_cacache'), { recursive: true });
      for (const part of ['content-v2', 'index-v5']) {
        if (existsSync(path.join(machineCache, part))) execFileSync('cp', ['-R', path.join(machineCache, part), path.join(cache, '_cacache', part)]);
      }
    }
    const env = strangerEnv({ npm_config_userconfig: npmrc, npm_config_cache: cache, npm_config_registry: url });

    const tarballs = await packAll(await mkdirp(path.join(dir, 'tarballs')), env);
    await Promise.all(
      [...tarballs].map(async ([name, tarball]) => {
        const published = await runCommand('npm', ['publish', tarball, '--registry', url, '--tag', 'latest'], { cwd: dir, env });
        if (published.code !== 0) throw new Error(`npm publish ${name} failed:\n${published.stderr}`);
      }),
    );

    return {
      url,
      dir,
      tarballs,
      env,
      run: (command, args, options) => runCommand(command, args, { ...options, env: options.env ?? env }),
      start(command, args, options) {
        const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        children.push(child);
        return child;
      },
      async folder(name) {
        return mkdirp(path.join(dir, 'strangers', name));
      },
      async close() {
        for (const child of children.reverse()) stopTree(child);
        await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      },
    };
  } catch (error) {
    for (const child of children) stopTree(child);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    throw error;
  }
}

async function mkdirp(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Ends a child and, when it leads a process group (started detached), every process in it. */
export function stopTree(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
}

/** Resolves with the `KEY=value` lines a command prints on stdout once `until` has been printed (or fails after `timeoutMs`: minutes unless told). */
export function readAssignments(child: ChildProcess, until: string, timeoutMs = WAIT_MS): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`no ${until}= line within ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`)), timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const values = Object.fromEntries(
        stdout
          .split('\n')
          .filter((line) => /^[A-Z_]+=/.test(line))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      if (until in values && stdout.endsWith('\n')) {
        clearTimeout(timer);
        resolve(values);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before printing ${until}=; stderr:\n${stderr}`));
    });
  });
}

/** The `exports` entries of a published package, as import specifiers (`@card-api/webhooks/web`...). */
export async function entriesOf(packageName: string): Promise<string[]> {
  const dir = packageName === 'gen-card-api' ? 'cli' : packageName.replace('@card-api/', '');
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  return Object.keys(manifest.exports)
    .filter((key) => key !== './package.json')
    .map((key) => (key === '.' ? packageName : `${packageName}/${key.slice(2)}`));
}

/** The first fenced TypeScript block of a README: each package's example must compile as written. */
export async function readmeExample(file: string): Promise<string> {
  const text = await readFile(file, 'utf8');
  const match = /```ts\n([\s\S]*?)```/.exec(text);
  if (!match) throw new Error(`${path.relative(ROOT, file)} has no \`\`\`ts example`);
  return match[1]!;
}
