/**
 * `trigger` and `listen` as processes, for what only a process shows: exit codes (0 done, 2 usage or
 * could not run; never 1), what goes to stdout and stderr, and the token never printed. The sandbox and a listen
 * session run in the test process on loopback; everything else is tested in-process (listen.test.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { startSandbox, type RunningSandbox } from '@card-api/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../packages/cli/src/sandbox-tools/api.js';
import { loadDocs } from '../../packages/cli/src/sandbox-tools/docs.js';
import { startListen, type ListenSession } from '../../packages/cli/src/sandbox-tools/listen.js';
import { runTrigger } from '../../packages/cli/src/sandbox-tools/trigger.js';
import { ROOT, tempDir } from '../helpers/spec.js';
import { App } from './app.js';
import { runCli as cli } from '../helpers/processes.js';

const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');

let sandbox: RunningSandbox;
let app: App;
let session: ListenSession;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, sandboxOptions: { onError: () => {} } });
  const docs = await loadDocs();
  app = await App.start();
  session = await startListen({ target: resolveTarget({ baseUrl: sandbox.baseUrl, token: sandbox.token! }, docs), docs, forwardTo: app.url, output: { out: () => {}, log: () => {} } });
  app.secret = session.secret;
});

afterAll(async () => {
  await session?.stop();
  await app?.close();
  await sandbox?.close();
});

describe('gen-card-api trigger (process)', () => {
  it('exits 0, prints each call and the event id on stdout, and never the token', async () => {
    const run = await cli(['trigger', 'card.transaction.declined'], { CARD_API_BASE_URL: sandbox.baseUrl, CARD_API_TOKEN: sandbox.token! });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^trigger card\.transaction\.declined: /);
    expect(run.stdout).toMatch(/POST \/api\/v1\/cards → 202 uuid=\S+ type=issue_card status=pending/);
    expect(run.stdout).toMatch(/POST \/sandbox\/cards\/[0-9a-f-]{36}\/declines → 201 uuid=\S+ .*type=decline .*decline_reason=insufficient_funds/);
    const eventId = Number(/card\.transaction\.declined event (\d+): delivery \d+ to endpoint \d+/.exec(run.stdout)?.[1]);
    expect((await app.event(eventId)).event).toBe('card.transaction.declined');
    expect(run.stdout + run.stderr).not.toContain(sandbox.token!);
  });

  it('exits 2 with a suggestion for a misspelled event, before reaching any sandbox', async () => {
    const run = await cli(['trigger', 'card.transaction.declinded']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('gen-card-api trigger: unknown event "card.transaction.declinded"\n  did you mean card.transaction.declined?\n');
  });

  it('listen --start: prints the secret, writes --env-out, forwards, and on SIGTERM disables its endpoint and exits 0', async () => {
    const { dir, cleanup } = tempDir('listen-start');
    const envOut = path.join(dir, 'listen.env');
    const other = await App.start();
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CARD_API_')));
    const child = spawn(process.execPath, [BIN, 'listen', '--start', '--sandbox-port', '0', '--forward-to', other.url, '--env-out', envOut], { cwd: ROOT, env: base });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = once(child, 'exit');
    try {
      // "Ready!" comes after the env file is written: waiting for the file alone raced the line (it failed 1 run in 3).
      await expect.poll(() => (existsSync(envOut) && stderr.includes('> Ready!')) || child.exitCode !== null, { interval: 100 }).toBe(true);
      const env = Object.fromEntries(readFileSync(envOut, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(Object.keys(env)).toEqual(['CARD_API_BASE_URL', 'CARD_API_TOKEN', 'CARD_API_WEBHOOK_SECRET']);
      expect(stderr).toContain(`> Ready! Your webhook signing secret is ${env.CARD_API_WEBHOOK_SECRET} (^C to quit)`);
      other.secret = env.CARD_API_WEBHOOK_SECRET!;
      const { eventId } = await runTrigger({ event: 'card.frozen', baseUrl: env.CARD_API_BASE_URL, token: env.CARD_API_TOKEN }, { out: () => {}, log: () => {} });
      expect((await other.event(eventId!)).event).toBe('card.frozen');
      await expect.poll(() => stdout).toMatch(new RegExp(`card\\.frozen \\[${eventId}\\]  card=[0-9a-f-]{36}  → 200 in \\d+ ms`));
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(stderr).toMatch(/listen: SIGTERM, stopping\nlisten: disabled endpoint 1; the next listen reuses it with the same secret/);
      expect(stdout + stderr).not.toContain(env.CARD_API_TOKEN!);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await other.close();
      cleanup();
    }
  });

  it('exits 2 on a usage error (listen without --forward-to), before loading anything', async () => {
    const run = await cli(['listen']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('gen-card-api listen: --forward-to <url> is required: where your app receives webhooks\n  gen-card-api listen --forward-to http://127.0.0.1:3000/webhooks\n');
  });
});
