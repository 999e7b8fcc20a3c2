import { afterEach, describe, expect, it, vi } from 'vitest';
import { issueBody, setup } from './test-support.js';

/**
 * The background scheduler (autoRun): due work runs in slices on a real timer, between turns of the event loop.
 * Driven here by vitest's fake timers and the manual clock, so each slice is fired on purpose and nothing depends
 * on how fast this machine is.
 */
describe('scheduler slices', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const openOrders = (sandbox: ReturnType<typeof setup>['sandbox'], ws: number, status: 'pending' | 'processing'): number => sandbox.orders.list(ws, { status }).meta.total;

  it('pays for the work a burst of writes scheduled in the next slice, not 32 steps at a time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
    const { sandbox, ws, clock } = setup({ autoRun: true, orderLatencyMs: 10 });
    sandbox.admin.deposit(ws, { amount: '100000.00', description: 'burst' });
    // What a hundred connections bring in one turn of the event loop: 100 issues, each its own write.
    for (let i = 0; i < 100; i++) sandbox.cards.create(ws, issueBody({ initial_topup_amount: '10.00' }), `burst-${i}`);
    expect(openOrders(sandbox, ws, 'pending')).toBe(100);

    // The re-arm after the burst (setImmediate) points the timer at the first due order (10 ms on); it fires once.
    await vi.advanceTimersByTimeAsync(0);
    clock.advance(10);
    await vi.advanceTimersByTimeAsync(10);
    // Every due order took its step in that one slice (a fixed slice of 32 steps left 68 of them pending).
    expect(openOrders(sandbox, ws, 'pending')).toBe(0);
    expect(openOrders(sandbox, ws, 'processing')).toBe(100);

    // No write since that slice: the next one has the base budget of 32 steps, and slices chain (re-armed at
    // once) while work is due, until every order completed.
    clock.advance(10);
    await vi.advanceTimersByTimeAsync(10);
    expect(openOrders(sandbox, ws, 'processing')).toBe(100 - 32);
    for (let i = 0; i < 10 && openOrders(sandbox, ws, 'processing') > 0; i++) await vi.advanceTimersByTimeAsync(10);
    expect(openOrders(sandbox, ws, 'processing')).toBe(0);
    expect(sandbox.orders.list(ws, { status: 'completed' }).meta.total).toBe(100);
    expect(sandbox.admin.audit()).toEqual([]);
    sandbox.close();
  });

  it('caps a slice at 1024 steps however many writes came in', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
    const { sandbox, ws, clock } = setup({ autoRun: true, orderLatencyMs: 10 });
    sandbox.admin.deposit(ws, { amount: '100000.00', description: 'cap' });
    for (let i = 0; i < 1100; i++) sandbox.cards.create(ws, issueBody({ initial_topup_amount: '10.00' }), `cap-${i}`);
    await vi.advanceTimersByTimeAsync(0);
    clock.advance(10);
    await vi.advanceTimersByTimeAsync(10);
    expect(openOrders(sandbox, ws, 'processing')).toBe(1024);
    expect(openOrders(sandbox, ws, 'pending')).toBe(1100 - 1024);
    sandbox.close();
  });

  it('rolls back a run of steps in which one fails, and runs them again one by one: the steps before the fault happen, its error surfaces', () => {
    const { sandbox, ws } = setup({ orderLatencyMs: 10 });
    const orders = [0, 1, 2].map((i) => sandbox.cards.create(ws, issueBody({ initial_topup_amount: '10.00' }), `fault-${i}`));
    sandbox.advance(10);
    expect(openOrders(sandbox, ws, 'processing')).toBe(3);
    // A fault in the middle order's completion (what a full in-memory database or a bug would raise).
    const faulty = sandbox.db.prepare<[string], { id: number }>('SELECT id FROM orders WHERE uuid = ?').get(orders[1]!.uuid)!.id;
    sandbox.db.exec(`CREATE TEMP TRIGGER injected_fault BEFORE UPDATE OF status ON orders WHEN OLD.id = ${faulty} AND NEW.status = 'completed' BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);

    expect(() => sandbox.advance(10)).toThrow(/injected fault/);
    const status = (uuid: string): string => sandbox.orders.get(ws, uuid).status;
    expect(orders.map((o) => status(o.uuid))).toEqual(['completed', 'processing', 'processing']);
    expect(sandbox.admin.audit()).toEqual([]);

    // Once the fault is gone the next run finishes the rest, each order once.
    sandbox.db.exec('DROP TRIGGER injected_fault');
    sandbox.runDue();
    expect(orders.map((o) => status(o.uuid))).toEqual(['completed', 'completed', 'completed']);
    expect(sandbox.admin.audit()).toEqual([]);
    const captures = sandbox.db.pluck("SELECT COUNT(*) FROM ledger_entries WHERE reason_code = 'held_capture'").get();
    expect(captures).toBe(6);
    sandbox.close();
  });
});
