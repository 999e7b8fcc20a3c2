import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClientCore, type ClientOptions, type OperationDescriptor } from './core.js';
import {
  ApiConnectionError,
  ApiError,
  AuthenticationError,
  CardApiError,
  ConflictError,
  InsufficientBalanceError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  TimeoutError,
  ValidationError,
} from './errors.js';
import { sleep, type Sleep } from './retry.js';

const TOKEN = 'live_sk_s3cr3tT0kenValue';
const BASE = 'https://api.example.test/api/v1';
const CARD = '7d0e2a56-3b1f-4c8e-9a6d-2f5b8c1e4a90';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const getCard = { method: 'get', path: '/cards/{uuid}', write: false } as const satisfies OperationDescriptor;
const createCard = { method: 'post', path: '/cards', write: true } as const satisfies OperationDescriptor;
const freezeCard = { method: 'post', path: '/cards/{uuid}/freeze', write: true } as const satisfies OperationDescriptor;
const listProducts = { method: 'get', path: '/card-products', write: false } as const satisfies OperationDescriptor;

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}
type Reply = Response | Error | ((req: Request) => Response | Promise<Response>);

/** A fetch that answers from a script (the last entry repeats) and records every request. */
function scripted(...replies: Reply[]) {
  const seen: Seen[] = [];
  const fetch = async (req: Request): Promise<Response> => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body: await req.text() });
    const reply = replies[Math.min(seen.length - 1, replies.length - 1)];
    if (reply instanceof Error) throw reply;
    if (typeof reply === 'function') return reply(req);
    return (reply as Response).clone();
  };
  return { fetch, seen };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function d2(status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers = {}): Response {
  return json(status, { error: { code, message, request_id: 'req_body', ...extra } }, headers);
}

const ORDER = { uuid: 'b3c1f0aa-1111-4222-8333-944455556666', type: 'issue_card', status: 'pending', related_card_uuid: null, held_amount: '51.00', currency: 'USD', created_at: '2026-01-01T00:00:00Z' };
const CARD_BODY = { uuid: CARD, status: 'active', card_balance: '10.00' };

