import { describe, expect, it, vi } from 'vitest';
import { cardFrozen, orderCompleted, transactionEvent, type TestEvent } from './__fixtures__/events.js';
import { createMemoryDedupeStore, type DedupeStore } from './dedupe.js';
import type { OrderEvent, WebhookHandler, WebhookHandlerOptions } from './dispatcher.js';
import { createWebhookHandler as createNodeHandler } from './handler.js';
import { createWebhookHandler as createWebHandler } from './handler-web.js';
import { signPayload } from './signature.js';

const SECRET = 'whsec_dispatch';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Waits until `condition` holds, polling; fails clearly after `limitMs` instead of racing a fixed sleep. */
async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** A delivery as the service sends it: fresh timestamp on every (re)delivery. */
function deliver(h: WebhookHandler<TestEvent>, event: object) {
  const body = JSON.stringify(event);
  return h.handle(body, signPayload(body, SECRET));
}

describe.each([
  ['node', createNodeHandler],
  ['web', createWebHandler],
] as const)('dispatcher on the %s path', (_, create) => {
  const make = (over: Partial<WebhookHandlerOptions<TestEvent>> = {}) =>
    create<TestEvent>({ secrets: SECRET, onUnknownEvent: () => {}, ...over });

  it('routes by exact name and by wildcard, in registration order, and is chainable', async () => {
    const calls: string[] = [];
    const h = make()
      .on('card.transaction.*', (e) => void calls.push(`wild:${e.event}`))
      .on('card.transaction.captured', (e) => void calls.push(`exact:${e.data.transaction.uuid}`))
      .on('card.*', (e) => void calls.push(`card:${e.event}`))
      .on('order.completed', (e) => void calls.push(`order:${e.data.order_uuid}`));
    expect(await deliver(h, transactionEvent('card.transaction.captured', 1))).toMatchObject({ status: 200, outcome: 'handled' });
    expect(calls).toEqual([
      'exact:9d1c7a52-6b3e-4f10-8a2d-5e4c3b2a1f00',
      'wild:card.transaction.captured',
      'card:card.transaction.captured',
    ]);
    calls.length = 0;
    await deliver(h, orderCompleted(2));
    await deliver(h, cardFrozen(3));
    expect(calls).toEqual(['order:5f2b8c3d-1e4a-4b6c-8d9e-0f1a2b3c4d5e', 'card:card.frozen']);
  });

  it('checks the timestamp against its `now` option when given (a sandbox clock moved ahead)', async () => {
    const ahead = Date.now() + 3_600_000;
    const body = JSON.stringify(orderCompleted(4));
    const header = signPayload(body, SECRET, { timestamp: Math.floor(ahead / 1000) });
    expect(await make().on('order.completed', () => {}).handle(body, header)).toMatchObject({ status: 400, reason: 'timestamp_out_of_tolerance' });
    const shifted = make({ now: () => ahead }).on('order.completed', () => {});
    expect(await shifted.handle(body, header)).toMatchObject({ status: 200, outcome: 'handled' });
    expect(await make({ now: () => new Date(ahead) }).handle(body, header)).toMatchObject({ status: 200 });
    expect(() => make({ now: 1 as never })).toThrow(TypeError);
  });

  it('acknowledges an event code no handler covers through onUnknownEvent', async () => {
    const onUnknownEvent = vi.fn();
    const h = make({ onUnknownEvent }).on('order.completed', () => {});
    const novel = { event: 'card.limits_changed', event_id: 9, occurred_at: '2026-03-01T00:00:00Z', workspace_id: 42, data: { x: 1 } };
    expect(await deliver(h, novel)).toMatchObject({ status: 200, outcome: 'unknown_event' });
    expect(onUnknownEvent).toHaveBeenCalledWith(novel);
  });

  it('with knownEvents, acks known codes without handlers silently and keeps wildcards to known codes', async () => {
    const onUnknownEvent = vi.fn();
    const wild = vi.fn();
    const h = make({ onUnknownEvent, knownEvents: ['order.completed', 'order.failed', 'card.frozen'] }).on('card.*', wild);
    expect(await deliver(h, orderCompleted(1))).toMatchObject({ status: 200, outcome: 'ignored' });
    expect(await deliver(h, cardFrozen(2))).toMatchObject({ status: 200, outcome: 'handled' });
    const novel = { event: 'card.limits_changed', event_id: 3, occurred_at: '', workspace_id: 42, data: {} };
    expect(await deliver(h, novel)).toMatchObject({ status: 200, outcome: 'unknown_event' });
    expect(wild).toHaveBeenCalledTimes(1);
    expect(onUnknownEvent).toHaveBeenCalledTimes(1);
  });

  it('answers 400 with the reason for a bad signature, without running handlers', async () => {
    const handler = vi.fn();
    const h = make().on('order.completed', handler);
    const body = JSON.stringify(orderCompleted());
    expect(await h.handle(body, signPayload(body, 'whsec_wrong'))).toMatchObject({ status: 400, outcome: 'rejected', reason: 'no_matching_signature' });
    expect(await h.handle(body, undefined)).toMatchObject({ status: 400, reason: 'missing_header' });
    expect(handler).not.toHaveBeenCalled();
  });

  it('answers 500 when a handler throws, reports it, and does not mark the event as seen', async () => {
    const onError = vi.fn();
    const boom = new Error('db down');
    const handler = vi.fn().mockRejectedValueOnce(boom).mockResolvedValue(undefined);
    const h = make({ onError }).on('order.completed', handler);
    const failed = await deliver(h, orderCompleted(7));
    expect(failed).toMatchObject({ status: 500, outcome: 'failed', error: boom });
    expect(onError).toHaveBeenCalledWith(boom, orderCompleted(7));
    expect(await deliver(h, orderCompleted(7))).toMatchObject({ status: 200, outcome: 'handled' });
    expect(await deliver(h, orderCompleted(7))).toEqual({ status: 200, outcome: 'duplicate', event_id: 7 });
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('answers 500 when onUnknownEvent throws', async () => {
    const h = make({ onUnknownEvent: () => Promise.reject(new Error('nope')) });
    expect(await deliver(h, cardFrozen())).toMatchObject({ status: 500, outcome: 'failed' });
  });

  it('drops redeliveries by event_id, even re-signed with a new timestamp', async () => {
    const handler = vi.fn();
    const h = make().on('card.frozen', handler);
    const body = JSON.stringify(cardFrozen(5));
    const now = Math.floor(Date.now() / 1000);
    expect((await h.handle(body, signPayload(body, SECRET, { timestamp: now - 100 }))).outcome).toBe('handled');
    expect(await h.handle(body, signPayload(body, SECRET, { timestamp: now }))).toEqual({ status: 200, outcome: 'duplicate', event_id: 5 });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('runs the handler once for concurrent deliveries of one event_id', async () => {
    const gate = deferred();
    const handler = vi.fn(() => gate.promise);
    const h = make().on('order.completed', handler);
    // Order events are emitted right after verification: once three are seen, every delivery is in the dispatcher.
    let verified = 0;
    h.orderEvents().subscribe(() => void (verified += 1));
    const results = Promise.all([deliver(h, orderCompleted(11)), deliver(h, orderCompleted(11)), deliver(h, orderCompleted(11))]);
    await until(() => verified === 3, 'three verified deliveries');
    gate.resolve();
    const outcomes = (await results).map((r) => r.outcome).sort();
    expect(outcomes).toEqual(['duplicate', 'duplicate', 'handled']);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('fails concurrent duplicates with the first delivery when it fails, so both are retried', async () => {
    const gate = deferred();
    const handler = vi.fn(async () => {
      await gate.promise;
      throw new Error('fail');
    });
    const h = make().on('order.completed', handler);
    let verified = 0;
    h.orderEvents().subscribe(() => void (verified += 1));
    const results = Promise.all([deliver(h, orderCompleted(12)), deliver(h, orderCompleted(12))]);
    // Both verifications must finish (WebCrypto resolves off the main thread) before the first fails.
    await until(() => verified === 2, 'two verified deliveries');
    gate.resolve();
    expect((await results).map((r) => r.status)).toEqual([500, 500]);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('answers 409 when another worker holds the claim in a shared store', async () => {
    const store: DedupeStore = { claim: async () => 'in_flight' as const, commit: vi.fn(), release: vi.fn() };
    const handler = vi.fn();
    const h = make({ dedupe: store }).on('card.frozen', handler);
    expect(await deliver(h, cardFrozen(4))).toEqual({ status: 409, outcome: 'in_flight', event_id: 4 });
    expect(handler).not.toHaveBeenCalled();
  });

  it('commits after success and releases after failure through an async store', async () => {
    const calls: string[] = [];
    const store: DedupeStore = {
      claim: async (id, lease) => (calls.push(`claim:${id}:${lease}`), 'claimed' as const),
      commit: async (id) => void calls.push(`commit:${id}`),
      release: async (id) => void calls.push(`release:${id}`),
    };
    const h = make({ dedupe: store, leaseMs: 5000 })
      .on('card.frozen', () => {})
      .on('order.completed', () => {
        throw new Error('x');
      });
    await deliver(h, cardFrozen(1));
    await deliver(h, orderCompleted(2));
    expect(calls).toEqual(['claim:1:5000', 'commit:1', 'claim:2:5000', 'release:2']);
  });

  it('answers 500 when the store fails, so the delivery is retried', async () => {
    const broken = (at: 'claim' | 'commit'): DedupeStore => ({
      claim: async () => {
        if (at === 'claim') throw new Error('redis down');
        return 'claimed' as const;
      },
      commit: async () => {
        throw new Error('redis down');
      },
      release: () => {},
    });
    expect((await deliver(make({ dedupe: broken('claim') }), cardFrozen())).status).toBe(500);
    expect((await deliver(make({ dedupe: broken('commit') }), cardFrozen())).status).toBe(500);
  });

  it('runs every delivery when deduplication is off', async () => {
    const handler = vi.fn();
    const h = make({ dedupe: false }).on('card.frozen', handler);
    await deliver(h, cardFrozen(1));
    await deliver(h, cardFrozen(1));
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('feeds orderEvents with every verified order event, duplicates included, until unsubscribed', async () => {
    const h = make().on('order.completed', () => {});
    const seen: OrderEvent[] = [];
    const unsubscribe = h.orderEvents().subscribe((e) => seen.push(e));
    h.orderEvents().subscribe(() => {
      throw new Error('a broken waiter');
    });
    const failed = { event: 'order.failed', event_id: 21, occurred_at: '', workspace_id: 42, data: { order_uuid: 'o-2', failure_reason: 'timeout' } };
    expect((await deliver(h, orderCompleted(20, 'o-1'))).status).toBe(200);
    await deliver(h, orderCompleted(20, 'o-1'));
    await deliver(h, failed);
    await deliver(h, cardFrozen(22));
    const bad = orderCompleted(23, 'o-3');
    await h.handle(JSON.stringify(bad), signPayload(JSON.stringify(bad), 'whsec_wrong'));
    expect(seen.map((e) => [e.event, e.data.order_uuid])).toEqual([
      ['order.completed', 'o-1'],
      ['order.completed', 'o-1'],
      ['order.failed', 'o-2'],
    ]);
    unsubscribe();
    await deliver(h, orderCompleted(24, 'o-4'));
    expect(seen).toHaveLength(3);
  });

  it('refuses a missing onUnknownEvent or secret at construction', () => {
    expect(() => create({ secrets: SECRET } as WebhookHandlerOptions)).toThrow(/onUnknownEvent/);
    expect(() => create({ secrets: '', onUnknownEvent: () => {} })).toThrow(TypeError);
  });

  // Issue 31: an unset environment variable failed as "TypeError: Cannot read properties of undefined (reading 'length')".
  it.each([
    ['undefined (an unset environment variable)', undefined, /^createWebhookHandler: options\.secrets is missing: it is undefined \(an unset environment variable reads as undefined\); pass the endpoint's signing secret \(whsec_\.\.\.\)/],
    ['null', null, /^createWebhookHandler: options\.secrets is missing: it is null;/],
    ['an empty string', '', /^createWebhookHandler: options\.secrets is missing: it is an empty string/],
    ['an empty list', [], /^createWebhookHandler: options\.secrets is an empty list:/],
    ['a list with an unset one', [SECRET, undefined], /^createWebhookHandler: options\.secrets has no secret at index 1: it is undefined/],
    ['a number', 42, /^createWebhookHandler: options\.secrets is missing: it is a number;/],
  ])('says what is missing when the secret is %s, whatever else is missing too', (_name, secrets, message) => {
    expect(() => create({ secrets, onUnknownEvent: () => {} } as never)).toThrow(TypeError);
    expect(() => create({ secrets, onUnknownEvent: () => {} } as never)).toThrow(message);
    expect(() => create({ secrets } as never)).toThrow(message);
  });

  it('names its options when called without any', () => {
    expect(() => (create as (options?: unknown) => unknown)()).toThrow(new TypeError('createWebhookHandler needs its options: { secrets, onUnknownEvent }'));
  });
});

describe('createMemoryDedupeStore', () => {
  it('forgets handled ids after the TTL and lets a stale claim lapse after its lease', () => {
    let now = 1_000;
    const store = createMemoryDedupeStore({ ttlMs: 100, now: () => now });
    expect(store.claim(1, 50)).toBe('claimed');
    expect(store.claim(1, 50)).toBe('in_flight');
    now += 51;
    expect(store.claim(1, 50)).toBe('claimed');
    store.commit(1);
    expect(store.claim(1, 50)).toBe('duplicate');
    now += 101;
    expect(store.claim(1, 50)).toBe('claimed');
    store.release(1);
    expect(store.claim(1, 50)).toBe('claimed');
  });

  it('keeps at most maxEntries ids, forgetting the oldest first', () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (const id of [1, 2, 3, 4]) {
      store.claim(id, 1000);
      store.commit(id);
    }
    // Duplicates first: a fresh claim writes an entry and would evict the next oldest.
    expect([4, 3, 2].map((id) => store.claim(id, 1000))).toEqual(['duplicate', 'duplicate', 'duplicate']);
    expect(store.claim(1, 1000)).toBe('claimed');
  });
});
