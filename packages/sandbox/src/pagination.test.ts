import { describe, expect, it } from 'vitest';
import { FieldErrors } from './errors.js';
import { paginate, parsePageQuery } from './pagination.js';
import { catchError, issueActiveCard, issueBody, newestCard, setup } from './test-support.js';

describe('paginate (D1)', () => {
  it.each([
    ['first of three pages', 1, 2, 5, ['a', 'b'], { from: 1, to: 2, last_page: 3 }, { prev: null, next: '/cards?page=2&per_page=2' }],
    ['middle page', 2, 2, 5, ['c', 'd'], { from: 3, to: 4, last_page: 3 }, { prev: '/cards?page=1&per_page=2', next: '/cards?page=3&per_page=2' }],
    ['last, short page', 3, 2, 5, ['e'], { from: 5, to: 5, last_page: 3 }, { prev: '/cards?page=2&per_page=2', next: null }],
    ['empty list', 1, 50, 0, [], { from: null, to: null, last_page: 1 }, { prev: null, next: null }],
    ['beyond the end', 9, 2, 5, [], { from: null, to: null, last_page: 3 }, { prev: '/cards?page=3&per_page=2', next: null }],
  ])('%s', (_name, page, perPage, total, data, meta, links) => {
    const result = paginate('/cards', {}, page, perPage, total, data);
    expect(result).toEqual({
      data,
      meta: { current_page: page, per_page: perPage, total, ...meta },
      links: { first: `/cards?page=1&per_page=${perPage}`, last: `/cards?page=${meta.last_page}&per_page=${perPage}`, ...links },
    });
  });

  it('keeps filters in the links, sorted, and leaves out unset ones', () => {
    const result = paginate('/api/v1/orders', { type: 'freeze', status: 'failed', other: undefined }, 1, 10, 30, []);
    expect(result.links.next).toBe('/api/v1/orders?status=failed&type=freeze&page=2&per_page=10');
  });

  it('applies D10 defaults and limits', () => {
    const ok = new FieldErrors();
    expect(parsePageQuery({}, ok)).toEqual({ page: 1, perPage: 50 });
    expect(parsePageQuery({ page: '3', per_page: '100' }, ok)).toEqual({ page: 3, perPage: 100 });
    ok.throwIfAny();
    const bad = new FieldErrors();
    parsePageQuery({ page: 0, per_page: 101 }, bad);
    expect(catchError(() => bad.throwIfAny())).toMatchObject({ status: 422, fieldErrors: { page: ['must be an integer from 1 to 9007199254740991'], per_page: ['must be an integer from 1 to 100'] } });
    const text = new FieldErrors();
    parsePageQuery({ page: '1.5', per_page: 'ten' }, text);
    expect(catchError(() => text.throwIfAny()).fieldErrors).toHaveProperty('per_page');
  });
});

