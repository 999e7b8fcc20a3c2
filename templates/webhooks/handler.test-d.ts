import { describe, expectTypeOf, it } from 'vitest';
import type { CardFrozen, OrderCompleted, OrderFailed, TestEvent, TransactionAuthorized, TransactionCaptured } from './__fixtures__/events.js';
import type { EventForPattern, WebhookEvent, WildcardPattern } from './types.js';
import { constructEvent } from './signature.js';
import { constructEventAsync } from './signature-web.js';
import { createWebhookHandler } from './handler.js';
import { createWebhookHandler as createWebHandler } from './handler-web.js';
import type { WebhookResult } from './dispatcher.js';

const base = { secrets: 's', onUnknownEvent: () => {} };

describe('event typing', () => {
  it('narrows the payload from the event name', () => {
    createWebhookHandler<TestEvent>(base)
      .on('order.completed', (e) => {
        expectTypeOf(e).toEqualTypeOf<OrderCompleted>();
        expectTypeOf(e.data.order_uuid).toBeString();
      })
      .on('card.frozen', (e) => {
        expectTypeOf(e.data.origin).toEqualTypeOf<'workspace' | 'platform_risk' | 'issuer'>();
      });
  });

  it('gives the union of the events under a wildcard prefix', () => {
    createWebhookHandler<TestEvent>(base)
      .on('card.transaction.*', (e) => {
        expectTypeOf(e).toEqualTypeOf<TransactionAuthorized | TransactionCaptured>();
        expectTypeOf(e.data.transaction.uuid).toBeString();
      })
      .on('card.*', (e) => {
        expectTypeOf(e).toEqualTypeOf<CardFrozen | TransactionAuthorized | TransactionCaptured>();
      });
    expectTypeOf<WildcardPattern<TestEvent>>().toEqualTypeOf<'order.*' | 'card.*' | 'card.transaction.*'>();
    expectTypeOf<EventForPattern<TestEvent, 'order.*'>>().toEqualTypeOf<OrderCompleted | OrderFailed>();
  });

  it('refuses names and patterns that match no event', () => {
    const h = createWebhookHandler<TestEvent>(base);
    // @ts-expect-error not an event of the union
    h.on('card.issued', () => {});
    // @ts-expect-error a wildcard must match some event
    h.on('wallet.*', () => {});
    // @ts-expect-error a bare '*' is not a pattern
    h.on('*', () => {});
    // @ts-expect-error the payload of card.frozen has no order_uuid
    h.on('card.frozen', (e) => e.data.order_uuid);
  });

  it('requires onUnknownEvent, which receives the untyped envelope', () => {
    // @ts-expect-error a new event code must have somewhere to go
    createWebhookHandler<TestEvent>({ secrets: 's' });
    createWebHandler<TestEvent>({ secrets: ['a', 'b'], onUnknownEvent: (e) => expectTypeOf(e).toEqualTypeOf<WebhookEvent>() });
  });

  it('types handle() results by outcome', async () => {
    const r = await createWebhookHandler<TestEvent>(base).handle('{}', 't=1,v1=0');
    expectTypeOf(r).toEqualTypeOf<WebhookResult<TestEvent>>();
    if (r.status === 400) expectTypeOf(r.reason).toEqualTypeOf<'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'no_matching_signature' | 'payload_not_raw' | 'invalid_json'>();
    if (r.outcome === 'handled') expectTypeOf(r.event).toEqualTypeOf<TestEvent>();
  });

  it('feeds orderEvents with order_uuid typed', () => {
    createWebhookHandler<TestEvent>(base)
      .orderEvents()
      .subscribe((e) => {
        expectTypeOf(e.event).toEqualTypeOf<'order.completed' | 'order.failed'>();
        expectTypeOf(e.data.order_uuid).toBeString();
      });
  });

  it('lets the untyped default accept any name', () => {
    createWebhookHandler(base).on('anything.at.all', (e) => expectTypeOf(e).toEqualTypeOf<WebhookEvent>());
  });
});

describe('verification typing', () => {
  it('returns E synchronously on Node and a Promise on WebCrypto', () => {
    expectTypeOf(constructEvent<TestEvent>('', '', 's')).toEqualTypeOf<TestEvent>();
    expectTypeOf(constructEventAsync<TestEvent>('', '', 's')).toEqualTypeOf<Promise<TestEvent>>();
    expectTypeOf(constructEvent('', '', 's')).toEqualTypeOf<WebhookEvent>();
  });

  it('accepts raw bodies only', () => {
    constructEvent(new Uint8Array(), 'h', 's');
    constructEvent(new ArrayBuffer(0), 'h', 's');
    constructEvent(Buffer.from(''), 'h', 's');
    // @ts-expect-error a parsed object cannot be verified
    constructEvent({ event: 'x' }, 'h', 's');
    // @ts-expect-error the tolerance is in seconds, named toleranceSec
    constructEvent('', 'h', 's', { tolerance: 300 });
  });
});

describe('a missing secret (issue 31)', () => {
  it('is a type error where the type says it may be missing: an environment variable is string | undefined', () => {
    const env: Record<string, string | undefined> = {};
    // @ts-expect-error secrets may be undefined: check the variable, or the handler throws at creation
    createWebhookHandler({ secrets: env['CARD_API_WEBHOOK_SECRET'], onUnknownEvent: () => {} });
    // @ts-expect-error the same on the WebCrypto path
    createWebHandler({ secrets: env['CARD_API_WEBHOOK_SECRET'], onUnknownEvent: () => {} });
    // @ts-expect-error secrets is required
    createWebhookHandler({ onUnknownEvent: () => {} });
    // @ts-expect-error no element may be undefined either
    createWebhookHandler({ secrets: ['whsec_a', env['OLD_SECRET']], onUnknownEvent: () => {} });
    const secret = env['CARD_API_WEBHOOK_SECRET'];
    if (secret) createWebhookHandler({ secrets: secret, onUnknownEvent: () => {} });
  });
});
