import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestOptions } from './core.js';
import { OrderFailedError, TimeoutError, type OrderLike } from './errors.js';
import { orderCardUuid, waitForOrder, type OrderEvent, type OrderEventSource } from './orders.js';

const UUID = '0b7c9a3e-5d41-4f2a-8e6b-1c2d3e4f5a6b';

interface Order extends OrderLike {
  type: string;
  related_card_uuid: string | null;
}

function order(status: string, extra: Partial<Order> = {}): Order {
  return { uuid: UUID, type: 'issue_card', status, failure_reason: null, related_card_uuid: null, ...extra };
}

/** A `get` that returns the scripted statuses in turn (the last one repeats) and records its calls. */
function reader(...orders: Order[]) {
  const calls: Array<{ uuid: string; signal: AbortSignal | undefined }> = [];
  const get = async (uuid: string, options?: RequestOptions): Promise<Order> => {
    calls.push({ uuid, signal: options?.signal });
    return orders[Math.min(calls.length - 1, orders.length - 1)]!;
  };
  return { get, calls };
}

/** An in-memory event source, as a webhook receiver would provide. */
function eventBus() {
  const listeners = new Set<(e: OrderEvent) => void>();
  let unsubscribed = 0;
  const source: OrderEventSource = {
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        unsubscribed++;
        listeners.delete(listener);
      };
    },
  };
  return {
    source,
    emit: (e: OrderEvent) => listeners.forEach((l) => l(e)),
    get listeners() {
      return listeners.size;
    },
    get unsubscribed() {
      return unsubscribed;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('waitForOrder', () => {
  it('polls until completed and resolves with the order', async () => {
    const { get, calls } = reader(order('pending'), order('processing'), order('completed', { related_card_uuid: 'card-1' }));
    const done = await waitForOrder(get, UUID, { intervalMs: 1 });
    expect(done).toMatchObject({ status: 'completed', related_card_uuid: 'card-1' });
    expect(calls.map((c) => c.uuid)).toEqual([UUID, UUID, UUID]);
  });

  it('rejects with OrderFailedError carrying failure_reason', async () => {
    const { get } = reader(order('pending'), order('failed', { failure_reason: 'business4xx' }));
    const err = await waitForOrder(get, UUID, { intervalMs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OrderFailedError);
    expect(err).toMatchObject({ code: 'order.failed', failureReason: 'business4xx', order: { uuid: UUID, status: 'failed' } });
    expect((err as Error).message).toBe(`Order ${UUID} failed: business4xx`);
  });

  it('rejects with TimeoutError after timeoutMs and aborts the read in flight', async () => {
    vi.useFakeTimers();
    const signals: AbortSignal[] = [];
    const get = (_uuid: string, options?: RequestOptions): Promise<Order> => {
      signals.push(options!.signal!);
      return new Promise<Order>(() => {}); // a read that hangs
    };
    const p = waitForOrder(get, UUID, { intervalMs: 1000, timeoutMs: 5000 });
    const settled = p.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5000);
    const err = await settled;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: 'client.order_wait_timeout' });
    expect(signals[0]!.aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('times out across several polls, then leaves no timer behind', async () => {
    vi.useFakeTimers();
    const { get, calls } = reader(order('processing'));
    const settled = waitForOrder(get, UUID, { intervalMs: 3000, timeoutMs: 10_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await settled).toBeInstanceOf(TimeoutError);
    expect(calls).toHaveLength(4); // t = 0, 3, 6, 9 s
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the caller's abort reason and stops polling", async () => {
    vi.useFakeTimers();
    const { get, calls } = reader(order('pending'));
    const ac = new AbortController();
    const settled = waitForOrder(get, UUID, { intervalMs: 3000, signal: ac.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3500);
    const reason = new Error('shutting down');
    ac.abort(reason);
    expect(await settled).toBe(reason);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once for an already aborted signal', async () => {
    const { get, calls } = reader(order('pending'));
    await expect(waitForOrder(get, UUID, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(0);
  });

  it('wakes at once on a matching order event, ignores other orders, and unsubscribes', async () => {
    vi.useFakeTimers();
    const bus = eventBus();
    const { get, calls } = reader(order('processing'), order('processing'), order('completed'));
    const p = waitForOrder(get, UUID, { intervalMs: 60_000, events: bus.source });
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toHaveLength(1);
    expect(bus.listeners).toBe(1);

    bus.emit({ event: 'order.completed', data: { order_uuid: 'someone-else' } });
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toHaveLength(1);

    // The first read after the event may still lag behind; polling carries on until it agrees.
    bus.emit({ event: 'order.completed', data: { order_uuid: UUID } });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(2);
    bus.emit({ event: 'order.completed', data: { order_uuid: UUID } });
    await vi.advanceTimersByTimeAsync(0);
    await expect(p).resolves.toMatchObject({ status: 'completed' });
    expect(calls).toHaveLength(3);
    expect(bus.unsubscribed).toBe(1);
    expect(bus.listeners).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not lose an event that arrives while a read is in flight', async () => {
    const bus = eventBus();
    let n = 0;
    const get = async (): Promise<Order> => {
      n++;
      if (n === 1) {
        bus.emit({ event: 'order.failed', data: { order_uuid: UUID } });
        return order('processing');
      }
      return order('failed', { failure_reason: 'async_issue_failed' });
    };
    // Fake timers: only 10 ms pass, far from the 60 s poll, so only the event can have settled the wait.
    vi.useFakeTimers();
    let outcome: unknown;
    const settled = waitForOrder(get, UUID, { intervalMs: 60_000, events: bus.source }).catch((e: unknown) => (outcome = e));
    await vi.advanceTimersByTimeAsync(10);
    expect(outcome).toMatchObject({ failureReason: 'async_issue_failed' });
    await settled;
    expect(n).toBe(2);
    expect(bus.listeners).toBe(0);
  });

  it('unsubscribes and releases the read when get throws', async () => {
    const bus = eventBus();
    let signal: AbortSignal | undefined;
    const get = async (_u: string, o?: RequestOptions): Promise<Order> => {
      signal = o?.signal;
      throw new Error('boom');
    };
    await expect(waitForOrder(get, UUID, { events: bus.source })).rejects.toThrow('boom');
    expect(bus.unsubscribed).toBe(1);
    expect(signal?.aborted).toBe(true);
  });

  it('validates its options', async () => {
    const { get } = reader(order('completed'));
    await expect(waitForOrder(get, UUID, { intervalMs: -1 })).rejects.toThrow(/intervalMs/);
    await expect(waitForOrder(get, UUID, { timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
  });
});

describe('orderCardUuid (D8)', () => {
  it.each([
    [{ related_card_uuid: 'u', related_card_id: 'i' }, 'u'],
    [{ related_card_uuid: null, related_card_id: 'i' }, 'i'],
    [{ related_card_id: 'i' }, 'i'],
    [{ related_card_uuid: 'u' }, 'u'],
    [{ related_card_uuid: null, related_card_id: null }, null],
    // D8: a numeric related_card_id (the card's id, as every *_id of the contract) names no uuid.
    [{ related_card_id: 7781 }, null],
    [{ related_card_uuid: 'u', related_card_id: 7781 }, 'u'],
    [{}, null],
  ])('%j -> %s', (o, want) => {
    expect(orderCardUuid(o)).toBe(want);
  });
});
