import { describe, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  CardApiError,
  ClientCore,
  Decimal,
  OrderFailedError,
  PagePromise,
  PermissionError,
  RateLimitError,
  ValidationError,
  orderCardUuid,
  waitForOrder,
  type ListOptions,
  type OperationDescriptor,
  type Page,
  type RequestOptions,
  type ResponseMeta,
  type WithResponse,
  type WriteOptions,
} from './index.js';

interface CardDetail {
  uuid: string;
  status: 'active' | 'frozen';
  card_balance: string;
}
interface Order {
  uuid: string;
  status: 'pending' | 'processing' | 'awaiting_platform' | 'completed' | 'failed';
  failure_reason: string | null;
  related_card_uuid: string | null;
}
interface ListCardsQuery {
  status?: Array<'active' | 'frozen'>;
  page?: number;
}

const OPS = {
  getCard: { method: 'get', path: '/cards/{uuid}', write: false },
  listCards: { method: 'get', path: '/cards', write: false, query: { status: { style: 'form', explode: false } } },
  createCard: { method: 'post', path: '/cards', write: true },
  getOrder: { method: 'get', path: '/orders/{uuid}', write: false },
} as const satisfies Record<string, OperationDescriptor>;

/** The shape the generator emits: results are typed by the method's declared return type. */
class CardsResource {
  constructor(private readonly core: ClientCore) {}
  get(uuid: string, options?: RequestOptions): Promise<WithResponse<CardDetail>> {
    return this.core.request(OPS.getCard, { path: { uuid } }, options);
  }
  list(query?: ListCardsQuery, options?: ListOptions): PagePromise<CardDetail> {
    return this.core.list(OPS.listCards, { query }, options);
  }
  create(body: { card_product_id: number }, options?: WriteOptions): Promise<WithResponse<Order>> {
    return this.core.request(OPS.createCard, { body }, options);
  }
}
class OrdersResource {
  constructor(private readonly core: ClientCore) {}
  get(uuid: string, options?: RequestOptions): Promise<WithResponse<Order>> {
    return this.core.request(OPS.getOrder, { path: { uuid } }, options);
  }
}

declare const cards: CardsResource;
declare const orders: OrdersResource;

describe('runtime types', () => {
  it('PagePromise is both PromiseLike<Page<T>> and AsyncIterable<T>', () => {
    const list = cards.list({ status: ['active'] });
    expectTypeOf(list).toExtend<PromiseLike<Page<CardDetail>>>();
    expectTypeOf(list).toExtend<AsyncIterable<CardDetail>>();
    expectTypeOf(list).not.toExtend<AsyncIterable<string>>();
    expectTypeOf<Awaited<typeof list>>().toEqualTypeOf<WithResponse<Page<CardDetail>>>();
    expectTypeOf(list.pages()).toExtend<AsyncIterable<WithResponse<Page<CardDetail>>>>();
    expectTypeOf(list.toArray()).resolves.toEqualTypeOf<CardDetail[]>();
  });

  it('WithResponse keeps the fields of T and adds a read-only lastResponse', async () => {
    const card = await cards.get('u');
    expectTypeOf(card.status).toEqualTypeOf<'active' | 'frozen'>();
    expectTypeOf(card.card_balance).toEqualTypeOf<string>();
    expectTypeOf(card.lastResponse).toEqualTypeOf<ResponseMeta>();
    expectTypeOf(card).toExtend<CardDetail>();
    // @ts-expect-error lastResponse is read-only
    card.lastResponse = card.lastResponse;
    // @ts-expect-error no such field on CardDetail
    void card.pan;
    const products = null as unknown as WithResponse<Array<{ id: number }>>;
    expectTypeOf(products[0]).toEqualTypeOf<{ id: number } | undefined>();
    expectTypeOf(products.lastResponse.requestId).toEqualTypeOf<string | null>();
  });

  it('write options take an idempotency key; read options do not', () => {
    cards.create({ card_product_id: 1 }, { idempotencyKey: 'k', signal: AbortSignal.timeout(1000), maxRetries: 0 });
    // @ts-expect-error reads have no idempotency key
    cards.get('u', { idempotencyKey: 'k' });
    cards.list({}, { maxItems: 10 });
    // @ts-expect-error status values are typed by the generated query
    cards.list({ status: ['gone'] });
  });

  it('error classes narrow with instanceof', () => {
    const err: unknown = null;
    if (err instanceof ValidationError) {
      expectTypeOf(err.fieldErrors).toEqualTypeOf<Record<string, string[]>>();
      expectTypeOf(err.status).toEqualTypeOf<422>();
    }
    if (err instanceof RateLimitError) expectTypeOf(err.retryAfter).toEqualTypeOf<number | null>();
    if (err instanceof PermissionError) expectTypeOf(err.code).toExtend<string>();
    if (err instanceof OrderFailedError) expectTypeOf(err.failureReason).toEqualTypeOf<string | null>();
    if (err instanceof ApiError) expectTypeOf(err.status).toEqualTypeOf<number | undefined>();
    if (err instanceof CardApiError) {
      expectTypeOf(err.code).toEqualTypeOf<string>();
      expectTypeOf(err.requestId).toEqualTypeOf<string | null>();
      expectTypeOf(err.idempotencyKey).toEqualTypeOf<string | null>();
      expectTypeOf(err).toExtend<Error>();
    }
  });

  it('waitForOrder returns the order type of its reader', () => {
    const done = waitForOrder((u, o) => orders.get(u, o), 'u', { intervalMs: 2000 });
    expectTypeOf(done).resolves.toEqualTypeOf<WithResponse<Order>>();
    expectTypeOf(orderCardUuid({ related_card_uuid: null, related_card_id: 'x' })).toEqualTypeOf<string | null>();
  });

  it('Decimal compares and formats to strings', () => {
    expectTypeOf(Decimal.parse('1.00').add(Decimal.parse('2')).toFixed(2)).toEqualTypeOf<string>();
    expectTypeOf(Decimal.parse('1').cmp(Decimal.parse('2'))).toEqualTypeOf<-1 | 0 | 1>();
  });

  it('descriptors are checked', () => {
    // @ts-expect-error unknown method
    const bad: OperationDescriptor = { method: 'trace', path: '/x', write: false };
    void bad;
  });
});
