/**
 * A service shaped like the contract where it leaves things open passes verify (issue 24): order reads and 202s
 * without `related_card_uuid` (the contract's order row has none, D29), and `card.issued.secrets` delivered as the
 * contract's example shows it, without `event_id` and `occurred_at` (D13). verify then takes the new card from
 * `order.completed` and identifies the secrets event by its card, as the webhook library deduplicates it.
 */
import { describe, expect, it } from 'vitest';
import { runScene } from './harness.js';

describe('verify accepts the contract\'s own shapes', () => {
  it('orders without related_card_uuid and card.issued.secrets without event_id or occurred_at: every check passes', async () => {
    const { failed, report } = await runScene({ writes: true, webhooks: true, privateKey: true, restFault: 'seed-orders', cardSecretsEnvelope: 'example' });
    expect(failed).toEqual([]);
    const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
    for (const id of ['write.issue-completes', 'webhook.schema', 'webhook.card-secrets', 'webhook.order-completed', 'webhook.close-sequence']) expect(status(id), id).toBe('pass');
    // The secrets event was judged without an event_id: named by its card.
    const secrets = report.checks.find((c) => c.id === 'webhook.card-secrets')!;
    expect(secrets.evidence.join('\n')).toMatch(/^card\.issued\.secrets card\.issued\.secrets:[0-9a-f-]{36}$/m);
  });
});
