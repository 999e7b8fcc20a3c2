/**
 * The probe on its own, against a scripted server on loopback: a 429 is checked like any answer, waited out
 * (Retry-After) and the request repeated; an answer that breaks several rules fails each rule's own check.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SPEC } from '../../generators/index.js';
import fc from 'fast-check';
import { CheckRecorder, FIXED_CHECKS, Probe, VerifySpec } from '../../packages/cli/src/verify/index.js';
import { runProperty } from '../../packages/cli/src/verify/inputs.js';
import { close } from './harness.js';

type Answer = { status: number; headers: Record<string, string>; body: unknown };

let server: Server | undefined;
afterEach(async () => {
  if (server) await close(server);
  server = undefined;
});

/** A server that gives the scripted answers in turn (the last one forever). */
async function scripted(answers: Answer[]): Promise<string> {
  let i = 0;
  server = createServer((_req, res) => {
    const a = answers[Math.min(i++, answers.length - 1)]!;
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers }).end(JSON.stringify(a.body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}/api/v1`;
}

const statusOf = (checks: CheckRecorder, id: string) => checks.results().find((r) => r.id === id)!;

describe('verify probe', () => {
  it('waits out a 429 and repeats the request; the 429 itself is checked (D5 headers, D2 body)', async () => {
    const baseUrl = await scripted([
      {
        status: 429,
        headers: { 'x-request-id': 'req_1', 'retry-after': '1', 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1900000000' },
        body: { error: { code: 'api.rate_limited', message: 'Too many requests.', request_id: 'req_1' } },
      },
      {
        status: 200,
        headers: { 'x-request-id': 'req_2', 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' },
        body: { data: { workspace_slug: 'w', workspace_name: 'W', abilities: ['cards.read'] } },
      },
    ]);
    const spec = await VerifySpec.load(DEFAULT_SPEC);
    const checks = new CheckRecorder(FIXED_CHECKS);
    const probe = new Probe({ baseUrl, token: 'x_sk_y', spec, checks });
    const answer = await probe.call('ping');
    expect(answer.status).toBe(200);
    expect(probe.exchanges.map((x) => x.status)).toEqual([429, 200]);
    for (const id of ['http.status-declared', 'http.body-schema', 'http.request-id', 'http.error-envelope', 'http.rate-limit-headers']) {
      expect(statusOf(checks, id).status, id).toBe('pass');
    }
    expect(statusOf(checks, 'http.rate-limit-headers').evidence).toEqual(['req_1', 'req_2']);
  });

  it('a property past its time limit returns only once its request (asleep on a Retry-After) has its answer: never two requests in flight', async () => {
    const baseUrl = await scripted([
      {
        status: 429,
        headers: { 'x-request-id': 'req_5', 'retry-after': '2', 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1900000000' },
        body: { error: { code: 'api.rate_limited', message: 'Too many requests.', request_id: 'req_5' } },
      },
      {
        status: 200,
        headers: { 'x-request-id': 'req_6', 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '1' },
        body: { data: { workspace_slug: 'w', workspace_name: 'W', abilities: ['cards.read'] } },
      },
    ]);
    const spec = await VerifySpec.load(DEFAULT_SPEC);
    const checks = new CheckRecorder(FIXED_CHECKS);
    const probe = new Probe({ baseUrl, token: 'x_sk_y', spec, checks });
    const ctx = { spec, probe, checks, perPage: 5, maxPages: 1, maxItems: 5, log: () => undefined, signal: new AbortController().signal };
    // fast-check gives up on the property after 500 ms while its request waits out a 2 s Retry-After; on a machine
    // slow enough that it gives up before the first request, nothing is sent: either way, nothing is left half done.
    const result = await runProperty(ctx, 'input.unknown-query', 'ping', fc.constant(null), () => ({ method: 'GET', path: '/ping' }), () => [], { seed: 1, numRuns: 5, timeMs: 500, replaySeed: 1 });
    const statuses = probe.exchanges.map((x) => x.status);
    expect([[], [429, 200]]).toContainEqual(statuses);
    expect(result).toEqual({ failed: false, runs: statuses.length / 2 });
    expect(probe.rateLimitWait.waitedMs).toBe(statuses.length === 0 ? 0 : 2000);
  });

  it('an error body without the envelope and missing rate-limit headers each fail their own check, and only those', async () => {
    const baseUrl = await scripted([{ status: 401, headers: { 'x-request-id': 'req_3' }, body: { message: 'no' } }, { status: 200, headers: { 'x-request-id': 'req_4' }, body: { data: { workspace_slug: 'w', workspace_name: 'W', abilities: [] } } }]);
    const spec = await VerifySpec.load(DEFAULT_SPEC);
    const checks = new CheckRecorder(FIXED_CHECKS);
    const probe = new Probe({ baseUrl, token: 'x_sk_y', spec, checks });
    await probe.call('ping', { auth: 'none' });
    await probe.call('ping');
    expect(statusOf(checks, 'http.error-envelope').details).toEqual(['GET /ping 401: the body has no error object']);
    expect(statusOf(checks, 'http.body-schema').status).toBe('fail'); // the 401 body is not the Error schema
    expect(statusOf(checks, 'http.rate-limit-headers').details).toEqual(['GET /ping 200: no X-RateLimit-Limit header', 'GET /ping 200: no X-RateLimit-Remaining header']);
    expect(statusOf(checks, 'http.request-id').status).toBe('pass');
    expect(statusOf(checks, 'http.status-declared').status).toBe('pass');
  });
});
