import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARD, row, type TransactionRow } from './__fixtures__/events.js';
import { emptyLifeline, purchases, reduceLifeline, upsertTransaction, type LifelineState, type PurchaseState } from './lifeline.js';

type TxEvent = { event: string; event_id: number; occurred_at: string; workspace_id: number; data: { card_uuid: string; pan_last4: string; transaction: TransactionRow } };

let nextId = 1;
function ev(name: string, over: Partial<TransactionRow>, card = CARD): TxEvent {
  return { event: `card.transaction.${name}`, event_id: nextId++, occurred_at: over.occurred_at ?? '', workspace_id: 42, data: { card_uuid: card, pan_last4: '4242', transaction: row(over) } };
}

const fold = (events: readonly { event: string; data: unknown }[]) => events.reduce<LifelineState<TransactionRow>>((s, e) => reduceLifeline(s, e), emptyLifeline);
const stateOf = (events: readonly TxEvent[]) => purchases(fold(events)).map((p) => [p.key.split('|').slice(1).join('|'), p.state]);

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const p of permutations(rest)) yield [items[i]!, ...p];
  }
}

// One purchase walking the whole lifeline, with the redelivery and the "auth row later listed as posted" twists.
const S = 'sup_A';
const authorized = ev('authorized', { uuid: 'a-1', type: 'authorization', status: 'pending', amount: '42.50', supplier_txn_id: S, occurred_at: '2026-03-01T12:00:00Z' });
const authPosted = ev('authorized', { uuid: 'a-1', type: 'authorization', status: 'posted', amount: '42.50', supplier_txn_id: S, occurred_at: '2026-03-01T12:00:00Z', posted_at: '2026-03-03T00:00:00Z' });
const captured = ev('captured', { uuid: 'c-1', type: 'capture', status: 'posted', amount: '42.50', supplier_txn_id: S, occurred_at: '2026-03-03T00:00:00Z' });
const refunded = ev('refunded', { uuid: 'r-1', type: 'refund', status: 'posted', amount: '10.00', supplier_txn_id: S, occurred_at: '2026-03-05T00:00:00Z' });
const chargeback = ev('chargeback_opened', { uuid: 'cb-1', type: 'chargeback_opened', status: 'pending', amount: '32.50', supplier_txn_id: S, occurred_at: '2026-03-09T00:00:00Z' });

describe('lifeline states (contract section 3.3)', () => {
  it.each<[string, TxEvent[], PurchaseState]>([
    ['authorized -> hold', [authorized], 'hold'],
    ['captured -> settled', [authorized, captured], 'settled'],
    ['auth row listed as posted -> settled', [authPosted], 'settled'],
    ['reversed -> closed', [authorized, ev('reversed', { uuid: 'v-1', type: 'reversal', status: 'posted', supplier_txn_id: S })], 'closed'],
    ['auth row listed as reversed -> closed', [ev('authorized', { uuid: 'a-1', status: 'reversed', supplier_txn_id: S })], 'closed'],
    ['refunded -> refunded', [authorized, captured, refunded], 'refunded'],
    ['chargeback opened -> disputed', [authorized, captured, chargeback], 'disputed'],
    ['refund and chargeback -> disputed', [authorized, captured, refunded, chargeback], 'disputed'],
    ['declined -> declined', [ev('declined', { uuid: 'd-1', type: 'decline', status: 'failed', decline_reason: 'insufficient_funds', supplier_txn_id: 'sup_D' })], 'declined'],
    ['zero-amount authorization -> probe', [ev('authorized', { uuid: 'p-1', amount: '0.00', supplier_txn_id: 'sup_P' })], 'probe'],
    ['capture without the auth seen yet -> settled', [captured], 'settled'],
  ])('%s', (_, events, state) => {
    expect(purchases(fold(events)).map((p) => p.state)).toEqual([state]);
  });

  it('keeps a decline out of the purchase it shares a supplier id with', () => {
    const decline = ev('declined', { uuid: 'd-2', type: 'decline', status: 'failed', amount: '0.00', supplier_txn_id: S, decline_reason: 'cvv_mismatch', occurred_at: '2026-03-01T12:05:00Z' });
    expect(stateOf([authorized, decline])).toEqual([
      ['supplier|sup_A', 'hold'],
      ['decline|d-2', 'declined'],
    ]);
  });

  it('groups by supplier_txn_id, else auth_code, else the row alone, per card (D23)', () => {
    const byAuth1 = ev('authorized', { uuid: 'x-1', supplier_txn_id: null, auth_code: '111111', occurred_at: '2026-03-02T00:00:00Z' });
    const byAuth2 = ev('captured', { uuid: 'x-2', type: 'capture', status: 'posted', supplier_txn_id: null, auth_code: '111111', occurred_at: '2026-03-02T01:00:00Z' });
    const alone = ev('authorized', { uuid: 'x-3', supplier_txn_id: null, auth_code: null, occurred_at: '2026-03-02T02:00:00Z' });
    const otherCard = ev('authorized', { uuid: 'x-4', supplier_txn_id: null, auth_code: '111111', occurred_at: '2026-03-02T03:00:00Z' }, 'card-2');
    expect(stateOf([otherCard, alone, byAuth2, byAuth1])).toEqual([
      ['auth|111111', 'settled'],
      ['row|x-3', 'hold'],
      ['auth|111111', 'hold'],
    ]);
    expect(purchases(fold([otherCard])).map((p) => p.card_uuid)).toEqual(['card-2']);
  });

  it('sums amounts exactly and reports what is still held', () => {
    const incremental = ev('authorized', { uuid: 'a-2', type: 'authorization', status: 'pending', amount: '0.10', supplier_txn_id: S, occurred_at: '2026-03-01T13:00:00Z' });
    const [hold] = purchases(fold([authorized, incremental]));
    expect(hold).toMatchObject({ state: 'hold', authorized_amount: '42.60', held_amount: '42.60', settled_amount: null });
    const [done] = purchases(fold([authorized, incremental, captured, refunded]));
    expect(done).toMatchObject({
      state: 'refunded',
      authorized_amount: '42.60',
      held_amount: '0.00',
      settled_amount: '42.50',
      refunded_amount: '10.00',
      last_occurred_at: '2026-03-05T00:00:00Z',
      currency: 'USD',
    });
    expect(done!.rows.map((r) => r.uuid)).toEqual(['a-1', 'a-2', 'c-1', 'r-1']);
  });

  it('flags a resolved dispute', () => {
    const resolved = ev('chargeback_resolved', { uuid: 'cb-2', type: 'chargeback_resolved', status: 'posted', supplier_txn_id: S });
    expect(purchases(fold([authorized, captured, chargeback, resolved]))[0]).toMatchObject({ state: 'disputed', dispute_resolved: true });
  });

  it('ignores other events and returns the same state object for a redelivery', () => {
    const s1 = fold([authorized, captured]);
    expect(reduceLifeline(s1, { event: 'card.frozen', data: {} })).toBe(s1);
    expect(reduceLifeline(s1, captured)).toBe(s1);
    expect(reduceLifeline(s1, { event: 'card.transaction.captured', data: { transaction: null } })).toBe(s1);
    expect(upsertTransaction(s1, { ...row(), uuid: '__proto__' }).rows).toHaveProperty(['__proto__']);
  });

  it('lets a final status win over pending for the same uuid, whatever the order', () => {
    expect(fold([authorized, authPosted]).rows['a-1']!.row.status).toBe('posted');
    expect(fold([authPosted, authorized]).rows['a-1']!.row.status).toBe('posted');
  });
});

