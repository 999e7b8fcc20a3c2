/**
 * `gen-card-api verify` against the sandbox: read-only, with writes, with writes and webhooks (and the card
 * secrets key). Against a conforming server every check that can run passes.
 */
import { describe, expect, it } from 'vitest';
import { FIXED_CHECKS } from '../../packages/cli/src/verify/index.js';
import { runScene } from './harness.js';

const ids = (needs: string[]) => FIXED_CHECKS.filter((c) => needs.includes(c.needs)).map((c) => c.id);

describe('verify against the sandbox', () => {
  it('read-only: every read check passes and nothing is written', async () => {
    const { report, failed, skipped, ordersAfter } = await runScene();
    expect(failed).toEqual([]);
    // A fresh workspace has no card or order to fetch by uuid; every other read check passes.
    for (const id of ids(['read'])) expect(report.checks.find((c) => c.id === id)?.status, id).toBe(id.startsWith('read.') ? 'skipped' : 'pass');
    expect(skipped).toEqual(expect.arrayContaining([...ids(['writes', 'webhooks', 'writes+webhooks', 'private-key']), 'read.card-matches-row', 'read.order-matches-row']));
    // Read-only: no order exists afterwards.
    expect(ordersAfter).toBe(0);
    // Every list of the spec without path parameters was walked.
    expect(report.checks.filter((c) => c.id.startsWith('list.') && c.status === 'pass').map((c) => c.id)).toEqual(['list.listCards', 'list.listOrders', 'list.listLedgerEntries']);
  });

  it('with --allow-writes: the flow passes check by check, each write names its idempotency key', async () => {
    const { report, failed, skipped } = await runScene({ writes: true });
    expect(failed).toEqual([]);
    for (const id of ids(['read', 'writes'])) expect(skipped, id).not.toContain(id);
    const issue = report.checks.find((c) => c.id === 'write.issue')!;
    expect(issue.evidence.some((e) => /^X-Idempotency-Key verify-[0-9a-f-]+-issue$/.test(e))).toBe(true);
    expect(issue.evidence.some((e) => /^req_/.test(e))).toBe(true);
  });

  it('with writes, webhooks, the private key and the extra tokens: every check passes, none is skipped', async () => {
    const { report, failed, skipped } = await runScene({ writes: true, webhooks: true, privateKey: true, tokens: true });
    expect(failed).toEqual([]);
    expect(skipped).toEqual([]);
    expect(report.summary.passed).toBe(report.checks.length);
    const text = JSON.stringify(report);
    expect(text).not.toMatch(/"pan"|"cvv"|expiry_month/);
    expect(report.checks.find((c) => c.id === 'webhook.redelivery-bytes')!.observations).toBeGreaterThan(0);
  });

  // Waits out one minute of the token's ceiling: a longer timeout than the other scenes.
  it('a token limited to 120 requests a minute: the run completes, the deterministic input probes run (waiting out the minute), the random examples are cut and say why', async () => {
    const { report, failed } = await runScene({ writes: true, tokens: true, rateLimits: { tokenPerMinute: 120, ipPerMinute: 600 } });
    expect(report.stopped).toBeUndefined();
    expect(failed).toEqual([]);
    for (const id of ['input.invalid', 'input.unknown-query', 'input.optional-omitted', 'input.defaults']) expect(report.checks.find((c) => c.id === id)?.status).toBe('pass');
    const cut = report.checks.filter((c) => c.id.startsWith('input.') && c.status === 'skipped');
    for (const c of cut) expect(c.details[0]).toMatch(/cut short|needs --allow-writes/);
  });
});
