/**
 * The webhook runtime's bounds: the WebCrypto path computes one HMAC per secret whatever the number of `v1`
 * entries, a header may carry at most 16 of them, the fetch adapter refuses bodies over `maxBodyBytes`, and
 * the default dedupe store remembers for 24 h (within a memory bound) and falls back to the business uuid
 * when an event has no numeric `event_id` (D38).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cardFrozen, orderCompleted, transactionEvent, type TestEvent } from './__fixtures__/events.js';
import { toFetchHandler } from './adapters/fetch.js';
import { createMemoryDedupeStore, DEDUPE_WINDOW_MS, dedupeKey } from './dedupe.js';
import { createWebhookHandler as createNodeHandler } from './handler.js';
import { createWebhookHandler as createWebHandler } from './handler-web.js';
import { MAX_SIGNATURE_HEADER_LENGTH, MAX_SIGNATURES, parseSignatureHeader } from './header.js';
import { constructEvent, signPayload } from './signature.js';
import { constructEventAsync } from './signature-web.js';

const SECRET = 'whsec_bounds';
const WRONG = 'ab'.repeat(32);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('signature header bounds', () => {
  const body = JSON.stringify(orderCompleted(1));
  const header = signPayload(body, SECRET);
  const [tPart, v1Part] = header.split(',') as [string, string];

  it('accepts up to 16 v1 entries, the right one last', async () => {
    const many = [tPart, ...Array.from({ length: MAX_SIGNATURES - 1 }, () => `v1=${WRONG}`), v1Part].join(',');
    expect(constructEvent(body, many, SECRET).event_id).toBe(1);
    expect((await constructEventAsync(body, many, SECRET)).event_id).toBe(1);
  });

  it('refuses a header with more than 16 v1 entries as malformed, before any HMAC', async () => {
    const flood = [tPart, ...Array.from({ length: MAX_SIGNATURES }, () => `v1=${WRONG}`), v1Part].join(',');
    expect(() => parseSignatureHeader(flood)).toThrow(/more than 16 v1 signatures/);
    const sign = vi.spyOn(crypto.subtle, 'sign');
    await expect(constructEventAsync(body, flood, SECRET)).rejects.toMatchObject({ reason: 'malformed_header' });
    expect(sign).not.toHaveBeenCalled();
  });

  // Issue 31: a 10 MB header took 3.2 s of CPU to parse, before any HMAC.
  it('accepts a header of the longest length allowed: 16 v1 entries, a future scheme and spaces', async () => {
    const sixteen = [tPart, ...Array.from({ length: MAX_SIGNATURES - 1 }, () => ` v1 = ${WRONG} `), v1Part].join(',');
    const padded = `${sixteen},v2=${'x'.repeat(MAX_SIGNATURE_HEADER_LENGTH - sixteen.length - ',v2='.length)}`;
    expect(padded).toHaveLength(MAX_SIGNATURE_HEADER_LENGTH);
    expect(constructEvent(body, padded, SECRET).event_id).toBe(1);
    expect((await constructEventAsync(body, padded, SECRET)).event_id).toBe(1);
    expect(() => parseSignatureHeader(`${padded} `)).toThrow(new RegExp(`malformed \\(${MAX_SIGNATURE_HEADER_LENGTH + 1} characters, more than the ${MAX_SIGNATURE_HEADER_LENGTH}`));
  });

  it.each([
    ['one character too long', () => `${header},v2=${'x'.repeat(MAX_SIGNATURE_HEADER_LENGTH - header.length - ',v2='.length + 1)}`],
    ['10 MB of v1 entries', () => `${header}${`,v1=${WRONG}`.repeat(Math.ceil(10_000_000 / 68))}`],
    ['10 MB of commas', () => `${header}${','.repeat(10_000_000)}`],
  ])('refuses a header %s as malformed before splitting it or any HMAC, on both paths', async (_name, make) => {
    const long = make();
    const split = vi.spyOn(String.prototype, 'split');
    const sign = vi.spyOn(crypto.subtle, 'sign');
    expect(() => constructEvent(body, long, SECRET)).toThrow(expect.objectContaining({ reason: 'malformed_header' }));
    await expect(constructEventAsync(body, long, SECRET)).rejects.toMatchObject({ reason: 'malformed_header', message: expect.stringContaining(`more than the ${MAX_SIGNATURE_HEADER_LENGTH}`) });
    expect(split.mock.contexts.some((s) => String(s).length > MAX_SIGNATURE_HEADER_LENGTH)).toBe(false);
    expect(sign).not.toHaveBeenCalled();
  });

  it('computes one HMAC per secret on the WebCrypto path, whatever the number of entries', async () => {
    const sign = vi.spyOn(crypto.subtle, 'sign');
    const verify = vi.spyOn(crypto.subtle, 'verify');
    const many = [tPart, ...Array.from({ length: MAX_SIGNATURES }, () => `v1=${WRONG}`)].join(',');
    await expect(constructEventAsync(body, many, [SECRET, 'whsec_other'])).rejects.toMatchObject({ reason: 'no_matching_signature' });
    expect(sign).toHaveBeenCalledTimes(2);
    expect(verify).not.toHaveBeenCalled();
  });
});

describe('toFetchHandler maxBodyBytes', () => {
  const h = () => createWebHandler<TestEvent>({ secrets: SECRET, onUnknownEvent: () => {} }).on('card.frozen', () => {});

  it('answers 413 above the limit, declared or streamed, as the Node adapter does', async () => {
    const body = JSON.stringify(cardFrozen(5));
    const handle = toFetchHandler(h(), { maxBodyBytes: body.length - 1 });
    const declared = await handle(new Request('http://x/', { method: 'POST', body, headers: { 'x-service-signature': signPayload(body, SECRET) } }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({ error: { code: 'payload_too_large', message: `Webhook body exceeds ${body.length - 1} bytes` } });

    // A stream without Content-Length is cut off once it passes the limit.
    const bytes = new TextEncoder().encode(body);
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 4) return controller.close();
        controller.enqueue(bytes);
        pulled += 1;
      },
    });
    const streamed = await handle(new Request('http://x/', { method: 'POST', body: stream, duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(4);
  });

  it('defaults to 1 MiB and verifies a body within it', async () => {
    const body = JSON.stringify(cardFrozen(6));
    const ok = await toFetchHandler(h())(new Request('http://x/', { method: 'POST', body, headers: { 'x-service-signature': signPayload(body, SECRET) } }));
    expect(ok.status).toBe(200);
    const big = `${' '.repeat(1_048_577)}`;
    expect((await toFetchHandler(h())(new Request('http://x/', { method: 'POST', body: big }))).status).toBe(413);
  });
});

describe('default dedupe window (D38)', () => {
  it('remembers a handled id for 24 h even after 20 000 later events, then forgets it', () => {
    let now = 0;
    const store = createMemoryDedupeStore({ now: () => now });
    for (let id = 1; id <= 20_001; id++) {
      expect(store.claim(id, 60_000)).toBe('claimed');
      store.commit(id);
    }
    now = DEDUPE_WINDOW_MS - 1;
    expect(store.claim(1, 60_000)).toBe('duplicate');
    now = DEDUPE_WINDOW_MS + 1;
    expect(store.claim(1, 60_000)).toBe('claimed');
  });

  it('stays within its memory bound', () => {
    const store = createMemoryDedupeStore({ maxEntries: 100, now: () => 0 });
    for (let id = 1; id <= 1000; id++) {
      store.claim(id, 60_000);
      store.commit(id);
    }
    expect(store.claim(1000, 60_000)).toBe('duplicate');
    expect(store.claim(1, 60_000)).toBe('claimed');
  });
});

describe('dedupeKey: the business uuid when there is no event_id (D38)', () => {
  const noId = <T extends { event_id?: unknown }>(event: T) => ({ ...event, event_id: undefined });

  it('uses event_id when numeric, else transaction.uuid, order_uuid, or card_uuid with the event time', () => {
    expect(dedupeKey(orderCompleted(7))).toBe(7);
    const txn = transactionEvent('card.transaction.captured', 1);
    expect(dedupeKey(noId(txn))).toBe(`card.transaction.captured:${txn.data.transaction.uuid}`);
    const order = orderCompleted(1);
    expect(dedupeKey(noId(order))).toBe(`order.completed:${order.data.order_uuid}`);
    const frozen = cardFrozen(1);
    expect(dedupeKey(noId(frozen))).toBe(`card.frozen:${frozen.data.card_uuid}:${frozen.data.frozen_at}`);
    expect(dedupeKey({ event: 'card.issued.secrets', workspace_id: 1, data: { card_uuid: 'c1', secrets_jwe: 'x' } } as never)).toBe('card.issued.secrets:c1');
    expect(dedupeKey({ event: 'something.new', data: { id: 1 } })).toBeNull();
    expect(dedupeKey({ event: 'order.completed', data: {} })).toBeNull();
  });

  it.each([
    ['node', createNodeHandler],
    ['web', createWebHandler],
  ] as const)('deduplicates events without an event_id on the %s path', async (_, create) => {
    const seen: string[] = [];
    const h = create<TestEvent>({ secrets: SECRET, onUnknownEvent: () => {} }).on('card.transaction.*', (e) => void seen.push(e.data.transaction.uuid));
    const body = JSON.stringify(noId(transactionEvent('card.transaction.authorized', 1)));
    const first = await h.handle(body, signPayload(body, SECRET));
    const again = await h.handle(body, signPayload(body, SECRET));
    expect(first).toMatchObject({ status: 200, outcome: 'handled' });
    expect(again).toMatchObject({ status: 200, outcome: 'duplicate', event_id: expect.stringMatching(/^card\.transaction\.authorized:/) });
    expect(seen).toHaveLength(1);
  });
});
