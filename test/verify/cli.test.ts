/**
 * The `verify` command as a process: exit codes (0 all pass, 1 a check failed, 2 usage error), the three
 * formats, and the token never printed. The sandbox runs in the test process on loopback.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSandbox, type RunningSandbox } from '@card-api/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spec.js';
import { close, closeDriver, controlTokens, hookProxy } from './harness.js';

const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `onStderr` sees stderr as it arrives. */
function cli(args: string[], env: Record<string, string> = {}, onStderr?: (text: string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CARD_API_')));
    const child = spawn(process.execPath, [BIN, 'verify', ...args], { cwd: ROOT, env: { ...base, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let running: RunningSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  running = await startSandbox({ port: 0, sandboxOptions: { closeDelayMs: null, webhookRetryScheduleMs: [200], rateLimits: { tokenPerMinute: 100_000, ipPerMinute: 100_000 } } });
  env = { CARD_API_BASE_URL: running.baseUrl, CARD_API_TOKEN: running.token! };
});
afterAll(async () => {
  await running.close();
});

describe('gen-card-api verify (process)', () => {
  it.each([
    ['no token', ['--base-url', 'http://127.0.0.1:9/api/v1'], /--token \(or CARD_API_TOKEN\) is required/],
    ['an unknown option', ['--no-such-option'], /unknown option/],
    ['an unknown format', ['--format', 'yaml'], /--format/],
    ['a listener without its secret', ['--webhook-listen', '127.0.0.1:0'], /--webhook-secret/],
    ['a seed that is not a 32-bit integer', ['--seed', '1e9'], /--seed must be a 32-bit integer/],
  ])('exits 2 on a usage error: %s', async (_name, args, message) => {
    const run = await cli(args as string[], args.includes('--base-url') ? {} : env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message as RegExp);
  });

  it('read-only, JSON: exit 0, a report per check, the token never printed', async () => {
    const run = await cli(['--format', 'json', '--max-examples', '5'], env);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { summary: { failed: number; passed: number }; checks: Array<{ id: string; status: string }> };
    expect(report.summary.failed).toBe(0);
    expect(report.checks.find((c) => c.id === 'auth.no-token')?.status).toBe('pass');
    expect(run.stdout + run.stderr).not.toContain(running.token!);
  });

  it('JUnit: one testcase per check', async () => {
    const run = await cli(['--format', 'junit', '--max-examples', '5'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^<\?xml/);
    expect(run.stdout).toMatch(/<testsuites name="gen-card-api verify" tests="\d+" failures="0"/);
    expect(run.stdout).toContain('<testcase classname="verify.auth" name="auth.bad-token">');
    expect(run.stdout).not.toContain(running.token!);
  });

  it('exits 1 when a check fails, and says which', async () => {
    // A server that answers every request 200 with an empty object: most checks fail.
    const liar: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
    try {
      const run = await cli(['--base-url', `http://127.0.0.1:${(liar.address() as { port: number }).port}/api/v1`, '--max-examples', '3', '--input-budget', '10', '--seed', '11'], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^FAIL {2}auth\.no-token/m);
      expect(run.stdout).toMatch(/^FAIL {2}http\.request-id/m);
      expect(run.stdout).not.toContain(running.token!);
      // A generated request's failure is a curl line with the seed that replays it; the token is a variable.
      expect(run.stdout).toMatch(/replay: curl -sS -X GET '[^']+' -H "Authorization: Bearer \$CARD_API_TOKEN".*\(gen-card-api verify --seed 11\)/);
    } finally {
      await close(liar);
    }
  });

  it('--allow-writes with a webhook listener, the private key and the extra tokens: exit 0, every check passed', async () => {
    const tokens = await controlTokens(running.origin, running.token!);
    const workspaceId = running.sandbox.auth.resolveToken(running.token!)!.workspace.id;
    const dir = mkdtempSync(path.join(tmpdir(), 'verify-'));
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    running.sandbox.webhooks.setPublicKey(workspaceId, publicKey.export({ type: 'spki', format: 'pem' }) as string);
    writeFileSync(path.join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    // The endpoint points at a pass-through proxy; the CLI's listener port (0 = any) is read from its stderr.
    let port = 0;
    const proxy = await hookProxy(() => port, () => '', undefined);
    const endpoint = running.sandbox.webhooks.registerEndpoint(workspaceId, { url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}/hooks`, events: '*' });
    const stop = closeDriver(running, workspaceId, true);
    try {
      const run = await cli(
        ['--allow-writes', '--webhook-listen', '127.0.0.1:0', '--private-key', path.join(dir, 'key.pem'), '--poll-interval', '50', '--format', 'json', '--max-examples', '5'],
        { ...env, CARD_API_WEBHOOK_SECRET: endpoint.secret, CARD_API_READ_ONLY_TOKEN: tokens.readOnly, CARD_API_OTHER_WORKSPACE_TOKEN: tokens.other },
        (text) => {
          const m = /webhook receiver on 127\.0\.0\.1:(\d+)/.exec(text);
          if (m) port = Number(m[1]);
        },
      );
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as { summary: { total: number; passed: number; skipped: number } };
      expect(report.summary.passed).toBe(report.summary.total);
      expect(run.stdout + run.stderr).not.toContain(running.token!);
      expect(run.stdout + run.stderr).not.toContain(endpoint.secret);
      for (const token of [tokens.readOnly, tokens.other]) expect(run.stdout + run.stderr).not.toContain(token);
    } finally {
      stop();
      await close(proxy);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