function core(fetch: ClientOptions['fetch'], extra: Partial<ClientOptions> = {}) {
  const sleeps: number[] = [];
  const c = new ClientCore({
    token: TOKEN,
    baseUrl: BASE,
    fetch,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...extra,
  });
  return { c, sleeps };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

describe('ClientCore options', () => {
  it.each([
    ['missing token', { baseUrl: BASE }, /token is required/],
    ['blank token', { token: '  ', baseUrl: BASE }, /token is required/],
    ['token with a newline', { token: `${TOKEN}\n`, baseUrl: BASE }, /whitespace or control/],
    ['relative baseUrl', { token: TOKEN, baseUrl: '/api/v1' }, /absolute http\(s\) URL/],
    ['ftp baseUrl', { token: TOKEN, baseUrl: 'ftp://x.test/api/v1' }, /http or https, got ftp:/],
    ['baseUrl with a query', { token: TOKEN, baseUrl: `${BASE}?x=1` }, /plain API root/],
    ['negative maxRetries', { token: TOKEN, baseUrl: BASE, maxRetries: -1 }, /maxRetries must be an integer >= 0/],
    ['zero timeout', { token: TOKEN, baseUrl: BASE, timeoutMs: 0 }, /timeoutMs must be an integer >= 1/],
  ])('rejects %s with a clear message that never shows the token', (_name, options, message) => {
    let thrown: unknown;
    try {
      new ClientCore(options as ClientOptions);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain(TOKEN);
  });

  it('keeps the token out of inspect and JSON of the core itself', () => {
    const { c } = core(scripted(json(200, {})).fetch);
    expect(inspect(c, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(c)).not.toContain(TOKEN);
  });
});

describe('ClientCore.request', () => {
  it('sends auth, accept and user-agent headers and unwraps { data } with a hidden lastResponse', async () => {
    const { fetch, seen } = scripted(json(200, { data: CARD_BODY }, { 'x-request-id': 'req_1', 'x-ratelimit-remaining': '59' }));
    const { c } = core(fetch, { userAgent: 'acme/1.0' });
    const card = await c.request<typeof CARD_BODY>(getCard, { path: { uuid: CARD } });

    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe('GET');
    expect(seen[0]!.url).toBe(`${BASE}/cards/${CARD}`);
    expect(seen[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(seen[0]!.headers.get('accept')).toBe('application/json');
    expect(seen[0]!.headers.get('user-agent')).toMatch(/^acme\/1\.0 card-api-kit-client\/\d/);
    expect(seen[0]!.headers.has('x-idempotency-key')).toBe(false);

    expect(card).toEqual(CARD_BODY);
    expect(JSON.stringify(card)).toBe(JSON.stringify(CARD_BODY));
    expect(Object.keys(card)).not.toContain('lastResponse');
    expect(card.lastResponse).toMatchObject({ status: 200, requestId: 'req_1', idempotencyKey: null, attempts: 1 });
    expect(card.lastResponse.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('percent-encodes path parameters and refuses an empty one', async () => {
    const { fetch, seen } = scripted(json(200, { data: CARD_BODY }));
    const { c } = core(fetch);
    await c.request(getCard, { path: { uuid: 'a b%c.d..e' } });
    expect(seen[0]!.url).toBe(`${BASE}/cards/a%20b%25c.d..e`);
    await expect(c.request(getCard, { path: { uuid: '' } })).rejects.toThrow(/path parameter uuid must not be empty/);
    expect(seen).toHaveLength(1);
  });

  // Issue 31: `cards.get('..')` was `GET /api/v1/`, `cards.freeze('.')` was `POST /api/v1/cards/freeze`.
  it.each(['.', '..', '%2e', '%2E%2e', '.%2E', 'a/b', 'a%2Fb', 'a\\b', 'a?b', 'a#b', '%3F', 'a\udc00'])('refuses the path parameter %j and sends nothing', async (uuid) => {
    const { fetch, seen } = scripted(json(200, { data: CARD_BODY }));
    const { c } = core(fetch);
    await expect(c.request(getCard, { path: { uuid } })).rejects.toThrow(/^path parameter uuid must (not )?be .+; no request was sent$/);
    await expect(c.request(freezeCard, { path: { uuid }, body: {} })).rejects.toThrow(TypeError);
    expect(seen).toHaveLength(0);
  });

  it('sends every path parameter it accepts to its own route, as one segment that decodes to the value', async () => {
    const { fetch, seen } = scripted(json(200, { data: CARD_BODY }));
    const { c } = core(fetch);
    const unit = fc.oneof(fc.constantFrom('.', '%', '2', 'e', 'E', 'f', 'F', '/', '\\', '?', '#', 'a', ' ', '\ud800'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, maxLength: 8 }), async (uuid) => {
        const before = seen.length;
        const sent = await c.request(getCard, { path: { uuid } }).then(
          () => true,
          (error: unknown) => {
            expect(error).toBeInstanceOf(TypeError);
            return false;
          },
        );
        expect(seen.length).toBe(before + (sent ? 1 : 0));
        if (!sent) return;
        const { pathname } = new URL(seen.at(-1)!.url);
        const segments = pathname.split('/');
        expect(segments.slice(0, -1).join('/')).toBe('/api/v1/cards');
        expect(decodeURIComponent(segments.at(-1)!)).toBe(uuid);
      }),
      { numRuns: 500 },
    );
  });

  it('attaches lastResponse to array data too', async () => {
    const { c } = core(scripted(json(200, { data: [{ id: 1 }, { id: 2 }] })).fetch);
    const products = await c.request<Array<{ id: number }>>(listProducts);
    expect(Array.isArray(products)).toBe(true);
    expect(products).toEqual([{ id: 1 }, { id: 2 }]);
    expect(products.lastResponse.status).toBe(200);
  });

  it('sends a JSON body with Content-Type on writes', async () => {
    const { fetch, seen } = scripted(json(202, { data: ORDER }));
    const { c } = core(fetch);
    await c.request(createCard, { body: { card_product_id: 1, initial_topup_amount: '50.00' } });
    expect(seen[0]!.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ card_product_id: 1, initial_topup_amount: '50.00' });
  });

  it('rejects a success body that is not JSON with api.invalid_response, without retrying', async () => {
    const { fetch, seen } = scripted(new Response('<html>gateway</html>', { status: 200 }));
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 200, code: 'api.invalid_response' });
    expect(seen).toHaveLength(1);
  });
});

describe('idempotency', () => {
  it('sends the same generated key on both attempts of a write that meets a 503 then a 202', async () => {
    const { fetch, seen } = scripted(d2(503, 'api.internal_error', 'down'), json(202, { data: ORDER }));
    const { c, sleeps } = core(fetch);
    const order = await c.request<typeof ORDER>(createCard, { body: { card_product_id: 1 } });

    expect(seen).toHaveLength(2);
    const [first, second] = seen.map((s) => s.headers.get('x-idempotency-key'));
    expect(first).toMatch(UUID_V4);
    expect(second).toBe(first);
    expect(seen[1]!.body).toBe(seen[0]!.body);
    expect(order.lastResponse).toMatchObject({ status: 202, idempotencyKey: first, attempts: 2 });
    expect(sleeps).toHaveLength(1);
  });

  it('generates a fresh key per call', async () => {
    const { fetch, seen } = scripted(json(202, { data: ORDER }));
    const { c } = core(fetch);
    await c.request(createCard, { body: {} });
    await c.request(createCard, { body: {} });
    expect(seen[0]!.headers.get('x-idempotency-key')).not.toBe(seen[1]!.headers.get('x-idempotency-key'));
  });

  it("sends the caller's key, and puts it on the result and on errors", async () => {
    const { fetch, seen } = scripted(json(202, { data: ORDER }), d2(409, 'idempotency.key_reused', 'reused'));
    const { c } = core(fetch);
    const order = await c.request(freezeCard, { path: { uuid: CARD } }, { idempotencyKey: 'freeze-42' });
    expect(seen[0]!.headers.get('x-idempotency-key')).toBe('freeze-42');
    expect(order.lastResponse.idempotencyKey).toBe('freeze-42');

    const err = await rejection(c.request(freezeCard, { path: { uuid: CARD } }, { idempotencyKey: 'freeze-42' }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ code: 'idempotency.key_reused', idempotencyKey: 'freeze-42' });
  });

  it.each([
    ['empty', ''],
    ['with a space', 'a b'],
    ['non-ASCII', 'clé'],
    ['256 characters', 'k'.repeat(256)],
  ])('rejects a caller key that is %s before sending anything (D7)', async (_name, key) => {
    const { fetch, seen } = scripted(json(202, { data: ORDER }));
    await expect(core(fetch).c.request(createCard, { body: {} }, { idempotencyKey: key })).rejects.toThrow(TypeError);
    expect(seen).toHaveLength(0);
  });

  it('accepts a 255-character key of visible ASCII', async () => {
    const key = '!~'.repeat(127) + 'x';
    const { fetch, seen } = scripted(json(202, { data: ORDER }));
    await core(fetch).c.request(createCard, { body: {} }, { idempotencyKey: key });
    expect(seen[0]!.headers.get('x-idempotency-key')).toBe(key);
  });

  it('never sends a key on reads', async () => {
    const { fetch, seen } = scripted(d2(503, 'api.internal_error', 'down'), json(200, { data: CARD_BODY }));
    await core(fetch).c.request(getCard, { path: { uuid: CARD } });
    expect(seen.map((s) => s.headers.has('x-idempotency-key'))).toEqual([false, false]);
  });
});

describe('retries', () => {
  it('waits with full-jitter back-off from the injected random source', async () => {
    const { fetch, seen } = scripted(d2(500, 'api.internal_error', 'x'), d2(502, 'api.internal_error', 'x'), json(200, { data: {} }));
    const { c, sleeps } = core(fetch, { random: () => 0.5 });
    const result = await c.request(getCard, { path: { uuid: CARD } });
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([250, 500]); // 0.5 * 500, 0.5 * 1000
    expect(result.lastResponse.attempts).toBe(3);
  });

  it('gives up after maxRetries (default 2: three attempts) with the last error', async () => {
    const { fetch, seen } = scripted(d2(503, 'api.internal_error', 'still down', {}, { 'x-request-id': 'req_9' }));
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }));
    expect(seen).toHaveLength(3);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 503, code: 'api.internal_error', attempts: 3, requestId: 'req_9' });
  });

  it('takes maxRetries per call and per client', async () => {
    const a = scripted(d2(500, 'api.internal_error', 'x'));
    await rejection(core(a.fetch).c.request(getCard, { path: { uuid: CARD } }, { maxRetries: 0 }));
    expect(a.seen).toHaveLength(1);
    const b = scripted(d2(500, 'api.internal_error', 'x'));
    await rejection(core(b.fetch, { maxRetries: 4 }).c.request(getCard, { path: { uuid: CARD } }));
    expect(b.seen).toHaveLength(5);
  });

  it('honours Retry-After in seconds', async () => {
    const { fetch } = scripted(d2(429, 'api.rate_limited', 'slow down', {}, { 'retry-after': '3' }), json(200, { data: {} }));
    const { c, sleeps } = core(fetch);
    await c.request(getCard, { path: { uuid: CARD } });
    expect(sleeps).toEqual([3000]);
  });

  it('honours Retry-After as an HTTP date against the injected clock', async () => {
    const now = Date.parse('2026-03-01T12:00:00Z');
    const { fetch } = scripted(d2(503, 'api.internal_error', 'x', {}, { 'retry-after': 'Sun, 01 Mar 2026 12:00:05 GMT' }), json(200, { data: {} }));
    const { c, sleeps } = core(fetch, { now: () => now });
    await c.request(getCard, { path: { uuid: CARD } });
    expect(sleeps).toEqual([5000]);
  });

  it('does not wait for a Retry-After beyond 60 s: it throws RateLimitError with retryAfter', async () => {
    const { fetch, seen } = scripted(d2(429, 'api.rate_limited', 'slow down', {}, { 'retry-after': '120' }));
    const { c, sleeps } = core(fetch);
    const err = await rejection(c.request(getCard, { path: { uuid: CARD } }));
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'api.rate_limited', retryAfter: 120, attempts: 1 });
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries 408 and 429', async () => {
    const { fetch, seen } = scripted(json(408, {}), d2(429, 'api.rate_limited', 'x'), json(200, { data: {} }));
    await core(fetch).c.request(getCard, { path: { uuid: CARD } });
    expect(seen).toHaveLength(3);
  });

  it.each([400, 401, 402, 403, 404, 409, 422])('never retries %i', async (status) => {
    const { fetch, seen } = scripted(d2(status, 'x.y', 'no'), json(200, { data: {} }));
    const { c, sleeps } = core(fetch);
    const err = await rejection(c.request(createCard, { body: {} }));
    expect(err).toBeInstanceOf(CardApiError);
    expect((err as CardApiError).status).toBe(status);
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries a network error, then succeeds', async () => {
    const { fetch, seen } = scripted(new TypeError('fetch failed'), json(202, { data: ORDER }));
    const order = await core(fetch).c.request(createCard, { body: {} });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers.get('x-idempotency-key')).toBe(seen[1]!.headers.get('x-idempotency-key'));
    expect(order.lastResponse.attempts).toBe(2);
  });

  it('reports ApiConnectionError once network retries are spent', async () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    const { fetch, seen } = scripted(new TypeError('fetch failed', { cause }));
    const err = await rejection(core(fetch).c.request(createCard, { body: {} }));
    expect(seen).toHaveLength(3);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err).toMatchObject({ status: undefined, code: 'client.connection_error', attempts: 3 });
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect((err as Error).cause).toMatchObject({ name: 'TypeError', code: 'ECONNREFUSED' });
    expect((err as CardApiError).idempotencyKey).toMatch(UUID_V4);
  });
});

