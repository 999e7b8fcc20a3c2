/**
 * `gen-card-api sandbox`, `card-api-sandbox` and `gen-card-api listen --start` fail fast: when they cannot do what
 * they were asked (an `--env-out` they cannot write, a port in use) they exit 2 with the reason and a hint and leave
 * nothing listening; and they never outlive the process that started them, even one that exits while they start.
 * Every case ends on its own: a hang fails by the test's timeout, and each waits for ports and processes with a
 * bound, never a fixed sleep.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '@card-api/sandbox';
import { alive, eventually, freePort, listening } from '../helpers/processes.js';
import { ROOT, tempDir } from '../helpers/spec.js';

const GEN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const SANDBOX_BIN = path.join(ROOT, 'packages/sandbox/bin/card-api-sandbox.js');
const tmp = tempDir('fail-fast');
/** Every process a case started, killed after the file if a failing case left one behind. */
const started = new Set<number>();
afterAll(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  tmp.cleanup();
});
const ENV = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('CARD_API_')));

/** Runs a bin to its exit (every case here must exit by itself; the test's timeout fails one that does not). */
async function exitOf(bin: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: tmp.dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid !== undefined) started.add(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

const lines = (text: string): string[] => text.trimEnd().split('\n').filter((line) => line !== '');

describe('gen-card-api sandbox: --env-out it cannot use', () => {
  it('a folder that does not exist: exit 2, no token printed, nothing listening', async () => {
    const port = await freePort();
    const file = path.join(tmp.dir, 'no-such-dir', 'sandbox.env');
    const run = await exitOf(GEN, ['sandbox', '--port', String(port), '--env-out', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([`gen-card-api sandbox: --env-out: cannot write ${file} (ENOENT)`]);
    expect(await listening(port)).toBe(false);
  });

  it('a directory: exit 2 naming it, the directory untouched', async () => {
    const port = await freePort();
    const dir = path.join(tmp.dir, 'a-dir');
    mkdirSync(dir, { recursive: true });
    const run = await exitOf(GEN, ['sandbox', '--port', String(port), '--env-out', dir]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([`gen-card-api sandbox: --env-out: cannot write ${dir} (it is a directory)`]);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(await listening(port)).toBe(false);
  });

  it('a FIFO (any file that is not a regular one): exit 2, never replaced by the token file', async () => {
    const port = await freePort();
    const fifo = path.join(tmp.dir, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    const run = await exitOf(SANDBOX_BIN, ['--port', String(port), '--env-out', fifo]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([`card-api-sandbox: --env-out: cannot write ${fifo} (it is not a regular file)`]);
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(await listening(port)).toBe(false);
  });
});

describe('gen-card-api sandbox: a port in use', () => {
  it('exit 2 with one line: the port, and the fix', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const run = await exitOf(GEN, ['sandbox', '--port', String(port)]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(lines(run.stderr)).toEqual([`gen-card-api sandbox: port ${port} on 127.0.0.1 is already in use (another sandbox?): pick another with --port, or --port 0 for any free port`]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('gen-card-api listen --start: fails whole', () => {
  it('an --env-out it cannot write: exit 2 before starting anything, no secret printed', async () => {
    const port = await freePort();
    const file = path.join(tmp.dir, 'no-such-dir', 'listen.env');
    const run = await exitOf(GEN, ['listen', '--start', '--sandbox-port', String(port), '--forward-to', 'http://127.0.0.1:9/hooks', '--env-out', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual([`gen-card-api listen: --env-out: cannot write ${file} (ENOENT)`, '  give a file in a folder you can write to']);
    expect(run.stderr).not.toMatch(/whsec_|_sk_/);
    expect(await listening(port)).toBe(false);
  });

  it('a sandbox port in use: exit 2 with the port and the fix', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as { port: number };
    try {
      const run = await exitOf(GEN, ['listen', '--start', '--sandbox-port', String(port), '--forward-to', 'http://127.0.0.1:9/hooks']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(lines(run.stderr)).toEqual([`gen-card-api listen: --start: port ${port} on 127.0.0.1 is already in use (another sandbox?)`, '  pick another with --sandbox-port, or --sandbox-port 0 for any free port']);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

/**
 * A shell starts the command in the background and exits as soon as the command has begun (its `--env-out` partial
 * file exists, which it writes after reading its parent and before it listens): the command is orphaned while it
 * starts. It must notice, stop by itself and free its port.
 */
async function orphanedDuringStartup(name: string, command: string[], port: number): Promise<{ pid: number; log: string }> {
  const dir = path.join(tmp.dir, name);
  mkdirSync(dir, { recursive: true });
  const quoted = command.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const script = [
    `${quoted} --env-out started.env >out.log 2>err.log &`,
    'pid=$!',
    'echo $pid',
    // The partial file is .started.env.<pid>.tmp; bounded (5 min, as WAIT_MS) only so that a broken command cannot hang the shell.
    'for i in $(seq 3000); do [ -e ".started.env.$pid.tmp" ] || [ -e started.env ] && break; sleep 0.1; done',
  ].join('\n');
  const shell = spawn('bash', ['-c', script], { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  shell.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const [code] = (await once(shell, 'exit')) as [number | null];
  expect(code).toBe(0);
  const pid = Number(stdout.trim());
  expect(pid).toBeGreaterThan(0);
  started.add(pid);
  const gone = await eventually(() => !alive(pid));
  const log = existsSync(path.join(dir, 'err.log')) ? readFileSync(path.join(dir, 'err.log'), 'utf8') : '';
  expect(gone, `${name} still running minutes after its parent exited:\n${log}`).toBe(true);
  expect(await eventually(async () => !(await listening(port))), `port ${port} still held`).toBe(true);
  return { pid, log };
}

describe('never outliving the parent, even one that exits during startup', () => {
  it('gen-card-api sandbox', async () => {
    const port = await freePort();
    const { log } = await orphanedDuringStartup('gen-sandbox', [process.execPath, GEN, 'sandbox', '--port', String(port)], port);
    expect(log).toContain('parent exited, closing');
  });

  it('card-api-sandbox (the sandbox package bin)', async () => {
    const port = await freePort();
    const { log } = await orphanedDuringStartup('sandbox-bin', [process.execPath, SANDBOX_BIN, '--port', String(port)], port);
    expect(log).toContain('parent exited, closing');
  });

  it('gen-card-api listen --start', async () => {
    const port = await freePort();
    const { log } = await orphanedDuringStartup('listen', [process.execPath, GEN, 'listen', '--start', '--sandbox-port', String(port), '--forward-to', 'http://127.0.0.1:9/hooks'], port);
    expect(log).toContain('parent exited, stopping');
  });
});

describe('ready means it can be stopped', () => {
  it('a signal sent the moment the token is read closes the sandbox cleanly (exit 0)', async () => {
    // What a script does: wait for the token, then stop it. Were the handlers installed after the token was printed,
    // the signal could meet the default action and kill the process on the spot (it did, about one run in two).
    const port = await freePort();
    const child = spawn(process.execPath, [GEN, 'sandbox', '--port', String(port)], { cwd: tmp.dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) started.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (/^CARD_API_TOKEN=\S+$/m.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(stderr).toContain('SIGTERM, closing');
    expect(await listening(port)).toBe(false);
  });
});

describe('one Ctrl-C under npx arrives twice: a second signal while closing does not cut the close short', () => {
  it('gen-card-api sandbox finishes the request in flight and exits 0', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [GEN, 'sandbox', '--port', String(port)], { cwd: tmp.dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) started.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    expect(await eventually(() => /^CARD_API_TOKEN=\S+$/m.test(stdout)), stderr).toBe(true);
    const token = /^CARD_API_TOKEN=(\S+)$/m.exec(stdout)![1]!;

    // A request the server has begun (it answered 100 Continue to its headers) and whose body has not come yet: the
    // close waits for it, so the sandbox is still closing when the second signal arrives.
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    const body = '{}';
    socket.write(`POST /api/v1/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    expect(await eventually(() => answer.startsWith('HTTP/1.1 100 Continue')), answer).toBe(true);

    child.kill('SIGINT');
    expect(await eventually(() => stderr.includes('SIGINT, closing')), stderr).toBe(true);
    child.kill('SIGTERM');
    socket.end(body);
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(answer).toMatch(/HTTP\/1\.1 422 /);
    expect(await listening(port)).toBe(false);
  });

  it('gen-card-api listen disables its endpoint, then exits 0', async () => {
    const sandbox = await startSandbox({ port: 0, sandboxOptions: { onError: () => {} } });
    // Between listen and the sandbox: holds listen's disable call (DELETE /sandbox/webhook-endpoints/{id}) until
    // released, so that listen is still stopping when the second signal arrives.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const proxy = createHttpServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        if (req.method === 'DELETE' && (req.url ?? '').startsWith('/sandbox/webhook-endpoints/')) {
          held = true;
          await released;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding', 'expect'].includes(name))) as Record<string, string>;
        const upstream = await fetch(`${sandbox.origin}${req.url}`, { method: req.method, headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
        const answer = Buffer.from(await upstream.arrayBuffer());
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(answer);
      })().catch(() => res.writeHead(502).end());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const base = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/api/v1`;
    try {
      const child = spawn(process.execPath, [GEN, 'listen', '--base-url', base, '--forward-to', 'http://127.0.0.1:9/hooks'], { cwd: tmp.dir, env: { ...ENV, CARD_API_TOKEN: sandbox.token! }, stdio: ['ignore', 'pipe', 'pipe'] });
      if (child.pid !== undefined) started.add(child.pid);
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = once(child, 'exit');
      expect(await eventually(() => stderr.includes('> Ready!')), stderr).toBe(true);
      child.kill('SIGINT');
      expect(await eventually(() => held), stderr).toBe(true);
      child.kill('SIGTERM');
      release();
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
      expect(stderr).toMatch(/listen: disabled endpoint \d+/);
      const endpoints = (await (await fetch(`${sandbox.origin}/sandbox/webhook-endpoints`, { headers: { authorization: `Bearer ${sandbox.token}` } })).json()) as { data: Array<{ description: string | null; status: string }> };
      expect(endpoints.data.filter((e) => e.description === 'gen-card-api listen').map((e) => e.status)).toEqual(['disabled']);
    } finally {
      release();
      await new Promise((resolve) => proxy.close(resolve));
      await sandbox.close();
    }
  });
});

