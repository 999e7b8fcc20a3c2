/**
 * A subset of the mutation catalogue (test/verify/mutants.ts; scripts/verify-mutants.ts runs all of it): one fault
 * for each check issue 32 added, each injected by a proxy in front of (or behind) an unmodified sandbox, and the
 * whole of verify run with writes, webhooks, a read-only token and another workspace's token. Each fault is
 * reported by the check that names it; where the fault shows elsewhere too, the report says so once.
 */
import { describe, expect, it } from 'vitest';
import { runScene } from './harness.js';
import { MUTANTS } from './mutants.js';

const mutant = (name: string) => {
  const found = MUTANTS.find((m) => m.name === name);
  if (!found) throw new Error(`no mutant ${name}`);
  return found;
};
const run = (name: string) => runScene({ writes: true, webhooks: true, tokens: true, mutant: mutant(name), verify: { seed: 7 } });
const details = (report: Awaited<ReturnType<typeof run>>['report'], id: string) => report.checks.find((c) => c.id === id)!.details.join('\n');

describe('verify catches each fault of the catalogue with the check that names it', () => {
  it('a freeze without a body that answers 500: input.optional-omitted and write.freeze', async () => {
    const { failed, report } = await run('freeze without a body answers 500');
    expect(failed).toEqual(expect.arrayContaining(['input.optional-omitted', 'write.freeze']));
    expect(details(report, 'input.optional-omitted')).toMatch(/POST \/cards\/[^/]+\/freeze answered 500.*replay: curl -sS -X POST '[^']+\/freeze' -H "Authorization: Bearer \$CARD_API_TOKEN"/);
  });

  it('an unknown query parameter that answers 500: input.unknown-query, shrunk to a curl line with the seed', async () => {
    const { failed, report } = await run('an unknown query parameter answers 500');
    expect(failed).toContain('input.unknown-query');
    const text = details(report, 'input.unknown-query');
    expect(text).toMatch(/verify_unknown_parameter=1/);
    expect(text).toMatch(/\(gen-card-api verify --seed 7\)/);
    expect(JSON.stringify(report)).not.toContain('sbx_sk_');
  });

  it('a reason past 500 characters accepted: input.invalid names the constraint', async () => {
    const { failed, report } = await run('a reason longer than 500 characters is truncated, not refused');
    expect(failed).toEqual(['input.invalid']);
    expect(details(report, 'input.invalid')).toMatch(/body: maxLength 500 at \/reason: POST \/cards\/[^/]+\/(freeze|unfreeze|close) answered 409/);
  });

  it('a default per_page of 15 on /orders: input.defaults', async () => {
    const { failed, report } = await run('per_page defaults to 15 on /orders');
    expect(failed).toEqual(['input.defaults']);
    expect(details(report, 'input.defaults')).toMatch(/meta\.per_page is 15, the declared default is 50/);
  });

  it('debit and credit swapped in the ledger: money.ledger', async () => {
    const { failed, report } = await run('ledger debit and credit swapped');
    expect(failed).toEqual(['money.ledger']);
    expect(details(report, 'money.ledger')).toMatch(/ledger row\(s\) add up to -/);
  });

  it('a wallet whose available ignores the hold: money.available', async () => {
    const { failed } = await run('wallet available ignores held_balance');
    expect(failed).toEqual(['money.available']);
  });

  it('a pending hold missing from the wallet: money.order-hold', async () => {
    const { failed } = await run("a pending order's hold does not show in the wallet");
    expect(failed).toContain('money.order-hold');
  });

  it('a close refund that is not the card balance: money.close-refund', async () => {
    const { failed } = await run('card.closed refunds one unit less than the card balance');
    expect(failed).toEqual(['money.close-refund']);
  });

  it('a read-only token that can write: authz.read-only', async () => {
    const { failed, report } = await run('a read-only token can write (abilities ignored on writes)');
    expect(failed).toEqual(['authz.read-only']);
    expect(details(report, 'authz.read-only')).toMatch(/expected 403 api\.insufficient_ability; replay: curl .*\$CARD_API_READ_ONLY_TOKEN/);
  });

  it("another workspace reading this workspace's card: isolation.other-workspace", async () => {
    const { failed } = await run("another workspace reads this workspace's cards by uuid");
    expect(failed).toEqual(['isolation.other-workspace']);
  });

  it('a top-up replay that makes a second order: state.idempotent-replays, the wallet effect not counted again', async () => {
    const { failed, report } = await run('a top-up replay makes a second order');
    expect(failed).toEqual(['state.idempotent-replays']);
    expect(details(report, 'state.idempotent-replays')).toMatch(/also showed in money\.order-hold/);
  });

  it('a closed card that accepts a freeze: state.after-close', async () => {
    const { failed } = await run('a closed card accepts a freeze');
    expect(failed).toEqual(['state.after-close']);
  });

  it('an order read under another uuid: state.created-readable', async () => {
    const { failed } = await run('GET /orders/{uuid} answers with the uuid upper-cased');
    expect(failed).toContain('state.created-readable');
  });

  it('a flattened error envelope: counted once, by http.error-envelope, with where else it showed', async () => {
    const { failed, report } = await run('a flattened error envelope (code at the top level)');
    expect(failed).toEqual(['http.body-schema', 'http.error-envelope']);
    expect(details(report, 'http.error-envelope')).toMatch(/also showed in .*auth\.no-token/);
  });

  it('deliveries signed with another secret: webhook.signature alone, naming the cause; the flow\'s webhook checks not judged', async () => {
    const { failed, report } = await run('deliveries signed with another secret');
    expect(failed).toEqual(['webhook.signature']);
    expect(details(report, 'webhook.signature')).toMatch(/likely cause: .*another secret/);
    for (const id of ['webhook.order-completed', 'webhook.card-events', 'webhook.close-sequence']) expect(details(report, id), id).toMatch(/^not judged: .*/);
  });

  it('a timestamp in milliseconds: webhook.signature says so', async () => {
    const { failed, report } = await run('the signature timestamp in milliseconds');
    expect(failed).toEqual(['webhook.signature']);
    expect(details(report, 'webhook.signature')).toMatch(/likely cause: the timestamp \d{13} is in milliseconds/);
  });

  it('a signature over re-serialized JSON: webhook.signature says so', async () => {
    const { failed, report } = await run('the signature over re-serialized JSON');
    expect(failed).toEqual(['webhook.signature']);
    expect(details(report, 'webhook.signature')).toMatch(/likely cause: the signature is over re-serialized JSON/);
  });

  it('a redelivery under a new event_id: webhook.event-id alone', async () => {
    const { failed } = await run('a redelivery carries a new event_id');
    expect(failed).toEqual(['webhook.event-id']);
  });
});