describe('timeouts and cancellation', () => {
  const never = (): Promise<Response> => new Promise<Response>(() => {});

  /** A 200 whose body sends a first chunk and then stalls for ever. */
  function stalledBody(): Response {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"data":{"uuid":'));
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } });
  }

  it('times out an attempt whose response never arrives', async () => {
    const { fetch } = scripted(never);
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }, { timeoutMs: 20, maxRetries: 0 }));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: 'client.timeout', attempts: 1 });
  });

  it('times out while the body is still being read', async () => {
    const { fetch } = scripted(stalledBody);
    // The body never ends: only the deadline can settle this call (a hang fails by the test timeout).
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }, { timeoutMs: 30, maxRetries: 0 }));
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('retries a timed-out write with the same key', async () => {
    const { fetch, seen } = scripted(stalledBody, json(202, { data: ORDER }));
    const order = await core(fetch, { timeoutMs: 30 }).c.request(createCard, { body: {} });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers.get('x-idempotency-key')).toBe(seen[0]!.headers.get('x-idempotency-key'));
    expect(order.lastResponse.attempts).toBe(2);
  });

  it("rejects with the caller's reason when the signal aborts mid-request, without retrying", async () => {
    const { fetch, seen } = scripted(never);
    const ac = new AbortController();
    const reason = new Error('user navigated away');
    const p = core(fetch).c.request(getCard, { path: { uuid: CARD } }, { signal: ac.signal });
    setTimeout(() => ac.abort(reason), 10);
    expect(await rejection(p)).toBe(reason);
    expect(seen).toHaveLength(1);
  });

  it('rejects with an AbortError while the body is being read', async () => {
    const { fetch } = scripted(stalledBody);
    const ac = new AbortController();
    const p = core(fetch).c.request(getCard, { path: { uuid: CARD } }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 10);
    const err = await rejection(p);
    expect(err).toBeInstanceOf(DOMException);
    expect((err as DOMException).name).toBe('AbortError');
  });

  it('stops during the back-off wait when the signal aborts', async () => {
    const { fetch, seen } = scripted(d2(503, 'api.internal_error', 'x'));
    // The real sleep, stretched to 10 minutes and aborted once it has started: only the signal can end it
    // (a back-off that ignored the signal would outlast the test timeout), so no clock is read here.
    const ac = new AbortController();
    const waits: number[] = [];
    const longSleepThenAbort: Sleep = (ms, signal) => {
      waits.push(ms);
      const pending = sleep(600_000, signal);
      ac.abort(new Error('stop'));
      return pending;
    };
    const c = new ClientCore({ token: TOKEN, baseUrl: BASE, fetch, random: () => 0.9999, maxRetries: 5, sleep: longSleepThenAbort });
    const p = c.request(getCard, { path: { uuid: CARD } }, { signal: ac.signal });
    expect(await rejection(p)).toMatchObject({ message: 'stop' });
    expect(waits).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });

  it('does not call fetch when the signal is already aborted', async () => {
    const { fetch, seen } = scripted(json(200, { data: {} }));
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }, { signal: AbortSignal.abort() }));
    expect((err as DOMException).name).toBe('AbortError');
    expect(seen).toHaveLength(0);
  });

  it('detaches its own listener from a long-lived caller signal after each call', async () => {
    const ac = new AbortController();
    const signal = ac.signal;
    // undici links every Request to the signal too and unlinks it only on GC, so count ours by name.
    const ours = new Set<unknown>();
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((type: string, listener: EventListener, opts?: AddEventListenerOptions) => {
      if (listener.name === 'onAbort') ours.add(listener);
      add(type, listener, opts);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((type: string, listener: EventListener) => {
      ours.delete(listener);
      remove(type, listener);
    }) as typeof signal.removeEventListener;
    const { c } = core(scripted(d2(500, 'api.internal_error', 'x'), json(200, { data: {} })).fetch);
    await c.request(getCard, { path: { uuid: CARD } }, { signal });
    await c.request(getCard, { path: { uuid: CARD } }, { signal });
    expect(ours.size).toBe(0);
  });

  it('cancels a stalled body stream at the deadline, which closes the connection', async () => {
    let cancelled = false;
    const stalled = (): Response =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"data":'));
          },
          cancel() {
            cancelled = true;
          },
        }),
        { status: 200 },
      );
    await rejection(core(scripted(stalled).fetch).c.request(getCard, { path: { uuid: CARD } }, { timeoutMs: 20, maxRetries: 0 }));
    expect(cancelled).toBe(true);
  });

  it('cancels the body of a response that arrives after the deadline', async () => {
    let cancelled = false;
    let release!: () => void;
    const late = new Promise<void>((r) => (release = r));
    const fetch = async (): Promise<Response> => {
      await late;
      return new Response(new ReadableStream({ cancel: () => void (cancelled = true) }), { status: 200 });
    };
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }, { timeoutMs: 10, maxRetries: 0 }));
    expect(err).toBeInstanceOf(TimeoutError);
    release();
    // The late body is cancelled on arrival; poll for it (bounded) rather than trusting one fixed sleep.
    for (let i = 0; i < 1000 && !cancelled; i++) await new Promise((r) => setTimeout(r, 1));
    expect(cancelled).toBe(true);
  });

  it('puts the caller signal on the Request so fetch can cut the connection', async () => {
    const ac = new AbortController();
    let seenSignal: AbortSignal | undefined;
    const fetch = async (req: Request): Promise<Response> => {
      seenSignal = req.signal;
      return json(200, { data: {} });
    };
    await core(fetch).c.request(getCard, { path: { uuid: CARD } }, { signal: ac.signal });
    ac.abort();
    expect(seenSignal?.aborted).toBe(true);
  });
});

