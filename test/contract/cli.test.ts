/**
 * The bar: `gen-card-api sandbox --port <p>` as a child process prints exactly the two assignments on stdout,
 * answers `GET /ping` with the printed token, issues a card through the generated client that reaches
 * `completed` and shows up in `GET /cards`, and exits cleanly on SIGTERM.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spec.js';
import { clientFor, issueBody, Recorder } from './support.js';

const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
let child: ChildProcessWithoutNullStreams | undefined;

afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves with stdout once it holds two complete lines; rejects if the process exits first. */
function firstTwoLines(proc: ChildProcessWithoutNullStreams, stderr: () => string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString('utf8');
      const lines = out.split('\n');
      if (lines.length >= 3) {
        proc.stdout.off('data', onData);
        resolve(lines.slice(0, 2));
      }
    };
    proc.stdout.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`gen-card-api sandbox exited (${code}) before printing: ${stderr()}`)));
  });
}

describe('gen-card-api sandbox', () => {
  it('runs the sandbox a client can use, then stops on SIGTERM', async () => {
    const port = await freePort();
    const proc = spawn(process.execPath, [BIN, 'sandbox', '--port', String(port), '--latency', '5'], { cwd: ROOT, stdio: 'pipe' });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const lines = await firstTwoLines(proc, () => stderr);

    expect(lines[0]).toBe(`CARD_API_BASE_URL=http://127.0.0.1:${port}/api/v1`);
    expect(lines[1]).toMatch(/^CARD_API_TOKEN=[a-z0-9]{1,16}_sk_[A-Za-z0-9]{16,128}$/);
    const baseUrl = lines[0]!.slice('CARD_API_BASE_URL='.length);
    const token = lines[1]!.slice('CARD_API_TOKEN='.length);

    const ping = await fetch(`${baseUrl}/ping`, { headers: { authorization: `Bearer ${token}` } });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toMatchObject({ data: { workspace_slug: 'default' } });

    const recorder = new Recorder(baseUrl);
    const client = clientFor(baseUrl, token, { fetch: recorder.fetch });
    const order = await client.cards.create(issueBody());
    const done = await client.orders.wait(order.uuid, { intervalMs: 20, timeoutMs: 15_000 });
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
});
