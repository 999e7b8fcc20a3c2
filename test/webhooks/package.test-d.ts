import { describe, expectTypeOf, it } from 'vitest';
import { createWebhookHandler, type CardApiEvent, type EventName, type EventOf } from '../../packages/webhooks/src/index.js';
import type { CardTransaction, OrderFailureReason } from '../../packages/types/src/index.js';

describe('@card-api/webhooks types', () => {
  it('types each event from the spec', () => {
    expectTypeOf<EventOf<'order.completed'>['data']['card_uuid']>().toEqualTypeOf<string>();
    expectTypeOf<EventOf<'order.failed'>['data']['failure_reason']>().toEqualTypeOf<OrderFailureReason>();
    expectTypeOf<EventOf<'card.transaction.declined'>['data']['transaction']>().toEqualTypeOf<CardTransaction>();
    expectTypeOf<Extract<CardApiEvent, { event: 'card.closed' }>['data']['refund_amount']>().toEqualTypeOf<string>();
    expectTypeOf<EventName>().toMatchTypeOf<string>();
  });

  it('infers payloads in the dispatcher and refuses unknown names', () => {
    const handler = createWebhookHandler({ secrets: 's', onUnknownEvent: () => undefined });
    handler.on('card.frozen', (e) => expectTypeOf(e.data.origin).toEqualTypeOf<'workspace' | 'platform_risk' | 'issuer'>());
    handler.on('card.transaction.*', (e) => expectTypeOf(e.data.transaction).toEqualTypeOf<CardTransaction>());
    // @ts-expect-error no such event in the spec
    handler.on('card.issued', () => undefined);
    // @ts-expect-error the fallback for unknown events is required
    createWebhookHandler({ secrets: 's' });
  });
});