describe('error mapping', () => {
  const cases: Array<[number, Response, new (...args: never[]) => CardApiError, Record<string, unknown>]> = [
    [401, d2(401, 'api.unauthenticated', 'Unauthenticated.'), AuthenticationError, { code: 'api.unauthenticated', requestId: 'req_body' }],
    [402, d2(402, 'wallet.insufficient_balance', 'Insufficient balance'), InsufficientBalanceError, { code: 'wallet.insufficient_balance' }],
    [403, d2(403, 'api.insufficient_ability', 'Missing cards.write'), PermissionError, { code: 'api.insufficient_ability', message: 'Missing cards.write' }],
    [403, d2(403, 'api.workspace_inactive', 'Workspace frozen'), PermissionError, { code: 'api.workspace_inactive' }],
    [404, d2(404, 'card.not_found', 'Card not found', {}, { 'x-request-id': 'req_hdr' }), NotFoundError, { code: 'card.not_found', requestId: 'req_hdr' }],
    [409, d2(409, 'card.state_conflict', 'Card is already frozen'), ConflictError, { code: 'card.state_conflict' }],
    [
      422,
      d2(422, 'validation.failed', 'The given data was invalid.', { errors: { 'billing_address.country': ['Must be 2 letters.'], initial_topup_amount: ['Below the minimum.'] } }),
      ValidationError,
      { code: 'validation.failed', fieldErrors: { 'billing_address.country': ['Must be 2 letters.'], initial_topup_amount: ['Below the minimum.'] } },
    ],
    [422, d2(422, 'card_product.unavailable', 'Not available'), ValidationError, { code: 'card_product.unavailable', fieldErrors: {} }],
    [429, d2(429, 'api.rate_limited', 'Too Many Attempts.', {}, { 'retry-after': '7' }), RateLimitError, { code: 'api.rate_limited', retryAfter: 7, attempts: 3 }],
    [400, d2(400, 'api.bad_request', 'Malformed JSON'), ApiError, { code: 'api.bad_request' }],
    [500, d2(500, 'api.internal_error', 'Server Error'), ApiError, { code: 'api.internal_error', attempts: 3 }],
  ];

  it.each(cases)('maps %i to its class with code, message and request id', async (status, response, Class, fields) => {
    const err = await rejection(core(scripted(response).fetch).c.request(createCard, { body: {} }));
    expect(err).toBeInstanceOf(Class);
    expect(err).toBeInstanceOf(CardApiError);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ status, ...fields });
    expect((err as Error).name).toBe(Class.name);
    expect((err as CardApiError).headers).toBeInstanceOf(Headers);
    expect((err as CardApiError).idempotencyKey).toMatch(UUID_V4);
  });

  it('falls back to the status text for a non-JSON error body', async () => {
    const response = new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' });
    const err = await rejection(core(scripted(response).fetch).c.request(getCard, { path: { uuid: CARD } }, { maxRetries: 0 }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, code: 'api.internal_error', message: 'Bad Gateway', requestId: null });
  });

  it('reads a flat Laravel-style body and an empty body', async () => {
    const flat = json(422, { message: 'The name field is required.', errors: { cardholder_first_name: ['Required.'] } });
    const err = await rejection(core(scripted(flat).fetch).c.request(createCard, { body: {} }));
    expect(err).toMatchObject({ code: 'validation.failed', message: 'The name field is required.', fieldErrors: { cardholder_first_name: ['Required.'] } });

    const empty = new Response(null, { status: 404, statusText: 'Not Found' });
    const err2 = await rejection(core(scripted(empty).fetch).c.request(getCard, { path: { uuid: CARD } }));
    expect(err2).toBeInstanceOf(NotFoundError);
    expect(err2).toMatchObject({ code: 'api.not_found', message: 'Not Found' });
  });
});

