/** @card-api/webhooks as a user gets it: the generated event catalogue bound to the runtime. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, WebhookVerificationError, constructEvent, createWebhookHandler, isEvent, isEventName, type CardApiEvent } from '../../packages/webhooks/src/index.js';
import { constructEventAsync } from '../../packages/webhooks/src/web.js';
import { eventFixtures, signPayload } from '../../packages/webhooks/src/testing.js';
import { SpecValidator } from '../helpers/spec-validator.js';

const SECRET = 'whsec_test_secret';
const validator = new SpecValidator({ strict: true });

/** An independent signer: node:crypto HMAC, written from contract section 6.2. */
function independentHeader(body: string, t: number): string {
  return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${body}`).digest('hex')}`;
}

describe('@card-api/webhooks', () => {
  it('has exactly the 14 events of the spec', () => {
    expect(EVENT_NAMES).toHaveLength(14);
    expect(Object.keys(eventFixtures).sort()).toEqual([...EVENT_NAMES]);
  });

  it.each(EVENT_NAMES.map((n) => [n] as const))('fixture %s validates against the spec and round-trips signed', async (name) => {
    const fixture = eventFixtures[name];
    expect(validator.webhookErrors(fixture)).toEqual([]);
    const body = JSON.stringify(fixture);
    const t = Math.floor(Date.now() / 1000);
    const event = constructEvent(body, independentHeader(body, t), SECRET);
    expect(event).toEqual(fixture);
    expect(isEvent(event, name)).toBe(true);
    expect(await constructEventAsync(new TextEncoder().encode(body), signPayload(body, SECRET), SECRET)).toEqual(fixture);
  });

  it('the strict spec validator refuses a field the spec does not declare (a leaked PAN)', () => {
    const leaked = structuredClone(eventFixtures['card.frozen']) as Record<string, any>;
    leaked.data.pan = '4111111111111111';
    expect(validator.webhookErrors(leaked).join()).toMatch(/unevaluated.*pan/);
    expect(validator.webhookErrors({ ...eventFixtures['order.completed'], event_id: '1' }).join()).toMatch(/integer/);
  });

  it('rejects one changed byte and a timestamp 301 s old', () => {
    const body = JSON.stringify(eventFixtures['order.completed']);
    const now = Math.floor(Date.now() / 1000);
    const tampered = body.replace('110.00', '111.00');
    expect(() => constructEvent(tampered, independentHeader(body, now), SECRET)).toThrow(WebhookVerificationError);
    const old = independentHeader(body, now - 301);
    expect(() => constructEvent(body, old, SECRET)).toThrowError(expect.objectContaining({ reason: 'timestamp_out_of_tolerance' }));
  });

  it('dispatches typed handlers, a wildcard and the fallback, and deduplicates', async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler({ secrets: SECRET, onUnknownEvent: (e) => seen.push(`unknown:${e.event}`) })
      .on('order.completed', (e) => seen.push(`completed:${e.data.card_uuid}`))
      .on('card.transaction.*', (e) => seen.push(`txn:${e.data.transaction.type}`));
    const deliver = (payload: object) => {
      const body = JSON.stringify(payload);
      return handler.handle(body, signPayload(body, SECRET));
    };
    expect((await deliver(eventFixtures['order.completed'])).status).toBe(200);
    expect((await deliver(eventFixtures['order.completed'])).status).toBe(200);
    expect((await deliver(eventFixtures['card.transaction.captured'])).status).toBe(200);
    expect((await deliver({ ...eventFixtures['card.frozen'], event: 'card.renamed', event_id: 99 })).status).toBe(200);
    expect(seen).toEqual(['completed:3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14', 'txn:capture', 'unknown:card.renamed']);
    expect(isEventName('card.renamed')).toBe(false);
    const bad = await handler.handle('{}', 't=1,v1=00');
    expect(bad.status).toBe(400);
  });

  it('keeps CardApiEvent discriminated on event', () => {
    const event = eventFixtures['card.frozen'] as CardApiEvent;
    if (event.event === 'card.frozen') expect(event.data.origin).toBe('workspace');
    else throw new Error('not narrowed');
  });
});
