/**
 * Type tests of the generated `CardApiHandlers` against @card-api/types: inputs are narrowed per operation,
 * replies must match the spec, and names the spec does not have fail to compile.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { CardActionRequest, CardStatus, ListCardsQuery, Order } from '@card-api/types';
import { ApiError, cardApi, cardApiFor, type AuthResult, type CardApiHandlers } from './index.js';
import Fastify from 'fastify';

interface SandboxAuth extends AuthResult {
  tokenId: number;
}

const order: Order = {
  uuid: '9b2e4c71-3a5d-4f86-b0c9-2d7e1f4a6b35',
  type: 'freeze',
  status: 'pending',
  related_card_uuid: null,
  held_amount: '0.00',
  currency: 'USD',
  created_at: '2026-11-20T10:00:00Z',
  failure_reason: null,
};

describe('CardApiHandlers', () => {
  it('types the input from the spec', () => {
    const getCard: CardApiHandlers<SandboxAuth>['getCard'] = async ({ params, query, auth, body }) => {
      expectTypeOf(params.uuid).toEqualTypeOf<string>();
      expectTypeOf(auth.tokenId).toEqualTypeOf<number>();
      expectTypeOf(body).toEqualTypeOf<undefined>();
      // @ts-expect-error getCard has no `id` path parameter
      void params.id;
      // @ts-expect-error getCard takes no query
      void query.page;
      throw new ApiError(404, 'card.not_found', 'No such card.');
    };
    const listCards: CardApiHandlers['listCards'] = ({ query }) => {
      expectTypeOf(query.status).toEqualTypeOf<ListCardsQuery['status']>();
      expectTypeOf(query.status).toEqualTypeOf<CardStatus[] | undefined>();
      expectTypeOf(query.per_page).toEqualTypeOf<number | undefined>();
      return { data: [], meta: { current_page: 1, per_page: 50, total: 0, last_page: 1, from: null, to: null }, links: { first: '', last: '', prev: null, next: null } };
    };
    const freezeCard: CardApiHandlers['freezeCard'] = ({ body, headers }) => {
      expectTypeOf(body).toEqualTypeOf<CardActionRequest | undefined>();
      expectTypeOf(headers['x-idempotency-key']).toEqualTypeOf<string | undefined>();
      return { data: order };
    };
    const createCard: CardApiHandlers['createCard'] = ({ body }) => {
      expectTypeOf(body.card_product_id).toEqualTypeOf<number>();
      return { data: order };
    };
    void [getCard, listCards, freezeCard, createCard];
  });

  it('checks replies: success body, documented { status, body }, nothing else', () => {
    // @ts-expect-error a 202 body is `{ data: Order }`, not the bare order
    const bare: CardApiHandlers['freezeCard'] = () => order;
    // @ts-expect-error `held_amount` is a decimal string, not a number
    const wrongField: CardApiHandlers['freezeCard'] = () => ({ data: { ...order, held_amount: 0 } });
    const conflict: CardApiHandlers['freezeCard'] = ({ requestId }) => ({
      status: 409,
      body: { error: { code: 'card.state_conflict', message: 'Already frozen.', request_id: requestId } },
    });
    // @ts-expect-error 402 is not a documented response of freezeCard
    const undocumented: CardApiHandlers['freezeCard'] = ({ requestId }) => ({ status: 402, body: { error: { code: 'wallet.insufficient_balance', message: '', request_id: requestId } } });
    // @ts-expect-error `card.lost` is not an ErrorCode of the spec
    const badCode: CardApiHandlers['freezeCard'] = ({ requestId }) => ({ status: 409, body: { error: { code: 'card.lost', message: '', request_id: requestId } } });
    void [bare, wrongField, conflict, undocumented, badCode];
  });

  it('checks ApiError codes against the spec', () => {
    void new ApiError(409, 'card.state_conflict', 'Already frozen.');
    void new ApiError(501, 'api.not_implemented', 'Later.');
    // @ts-expect-error not an error code of the spec
    void new ApiError(404, 'card.missing', 'No such card.');
  });

  it('types the options when registering, for the default and for a custom Auth', async () => {
    const app = Fastify();
    await app.register(cardApi, {
      handlers: {} as CardApiHandlers,
      authenticate: (token, request) => {
        expectTypeOf(token).toEqualTypeOf<string>();
        expectTypeOf(request.ip).toEqualTypeOf<string>();
        return null;
      },
    });
    const handlers = {} as CardApiHandlers<SandboxAuth>;
    await app.register(cardApiFor<SandboxAuth>(), { handlers, authenticate: () => null });
    // @ts-expect-error authenticate must return the Auth the handlers expect
    await app.register(cardApiFor<SandboxAuth>(), { handlers, authenticate: () => ({ workspace: { id: 1, status: 'active' }, abilities: [], ipAllowlist: [] }) });
    const { ping, ...partial } = handlers;
    void ping;
    // @ts-expect-error ping is missing
    await app.register(cardApiFor<SandboxAuth>(), { handlers: partial, authenticate: () => null });
  });
});