describe('the token never leaks into errors', () => {
  function leakCheck(err: unknown): void {
    const e = err as CardApiError;
    expect(String(e)).not.toContain(TOKEN);
    expect(e.message).not.toContain(TOKEN);
    expect(e.stack ?? '').not.toContain(TOKEN);
    expect(JSON.stringify(e)).not.toContain(TOKEN);
    expect(inspect(e, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    for (const value of Object.values(e)) expect(inspect(value, { depth: 10 })).not.toContain(TOKEN);
  }

  it('in an error whose server message echoes the token', async () => {
    const { fetch } = scripted(d2(401, 'api.unauthenticated', `Token ${TOKEN} is revoked`));
    const err = await rejection(core(fetch).c.request(getCard, { path: { uuid: CARD } }));
    expect((err as Error).message).toBe('Token [REDACTED] is revoked');
    leakCheck(err);
  });

  it('in a connection error whose cause holds the request', async () => {
    const fetch = async (req: Request): Promise<Response> => {
      throw Object.assign(new TypeError(`proxy refused ${req.headers.get('authorization')}`), { request: req });
    };
    const err = await rejection(core(fetch).c.request(createCard, { body: {} }));
    expect(err).toBeInstanceOf(ApiConnectionError);
    leakCheck(err);
  });

  it('in every error class', async () => {
    for (const [status, reply] of [
      [401, d2(401, 'api.unauthenticated', 'x')],
      [403, d2(403, 'api.ip_not_allowed', 'x')],
      [422, d2(422, 'validation.failed', 'x', { errors: { a: ['b'] } })],
      [429, d2(429, 'api.rate_limited', 'x', {}, { 'retry-after': '999' })],
      [500, new Response(`oops ${TOKEN}`, { status: 500 })],
    ] as const) {
      const err = await rejection(core(scripted(reply).fetch).c.request(getCard, { path: { uuid: CARD } }));
      expect((err as CardApiError).status).toBe(status);
      leakCheck(err);
    }
    leakCheck(await rejection(core(scripted(() => new Promise<Response>(() => {})).fetch).c.request(getCard, { path: { uuid: CARD } }, { timeoutMs: 5, maxRetries: 0 })));
  });
});
