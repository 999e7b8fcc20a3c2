/**
 * The bar: `gen-card-api sandbox --port <p>` as a child process prints exactly the two assignments on stdout,
 * answers `GET /ping` with the printed token, issues a card through the generated client that reaches
 * `completed` and shows up in `GET /cards`, and exits cleanly on SIGTERM.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { constructEvent } from '@card-api/webhooks';
import { decryptCardSecrets } from '@card-api/webhooks/secrets';
import { freePort } from '../helpers/processes.js';
import { ROOT, tempDir } from '../helpers/spec.js';
import { clientFor, issueBody, Recorder, validator } from './support.js';
import { WAIT_MS } from '../helpers/limits.js';

const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
let child: ChildProcessWithoutNullStreams | undefined;

afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Resolves with stdout once it holds `count` complete lines; rejects if the process exits first. */
function firstLines(proc: ChildProcessWithoutNullStreams, stderr: () => string, count = 2): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      const lines = out.split('\n');
      if (lines.length > count) {
        proc.stdout.off('data', onData);
        resolve(lines.slice(0, count));
      }
    };
    proc.stdout.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`gen-card-api sandbox exited (${code}) before printing: ${stderr()}`)));
  });
}

describe('gen-card-api sandbox', () => {
  it('runs the sandbox a client can use, then stops on SIGTERM', async () => {
    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'sandbox', '--port', String(port), '--latency', '5', '--rate-limit', '0', '--ip-rate-limit', '0'], { cwd: ROOT, stdio: 'pipe' });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const lines = await firstLines(proc, () => stderr);

    expect(lines[0]).toBe(`CARD_API_BASE_URL=http://127.0.0.1:${port}/api/v1`);
    expect(lines[1]).toMatch(/^CARD_API_TOKEN=[a-z0-9]{1,16}_sk_[A-Za-z0-9]{16,128}$/);
    const baseUrl = lines[0]!.slice('CARD_API_BASE_URL='.length);
    const token = lines[1]!.slice('CARD_API_TOKEN='.length);

    const ping = await fetch(`${baseUrl}/ping`, { headers: { authorization: `Bearer ${token}` } });
    expect(ping.status).toBe(200);
    // --rate-limit 0 --ip-rate-limit 0: no ceiling at all, so no rate-limit header promises one (D5).
    expect(ping.headers.get('x-ratelimit-limit')).toBeNull();
    expect(ping.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(await ping.json()).toMatchObject({ data: { workspace_slug: 'default' } });

    const recorder = new Recorder(baseUrl);
    const client = clientFor(baseUrl, token, { fetch: recorder.fetch });
    const order = await client.cards.create(issueBody());
    const done = await client.orders.wait(order.uuid, { intervalMs: 20, timeoutMs: WAIT_MS });
    expect(done.status).toBe('completed');
    const cards = await client.cards.list();
    expect(cards.data.map((c) => c.uuid)).toContain(done.related_card_uuid);
    expect(recorder.problems()).toEqual([]);

    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // stdout carried the two assignments and nothing else; the rest went to stderr.
    expect(stdout).toBe(`${lines[0]}\n${lines[1]}\n`);
    expect(stderr).toContain('SIGTERM, closing');
  });

  it('--webhook-url registers an endpoint for every event and prints its secret; --rsa-public-key turns card.issued.secrets on', async () => {
    const received: Array<{ body: string; signature: string }> = [];
    const receiver = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(req.headers['x-service-signature'] ?? '') });
        res.writeHead(204).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
    const { dir, cleanup } = tempDir('cli-sandbox');
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = path.join(dir, 'card-secrets.pub.pem');
    await writeFile(keyFile, publicKey.export({ type: 'spki', format: 'pem' }));

    try {
      const port = await freePort();
      const proc = spawn(process.execPath, [BIN, 'sandbox', '--port', String(port), '--latency', '5', '--webhook-url', hookUrl, '--rsa-public-key', keyFile], { cwd: ROOT, stdio: 'pipe' });
      child = proc;
      let stderr = '';
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const lines = await firstLines(proc, () => stderr, 3);
      expect(lines[2]).toMatch(/^CARD_API_WEBHOOK_SECRET=whsec_\S+$/);
      const secret = lines[2]!.slice('CARD_API_WEBHOOK_SECRET='.length);
      const baseUrl = lines[0]!.slice('CARD_API_BASE_URL='.length);
      const client = clientFor(baseUrl, lines[1]!.slice('CARD_API_TOKEN='.length));

      const order = await client.cards.create(issueBody());
      const done = await client.orders.wait(order.uuid, { intervalMs: 20, timeoutMs: WAIT_MS });
      expect(done.status).toBe('completed');
      await expect.poll(() => received.map((r) => (JSON.parse(r.body) as { event: string }).event).sort()).toEqual(['card.issued.secrets', 'order.completed']);

      for (const delivery of received) {
        const event = constructEvent(delivery.body, delivery.signature, secret);
        expect(validator.webhookErrors(JSON.parse(delivery.body))).toEqual([]);
        if (event.event === 'card.issued.secrets') {
          const secrets = await decryptCardSecrets(event.data.secrets_jwe, privateKey);
          const card = await client.cards.get(event.data.card_uuid);
          expect(secrets.pan.slice(-4)).toBe(card.pan_last4);
          expect(JSON.stringify(card)).not.toContain(secrets.pan);
        }
      }
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      expect(((await exited) as [number | null])[0]).toBe(0);
    } finally {
      receiver.close();
      cleanup();
    }
  });

  it('refuses a key it cannot use with a clear message and exit 2', async () => {
    const port = await freePort();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const proc = spawn(process.execPath, [BIN, 'sandbox', '--port', String(port), '--rsa-public-key', pem], { cwd: ROOT, stdio: 'pipe' });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(proc, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/private key/i);
    expect(stderr).not.toContain('PRIVATE KEY-----');
  });

  /** Runs the command to its exit; every case here must end on its own (a hang fails by the test's timeout). */
  async function exitOf(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const proc = spawn(process.execPath, [BIN, 'sandbox', ...args], { cwd: ROOT, stdio: 'pipe' });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(proc, 'exit')) as [number | null];
    return { code, stdout, stderr };
  }

  // An --env-out it cannot use, a port in use and a parent that exits: test/cli/fail-fast.test.ts.

  it('a usage error: exit 2, the error and one hint line', async () => {
    const result = await exitOf(['--port', 'many']);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual(['gen-card-api sandbox: --port must be an integer from 0 to 65535, got "many"', "run 'gen-card-api sandbox --help' for usage"]);
  });

  it('a --db file SQLite cannot open: exit 2 with the path and the reason, nothing listening', async () => {
    const missing = path.join(ROOT, 'no-such-folder-for-the-sandbox', 'state.db');
    const { code, stdout, stderr } = await exitOf(['--port', '0', '--db', missing]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`--db ${missing}: SQLite cannot use it (unable to open database file`);
  });
});
