/**
 * Each fault injected into the sandbox (a tampering proxy on loopback in front of the API or of the webhook
 * receiver) is reported by the check that names it, and by no other check. Every scene runs the whole of
 * verify (reads, the write flow, the webhook receiver), so "no other check" covers all of them.
 */
import { describe, expect, it } from 'vitest';
import { runScene as run, type SceneOptions } from './harness.js';

const runScene = (options: SceneOptions) => run({ writes: true, webhooks: true, ...options });

describe('verify finds each injected fault with its named check', () => {
  it('a dropped response field: http.body-schema', async () => {
    const { failed, report } = await runScene({ restFault: 'drop-field' });
    expect(failed).toEqual(['http.body-schema']);
    expect(report.checks.find((c) => c.id === 'http.body-schema')!.details.join('\n')).toMatch(/GET \/ping 200: .*workspace_name/);
  });

  it('an undeclared status: http.status-declared', async () => {
    const { failed, report } = await runScene({ restFault: 'undeclared-status' });
    expect(failed).toEqual(['http.status-declared']);
    expect(report.checks.find((c) => c.id === 'http.status-declared')!.details.join('\n')).toMatch(/GET \/wallet 203: getWallet declares 200/);
  });

  it('a missing X-Request-Id: http.request-id', async () => {
    const { failed, report } = await runScene({ restFault: 'missing-request-id' });
    expect(failed).toEqual(['http.request-id']);
    expect(report.checks.find((c) => c.id === 'http.request-id')!.details.join('\n')).toMatch(/GET \/card-products 200: no X-Request-Id header/);
  });

  it('a second order for a reused key: write.idempotency-replay', async () => {
    const { failed, report } = await runScene({ writes: true, restFault: 'reused-key-new-order' });
    expect(failed).toEqual(['write.idempotency-replay']);
    const check = report.checks.find((c) => c.id === 'write.idempotency-replay')!;
    expect(check.evidence.some((e) => /^X-Idempotency-Key verify-.*-issue$/.test(e))).toBe(true);
  });

  it('a pagination link that stops early: list.listOrders', async () => {
    const { failed, report } = await runScene({ restFault: 'broken-next-link' });
    expect(failed).toEqual(['list.listOrders']);
    const details = report.checks.find((c) => c.id === 'list.listOrders')!.details.join('\n');
    expect(details).toMatch(/links\.next is null on page 1 of \d+/);
    expect(details).toMatch(/the pages hold 2 items, meta\.total says \d+/);
  });

  it('a delivery with a bad signature: webhook.signature', async () => {
    const { failed, report } = await runScene({ writes: true, webhooks: true, hookFault: 'bad-signature' });
    expect(failed).toEqual(['webhook.signature']);
    expect(report.checks.find((c) => c.id === 'webhook.signature')!.details.join('\n')).toMatch(/no_matching_signature/);
  });

  it('a redelivery with different bytes: webhook.redelivery-bytes', async () => {
    const { failed } = await runScene({ writes: true, webhooks: true, hookFault: 'redelivery-different-bytes' });
    expect(failed).toEqual(['webhook.redelivery-bytes']);
  });

  it('card.closed before card.close_initiated: webhook.close-sequence', async () => {
    const { failed, report } = await runScene({ writes: true, webhooks: true, hookFault: 'closed-before-initiated' });
    expect(failed).toEqual(['webhook.close-sequence']);
    expect(report.checks.find((c) => c.id === 'webhook.close-sequence')!.details.join('\n')).toMatch(/card\.closed\) arrived before .*card\.close_initiated/);
  });
});