describe('arrival order does not matter', () => {
  it('for EVERY permutation of one purchase plus a decline, a probe and a redelivery (7! orders)', () => {
    const decline = ev('declined', { uuid: 'd-3', type: 'decline', status: 'failed', supplier_txn_id: 'sup_Z', occurred_at: '2026-03-04T00:00:00Z' });
    const probe = ev('authorized', { uuid: 'p-2', amount: '0', supplier_txn_id: 'sup_P', occurred_at: '2026-02-28T00:00:00Z' });
    const events = [authorized, authPosted, captured, { ...captured, event_id: 999 }, refunded, chargeback, decline, probe];
    const expected = purchases(fold(events));
    expect(expected.map((p) => p.state)).toEqual(['probe', 'disputed', 'declined']);
    let count = 0;
    for (const order of permutations(events.slice(1))) {
      expect(purchases(fold([...order.slice(0, 3), authorized, ...order.slice(3)]))).toEqual(expected);
      count++;
    }
    expect(count).toBe(5040);
  });

  it('for every permutation of each lifeline path', () => {
    const reversal = ev('reversed', { uuid: 'v-2', type: 'reversal', status: 'posted', supplier_txn_id: S, occurred_at: '2026-03-02T00:00:00Z' });
    for (const path of [[authorized, captured, refunded], [authorized, reversal], [authorized, captured, chargeback], [authorized, authPosted, captured]]) {
      const expected = purchases(fold(path));
      for (const order of permutations(path)) expect(purchases(fold(order))).toEqual(expected);
    }
  });

  const rowArb = fc.record({
    uuid: fc.constantFrom('u1', 'u2', 'u3', 'u4', 'u5'),
    type: fc.constantFrom('authorization', 'capture', 'refund', 'reversal', 'decline', 'chargeback_opened', 'chargeback_resolved'),
    status: fc.constantFrom('pending', 'posted', 'reversed', 'failed'),
    amount: fc.constantFrom('0.00', '0', '1.50', '20.00', '0.12345678'),
    supplier_txn_id: fc.constantFrom(null, 's1', 's2'),
    auth_code: fc.constantFrom(null, '000001', '000002'),
    occurred_at: fc.constantFrom(null, '2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z'),
    posted_at: fc.constantFrom(null, '2026-03-03T00:00:00Z'),
  });
  const eventArb = fc.record({ card: fc.constantFrom('c1', 'c2'), row: rowArb }).map(({ card, row: r }) => ({
    event: 'card.transaction.x',
    data: { card_uuid: card, transaction: { ...row(), ...r } },
  }));

  it('for any event list and any shuffle of it (fast-check), including conflicting versions of one uuid', () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 14 }).chain((events) =>
          fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length })),
        ),
        ([events, shuffled]) => {
          expect(purchases(fold(shuffled))).toEqual(purchases(fold(events)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('for redeliveries: folding a list twice changes nothing (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 10 }), (events) => {
        expect(fold([...events, ...events])).toEqual(fold(events));
      }),
      { numRuns: 300 },
    );
  });
});
