/** Type-level tests of the generated client's public surface. */
import { describe, expectTypeOf, it } from 'vitest';
import type { AcceptedOrder, Card, CardApiClient, CardDetail, CardProduct, CardStatus, Order, PagePromise, WithResponse } from '../../packages/client/src/index.js';
import { CardStatusValues } from '../../packages/client/src/index.js';

declare const api: CardApiClient;

describe('CardApiClient types', () => {
  it('returns the spec types', () => {
    expectTypeOf(api.cards.get('u')).resolves.toEqualTypeOf<WithResponse<CardDetail>>();
    expectTypeOf(api.cards.list()).toEqualTypeOf<PagePromise<Card>>();
    expectTypeOf(api.cardProducts.list()).resolves.toEqualTypeOf<WithResponse<CardProduct[]>>();
    expectTypeOf(api.cards.create).returns.resolves.toEqualTypeOf<WithResponse<AcceptedOrder>>();
    // D29: neither a 202 nor an order read need carry related_card_uuid (the contract's order row has none); D8:
    // related_card_id may be the card's numeric id.
    expectTypeOf<AcceptedOrder['related_card_uuid']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Order['related_card_uuid']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<Order['related_card_id']>().toEqualTypeOf<number | string | null | undefined>();
    expectTypeOf(api.orders.wait).returns.resolves.toEqualTypeOf<WithResponse<Order>>();
    expectTypeOf<Order['failure_reason']>().toEqualTypeOf<'supplier5xx' | 'timeout' | 'network' | 'signature' | 'business4xx' | 'not_found' | 'preempted_by_risk' | 'admin_refund_close' | 'async_issue_failed' | null>();
    expectTypeOf<(typeof CardStatusValues)[number]>().toEqualTypeOf<CardStatus>();
  });

  it('keeps money as strings', () => {
    expectTypeOf<Card['card_balance']>().toEqualTypeOf<string>();
    expectTypeOf<Parameters<CardApiClient['cards']['topup']>[1]['amount']>().toEqualTypeOf<string>();
  });

  it('rejects wrong calls', () => {
    // @ts-expect-error a body field that is not in the spec
    void api.cards.create({ card_product_id: 1, initial_topup_amount: '1.00', cardholder_first_name: 'A', cardholder_last_name: 'B', colour: 'red' });
    // @ts-expect-error a missing required body field
    void api.cards.create({ card_product_id: 1, initial_topup_amount: '1.00', cardholder_first_name: 'A' });
    // @ts-expect-error a float where the spec has a decimal string
    void api.cards.topup('u', { amount: 10.5 });
    // @ts-expect-error a missing required path parameter
    void api.cards.get();
    // @ts-expect-error an enum value that does not exist
    void api.cards.list({ status: ['blocked'] });
    // @ts-expect-error a reason must be a string or null
    void api.cards.freeze('u', { reason: 42 });
  });
});
