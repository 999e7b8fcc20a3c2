/**
 * `verify` against a hostile server (issue 22): a body that never ends, one that drips, one that claims 1 GiB, JSON
 * 200,000 levels deep, `Retry-After: 999999`, nothing listening. Each run of the real CLI exits 2, still writes its
 * report naming the cause, never prints the token, and stays bounded in memory (the child's peak RSS, read by
 * /usr/bin/time where it exists). Servers listen on port 0; nothing here asserts on time.
 *
 * Issue 31: a server whose every string (error code, message, request_id, X-Request-Id, field values) holds escape
 * sequences, CR, bidi overrides or arbitrary bytes: the text report holds no raw control character, and no line
 * but its own.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SPEC } from '../../generators/index.js';
import { CheckRecorder, FIXED_CHECKS, formatReport, Probe, runVerify, VerifySpec, WebhookReceiver } from '../../packages/cli/src/verify/index.js';
import { headerHostileText, RAW_TERMINAL_CONTROL, terminalHostileText } from '../helpers/hostile-payloads.js';
import { ROOT, tempDir } from '../helpers/spec.js';

const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const TIME = '/usr/bin/time';
const TOKEN = 'hostile_sk_0123456789abcdef';
const tmp = tempDir('verify-hostile');
const servers: Array<{ server: Server; sockets: Set<Socket> }> = [];
afterAll(async () => {
  for (const { server, sockets } of servers) {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
  tmp.cleanup();
});

/** A server on loopback that answers every request with `handler`; resolves with its API root. */
async function hostile(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1`;
}

/** Writes `chunk` for as long as the client reads. */
function pump(res: ServerResponse, chunk: Buffer): void {
  const write = () => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', write);
  write();
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set of the CLI process in KiB, when /usr/bin/time is there to measure it. */
  maxRssKb: number | null;
}

/** Runs `gen-card-api verify` (under /usr/bin/time when present). */
function verify(args: string[]): Promise<Run> {
  const measured = existsSync(TIME);
  const argv = [BIN, 'verify', '--token', TOKEN, ...args];
  const [cmd, cmdArgs] = measured ? [TIME, ['-f', 'maxrss_kb=%M', process.execPath, ...argv]] : [process.execPath, argv];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, cmdArgs, { cwd: tmp.dir, env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CARD_API_'))) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /maxrss_kb=(\d+)/.exec(stderr);
      resolve({ code, stdout, stderr, maxRssKb: rss ? Number(rss[1]) : null });
    });
  });
}

const report = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { stopped?: { reason: string; message: string }; summary: { failed: number } };

describe('verify against a hostile server (the CLI)', () => {
  it.each([
    [
      'a body that never ends',
      (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"data":"');
        pump(res, Buffer.alloc(64 * 1024, 97));
      },
      [] as string[],
      'too-large',
      /GET \/ping: the body goes past the 8 MiB verify reads \(--max-response-size\)/,
    ],
    [
      'a body that drips one byte at a time',
      (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 200);
        res.on('close', () => clearInterval(timer));
      },
      ['--request-timeout', '1'],
      'timeout',
      /GET \/ping: no complete answer within 1 s \(--request-timeout\)/,
    ],
    [
      'a body that claims 1 GiB',
      (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 ** 30) });
        pump(res, Buffer.alloc(64 * 1024, 32));
      },
      [] as string[],
      'too-large',
      /GET \/ping: the body announces 1024 MiB, more than the 8 MiB verify reads/,
    ],
    [
      'JSON 200,000 levels deep',
      (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_deep' }).end(`${'['.repeat(200_000)}${']'.repeat(200_000)}`),
      [] as string[],
      'too-deep',
      /GET \/ping: the body nests JSON deeper than 64 levels/,
    ],
    [
      'Retry-After: 999999',
      (_req: IncomingMessage, res: ServerResponse) =>
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '999999', 'x-request-id': 'req_429' }).end('{"error":{"code":"api.rate_limited","message":"later","request_id":"req_429"}}'),
      [] as string[],
      'rate-limited',
      /GET \/ping answered 429 with Retry-After 999999 s; verify waits at most 60 s at a time/,
    ],
  ])('%s: exit 2, the JSON report names the cause, memory stays bounded', async (_name, handler, extra, reason, message) => {
    const baseUrl = await hostile(handler);
    const out = path.join(tmp.dir, `${reason}-${Math.random().toString(36).slice(2)}.json`);
    const run = await verify(['--base-url', baseUrl, '--format', 'json', '-o', out, ...extra]);
    expect(run.code, run.stderr).toBe(2);
    const written = report(out);
    expect(written.stopped?.reason).toBe(reason);
    expect(written.stopped?.message).toMatch(message);
    expect(run.stderr).toMatch(new RegExp(`verify: stopped \\(${reason}\\)`));
    expect(run.stdout + run.stderr + readFileSync(out, 'utf8')).not.toContain(TOKEN);
    if (run.maxRssKb !== null) expect(run.maxRssKb).toBeLessThan(700 * 1024);
  });

  it('nothing listening: exit 2 with a JUnit report whose error names the refused connection', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const out = path.join(tmp.dir, 'refused.xml');
    const run = await verify(['--base-url', `http://127.0.0.1:${port}/api/v1`, '--format', 'junit', '-o', out]);
    expect(run.code, run.stderr).toBe(2);
    const xml = readFileSync(out, 'utf8');
    expect(xml).toMatch(/<testsuites name="gen-card-api verify" tests="\d+" failures="0" errors="1"/);
    expect(xml).toMatch(new RegExp(`<testcase classname="verify.run" name="run">\\s*<error type="unreachable" message="cannot reach http://127.0.0.1:${port}: ECONNREFUSED"`));
  });

  it('a spec that cannot be loaded: exit 2 with a text report naming it', async () => {
    const run = await verify(['--base-url', 'http://127.0.0.1:9/api/v1', '--spec', path.join(tmp.dir, 'missing.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^STOPPED \(spec\): the spec cannot be loaded: \S*missing\.yaml #: file not found$/m);
    expect(run.stdout).toMatch(/; stopped \(spec\)$/m);
  });
});

describe('verify against a hostile server (in process)', () => {
  it('stops once the Retry-After waits of the run add up past their cap', async () => {
    let answered = 0;
    const baseUrl = await hostile((_req, res) => {
      answered += 1;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1', 'x-request-id': `req_${answered}` }).end('{"error":{"code":"api.rate_limited","message":"later","request_id":"r"}}');
    });
    const spec = await VerifySpec.load(DEFAULT_SPEC);
    const probe = new Probe({ baseUrl, token: TOKEN, spec, checks: new CheckRecorder(FIXED_CHECKS), maxRateLimitWaitMs: 1500 });
    await expect(probe.call('ping')).rejects.toMatchObject({ reason: 'rate-limited', message: expect.stringMatching(/has waited 1 s on Retry-After in this run and waits at most 1.5 s in all/) });
    expect(answered).toBe(2);
  });

  it('stops at the run deadline and still reports', async () => {
    const baseUrl = await hostile((_req, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30', 'x-request-id': 'req_wait' }).end('{"error":{"code":"api.rate_limited","message":"later","request_id":"req_wait"}}'));
    // Whether the deadline falls while the spec loads or during the 30 s wait, the run ends with it (the test's own
    // 5 s timeout would fail a wait that is not cut).
    const result = await runVerify({ baseUrl, token: TOKEN, spec: DEFAULT_SPEC, deadlineMs: 500 });
    expect(result.stopped).toEqual({ reason: 'deadline', message: 'the run went past its 0.5 s deadline (--deadline)' });
    expect(result.checks.find((c) => c.id === 'auth.no-token')?.details).toEqual(['not reached: the run stopped (deadline)']);
  });

  it('an abort during a Retry-After wait ends the run at once, with the checks made so far', async () => {
    const abort = new AbortController();
    const baseUrl = await hostile((_req, res) => res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30', 'x-request-id': 'req_wait' }).end('{"error":{"code":"api.rate_limited","message":"later","request_id":"req_wait"}}'));
    // The abort is queued once the answer is in hand: the probe checks it and starts its 30 s wait first (the
    // test's own 5 s timeout would fail a wait that is not cut).
    const fetchThenAbort: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = await response.arrayBuffer();
      setTimeout(() => abort.abort(), 0);
      return new Response(body, { status: response.status, headers: response.headers });
    };
    const result = await runVerify({ baseUrl, token: TOKEN, spec: DEFAULT_SPEC, signal: abort.signal, fetch: fetchThenAbort });
    expect(result.stopped).toEqual({ reason: 'aborted', message: 'the run was aborted' });
    expect(result.requests).toBe(1);
    expect(result.checks.find((c) => c.id === 'http.error-envelope')?.status).toBe('pass');
  });

  it('the webhook receiver refuses a delivery that is too large or too deep, and keeps nothing of it', async () => {
    const receiver = new WebhookReceiver({ host: '127.0.0.1', port: 0, secret: 'whsec_test', maxBodyBytes: 4096 });
    const port = await receiver.listen();
    try {
      const post = (body: string) => fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.status);
      expect(await post('x'.repeat(8192))).toBe(413);
      expect(await post(`${'['.repeat(1000)}${']'.repeat(1000)}`)).toBe(400);
      expect(receiver.deliveries.map((d) => [d.verified, d.reason, d.raw.length])).toEqual([
        [false, 'the body is larger than 4096 bytes', 0],
        [false, 'the body nests JSON deeper than 64 levels', 0],
      ]);
    } finally {
      await receiver.close();
    }
  });
});

const RAW_TERMINAL_CONTROL_BUT_LF = new RegExp(RAW_TERMINAL_CONTROL.source.replace('\\u0000-\\u001f', '\\u0000-\\u0009\\u000b-\\u001f'), 'u');

/** The lines the text report writes itself (report.ts): anything else would be a line a server started. */
const REPORT_LINE = /^(?:gen-card-api verify |STOPPED \(|(?:PASS|FAIL|SKIP) {2}|      (?:- |skipped: |evidence: |\.\.\. )|\d+ checks: |$)/;

describe('verify against a server that answers with escape sequences (issue 31)', () => {
  /** Every answer carries the strings of `payload`: in the error envelope or in `data`, and in X-Request-Id. */
  interface Payload {
    status: number;
    text: string;
    requestIdHeader: string;
  }
  let current: Payload = { status: 401, text: '', requestIdHeader: 'r' };
  const body = (p: Payload): string =>
    JSON.stringify(p.status < 300 ? { data: { uuid: p.text, status: p.text, workspace_slug: p.text, items: [p.text] }, meta: { total: p.text }, request_id: p.text } : { error: { code: p.text, message: p.text, request_id: p.text, errors: { [p.text]: [p.text] } } });
  let baseUrl: string;
  beforeAll(async () => {
    baseUrl = await hostile((_req, res) => res.writeHead(current.status, { 'content-type': 'application/json', 'x-request-id': current.requestIdHeader }).end(body(current)));
  });

  it('the issue\'s payload: the real CLI prints it escaped, on the report\'s own lines', async () => {
    current = { status: 401, text: 'req_1\x1b]0;owned\x07\x1b[2J all checks passed\r\x1b[1A', requestIdHeader: 'req_1\x9b2J' };
    const run = await verify(['--base-url', baseUrl]);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(RAW_TERMINAL_CONTROL_BUT_LF);
    expect(run.stderr).not.toMatch(RAW_TERMINAL_CONTROL_BUT_LF);
    expect(run.stdout).toContain('req_1\\x1b]0;owned\\x07\\x1b[2J all checks passed\\r\\x1b[1A');
    expect(run.stdout).toContain('req_1\\x9b2J');
    for (const line of run.stdout.split('\n')) expect(line).toMatch(REPORT_LINE);
  });

  it('arbitrary strings in every field of every answer never reach the text report raw', async () => {
    let reached = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 401, 404, 409, 422, 500), terminalHostileText, headerHostileText, async (status, text, requestIdHeader) => {
        current = { status, text, requestIdHeader };
        const report = await runVerify({ baseUrl, token: TOKEN, spec: DEFAULT_SPEC, requestTimeoutMs: 10_000 });
        const json = formatReport(report, 'json');
        // Not vacuous: the server's strings are in the report (JSON keeps them exactly).
        if (text !== '' && RAW_TERMINAL_CONTROL.test(text) && json.includes(JSON.stringify(text).slice(1, -1))) reached++;
        if (json.includes(JSON.stringify(requestIdHeader.trim()).slice(1, -1))) reached++;
        const rendered = formatReport(report, 'text');
        expect(rendered).not.toMatch(RAW_TERMINAL_CONTROL_BUT_LF);
        for (const line of rendered.split('\n')) expect(line).toMatch(REPORT_LINE);
      }),
      { numRuns: 40 },
    );
    expect(reached).toBeGreaterThan(20);
  });
});