describe('list filters', () => {
  it('filters cards by status, cardholder type and D11 search', () => {
    const { sandbox, ws } = setup();
    const ada = issueActiveCard(sandbox, ws);
    const grace = issueActiveCard(sandbox, ws, { cardholder_first_name: 'Grace', cardholder_last_name: 'Hopper', cardholder_type: 'staff' });
    sandbox.cards.freeze(ws, grace);
    sandbox.advance(100);
    // Created last and never processed: stays pending_issue.
    sandbox.cards.create(ws, issueBody({ cardholder_first_name: 'Alan', cardholder_last_name: '100%_Turing' }));
    const pending = newestCard(sandbox, ws);

    const uuids = (q: Parameters<typeof sandbox.cards.list>[1]) => sandbox.cards.list(ws, q).data.map((c) => c.uuid);
    expect(uuids({})).toEqual([pending, grace, ada]);
    expect(uuids({ status: 'active' })).toEqual([ada]);
    expect(uuids({ status: 'frozen,pending_issue' })).toEqual([pending, grace]);
    expect(uuids({ status: ['active', 'frozen'] })).toEqual([grace, ada]);
    expect(uuids({ cardholder_type: 'staff' })).toEqual([grace]);
    expect(uuids({ search: 'HOP' })).toEqual([grace]);
    expect(uuids({ search: 'a' })).toEqual([pending, grace, ada]);
    expect(uuids({ search: '0%_' })).toEqual([pending]);
    expect(uuids({ search: '%' })).toEqual([pending]);
    expect(uuids({ search: sandbox.cards.get(ws, ada).pan_last4 })).toContain(ada);
    expect(catchError(() => sandbox.cards.list(ws, { status: 'active,lost' }))).toMatchObject({ status: 422, fieldErrors: { status: ['unknown card status lost'] } });
    expect(catchError(() => sandbox.cards.list(ws, { cardholder_type: 'robot' })).status).toBe(422);

    const page = sandbox.cards.list(ws, { per_page: 2, page: 2, status: 'active,frozen', search: 'a' }, '/api/v1/cards');
    expect(page.meta).toEqual({ current_page: 2, per_page: 2, total: 2, last_page: 1, from: null, to: null });
    expect(page.links.first).toBe('/api/v1/cards?search=a&status=active%2Cfrozen&page=1&per_page=2');
    const row = sandbox.cards.list(ws).data[0]!;
    expect(Object.keys(row).sort()).toEqual(
      ['uuid', 'status', 'cardholder_type', 'cardholder_first_name', 'cardholder_last_name', 'masked_pan', 'pan_last4', 'pan_bin', 'currency', 'card_balance', 'card_product_id', 'issued_at', 'last_active_txn_at', 'created_at'].sort(),
    );
  });

  it('filters orders by status and type, newest first', () => {
    const { sandbox, ws } = setup();
    const card = issueActiveCard(sandbox, ws);
    sandbox.cards.topup(ws, card, { amount: '10.00' });
    sandbox.cards.freeze(ws, card);
    const all = sandbox.orders.list(ws);
    expect(all.data.map((o) => `${o.type}:${o.status}`)).toEqual(['freeze:pending', 'topup_card:pending', 'issue_card:completed']);
    expect(Object.keys(all.data[0]!).sort()).toEqual(['created_at', 'currency', 'failure_reason', 'held_amount', 'related_card_uuid', 'status', 'type', 'uuid']);
    expect(sandbox.orders.list(ws, { status: 'pending' }).meta.total).toBe(2);
    expect(sandbox.orders.list(ws, { type: 'issue_card' }).data.map((o) => o.status)).toEqual(['completed']);
    expect(sandbox.orders.list(ws, { per_page: 1, page: 3 })).toMatchObject({ meta: { total: 3, last_page: 3, from: 3, to: 3 }, links: { next: null, prev: '/orders?page=2&per_page=1' } });
    expect(catchError(() => sandbox.orders.list(ws, { type: 'refund' })).status).toBe(422);
    expect(catchError(() => sandbox.orders.get(ws, 'nope'))).toMatchObject({ status: 404, code: 'order.not_found' });
  });

  it('filters the ledger by reason, reference and time window', () => {
    const { sandbox, ws, clock } = setup();
    const first = issueActiveCard(sandbox, ws);
    clock.advance(60_000);
    const cutoff = clock.now().toISOString();
    const second = issueActiveCard(sandbox, ws);
    expect(sandbox.ledger.list(ws, { reason: 'held_capture' }).meta.total).toBe(4);
    expect(sandbox.ledger.list(ws, { reference_type: 'Card', reference_uuid: first }).data.every((r) => r.reference_uuid === first)).toBe(true);
    expect(sandbox.ledger.list(ws, { reference_uuid: second }).meta.total).toBe(6);
    expect(sandbox.ledger.list(ws, { from: cutoff }).data.every((r) => r.reference_uuid === second)).toBe(true);
    expect(sandbox.ledger.list(ws, { to: new Date(Date.parse(cutoff) - 1).toISOString() }).data.some((r) => r.reference_uuid === second)).toBe(false);
    expect(sandbox.ledger.list(ws, { reason: 'usdt_deposit', per_page: 1 }).links.last).toBe('/transactions?reason=usdt_deposit&page=2&per_page=1');
    expect(catchError(() => sandbox.ledger.list(ws, { reason: 'card_topup' }))).toMatchObject({ status: 422, fieldErrors: { reason: expect.any(Array) } });
    expect(catchError(() => sandbox.ledger.list(ws, { from: 'yesterday' }))).toMatchObject({ status: 422, fieldErrors: { from: ['must be an ISO 8601 date-time'] } });
  });
});
