/**
 * The spec and the sandbox tell one story (issue 13): every request example of `spec/openapi.yaml` and
 * `spec/sandbox/control.yaml` succeeds against a fresh sandbox with an answer of the example's shape; the
 * spec's amount pattern and the sandbox agree on every string; what the control document allows the sandbox
 * accepts and what the sandbox refuses the document refuses or documents; `page` limits; the rate-limit
 * headers of every answer; the OpenAPI links chain an issue to its order and its card.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunningSandbox } from '@card-api/sandbox';
import { ROOT } from '../helpers/spec.js';
import { FAST_WAIT, clientFor, freshWorkspace, issueBody, parseBody, startTestSandbox, validator } from './support.js';

type Json = Record<string, any>;

const PUBLIC = parse(readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8')) as Json;
const CONTROL = parse(readFileSync(path.join(ROOT, 'spec/sandbox/control.yaml'), 'utf8')) as Json;

/** Follows a local `$ref` (`#/components/...`) inside `doc`, or into the public document for `../openapi.yaml#...`. */
function deref(doc: Json, node: Json): Json {
  let current = node;
  for (let i = 0; i < 10 && typeof current?.$ref === 'string'; i++) {
    const ref = current.$ref as string;
    const [file, pointer] = ref.startsWith('#') ? ['', ref.slice(1)] : ref.split('#') as [string, string];
    const target = file === '' ? doc : PUBLIC;
    current = pointer.split('/').slice(1).reduce((at: any, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], target);
  }
  return current;
}

/** One request example of one operation. */
interface RequestExample {
  spec: 'public' | 'control';
  operationId: string;
  method: string;
  route: string;
  name: string;
  body: unknown;
  /** Response examples of the operation by status, dereferenced. */
  responses: Record<string, unknown[]>;
}

function examplesOf(media: Json | undefined, doc: Json): Array<[string, unknown]> {
  if (!media) return [];
  const out: Array<[string, unknown]> = [];
  if ('example' in media) out.push(['example', media.example]);
  for (const [name, ex] of Object.entries((media.examples ?? {}) as Json)) out.push([name, deref(doc, ex as Json).value]);
  return out;
}

function requestExamples(doc: Json, spec: 'public' | 'control'): RequestExample[] {
  const out: RequestExample[] = [];
  for (const [route, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method) || !op.requestBody) continue;
      const body = deref(doc, op.requestBody);
      const responses: Record<string, unknown[]> = {};
      for (const [status, raw] of Object.entries((op.responses ?? {}) as Json)) {
        responses[status] = examplesOf(deref(doc, raw as Json).content?.['application/json'], doc).map(([, v]) => v);
      }
      for (const [name, value] of examplesOf(body.content?.['application/json'], doc)) out.push({ spec, operationId: op.operationId, method: method.toUpperCase(), route, name, body: value, responses });
    }
  }
  return out;
}

const EXAMPLES = [...requestExamples(PUBLIC, 'public'), ...requestExamples(CONTROL, 'control')];

/**
 * Whether `actual` has the shape of `example`: the same keys at every level, the same JSON types where both
 * are non-null (null stands for "nullable"), and array items of the shape of the example's first item.
 */
function shapeProblems(actual: unknown, example: unknown, at = '$'): string[] {
  if (example === null || actual === null) return [];
  if (Array.isArray(example)) {
    if (!Array.isArray(actual)) return [`${at}: array expected`];
    return example.length > 0 && actual.length > 0 ? shapeProblems(actual[0], example[0], `${at}[0]`) : [];
  }
  if (typeof example === 'object') {
    if (typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: object expected`];
    const a = Object.keys(actual as Json).sort();
    const e = Object.keys(example as Json).sort();
    const problems = [...e.filter((k) => !a.includes(k)).map((k) => `${at}.${k}: missing from the answer`), ...a.filter((k) => !e.includes(k)).map((k) => `${at}.${k}: not in the example`)];
    for (const k of e.filter((key) => a.includes(key))) problems.push(...shapeProblems((actual as Json)[k], (example as Json)[k], `${at}.${k}`));
    return problems;
  }
  return typeof actual === typeof example ? [] : [`${at}: ${typeof actual} where the example has ${typeof example}`];
}

let running: RunningSandbox;

/** One call on the sandbox: status, headers, parsed body. */
async function call(method: string, url: string, token: string | null, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: parseBody(await response.text()) };
}

beforeAll(async () => {
  running = await startTestSandbox({ sandboxOptions: { closeDelayMs: null } });
});
afterAll(async () => {
  await running?.close();
});

describe('every request example of the spec succeeds against a fresh sandbox (issue 13)', () => {
  /** A funded workspace and helpers over the public and control APIs. */
  const world = () => {
    const { token, workspaceId } = freshWorkspace(running.sandbox, `examples-${Math.abs(Date.now() % 1e9)}-${Math.random().toString(36).slice(2)}`, '100000.00');
    const client = clientFor(running.baseUrl, token);
    const control = (method: string, p: string, body?: unknown) => call(method, `${running.origin}${p}`, token, body);
    const activeCard = async (): Promise<string> => {
      const order = await client.cards.create(issueBody({ initial_topup_amount: '500.00' }));
      const done = await client.orders.wait(order.uuid, FAST_WAIT);
      return done.related_card_uuid!;
    };
    const authorized = async (amount = '50.00'): Promise<string> => {
      const card = await activeCard();
      const auth = await control('POST', `/sandbox/cards/${card}/authorizations`, { amount });
      expect(auth.status).toBe(201);
      return auth.body.data.supplier_txn_id as string;
    };
    const captured = async (): Promise<string> => {
      const id = await authorized();
      expect((await control('POST', `/sandbox/purchases/${id}/capture`, {})).status).toBe(201);
      return id;
    };
    return { token, workspaceId, client, control, activeCard, authorized, captured };
  };
  type World = ReturnType<typeof world>;

  /** What each operation with a request example needs first; returns the path parameters. */
  const PREPARE: Record<string, (w: World) => Promise<Record<string, string>>> = {
    createCard: async () => ({}),
    topupCard: async (w) => ({ uuid: await w.activeCard() }),
    freezeCard: async (w) => ({ uuid: await w.activeCard() }),
    unfreezeCard: async (w) => {
      const uuid = await w.activeCard();
      await w.client.orders.wait((await w.client.cards.freeze(uuid)).uuid, FAST_WAIT);
      return { uuid };
    },
    closeCard: async (w) => ({ uuid: await w.activeCard() }),
    createWorkspace: async () => ({}),
    updateWorkspace: async () => ({}),
    createToken: async () => ({}),
    createDeposit: async () => ({}),
    createWebhookEndpoint: async () => ({}),
    updateWebhookEndpoint: async (w) => {
      // A disabled endpoint: nothing is queued for the URL of the example, where nothing listens.
      const created = await w.control('POST', '/sandbox/webhook-endpoints', { url: 'http://127.0.0.1:9/nowhere' });
      expect((await w.control('DELETE', `/sandbox/webhook-endpoints/${created.body.data.id}`)).status).toBe(200);
      return { endpoint_id: String(created.body.data.id) };
    },
    simulateAuthorization: async (w) => ({ uuid: await w.activeCard() }),
    simulateDecline: async (w) => ({ uuid: await w.activeCard() }),
    simulateCapture: async (w) => ({ supplier_txn_id: await w.authorized() }),
    simulateRefund: async (w) => ({ supplier_txn_id: await w.captured() }),
    simulateChargeback: async (w) => ({ supplier_txn_id: await w.captured() }),
    simulateChargebackResolution: async (w) => {
      const id = await w.captured();
      expect((await w.control('POST', `/sandbox/purchases/${id}/chargeback`, {})).status).toBe(201);
      return { supplier_txn_id: id };
    },
    failNextOrder: async () => ({}),
    riskFreezeCard: async (w) => ({ uuid: await w.activeCard() }),
    applyRiskPenalty: async (w) => ({ uuid: await w.activeCard() }),
    advanceClock: async () => ({}),
    updateCardProduct: async () => ({ id: '2' }),
    resolveOrder: async (w) => {
      // An order awaiting the platform: a top-up whose supplier keeps timing out, past its retries (D42).
      const uuid = await w.activeCard();
      expect((await w.control('POST', '/sandbox/forced-failures', { card_uuid: uuid, failure_reason: 'timeout' })).status).toBe(201);
      const order = await w.client.cards.topup(uuid, { amount: '20.00' });
      expect((await w.control('POST', '/sandbox/clock/advance', { seconds: 600 })).status).toBe(200);
      expect((await w.client.orders.get(order.uuid)).status).toBe('awaiting_platform');
      return { uuid: order.uuid };
    },
    createStaffCard: async () => ({}),
    createWithdrawal: async () => ({}),
    updateWithdrawal: async (w) => ({ uuid: (await w.control('POST', '/sandbox/withdrawals', { amount: '10.00' })).body.data.uuid as string }),
    createSubscription: async () => ({}),
    createLedgerAdjustment: async () => ({}),
    createLedgerReversal: async (w) => ({ txn_group_id: (await w.control('POST', '/sandbox/ledger-adjustments', { direction: 'credit', amount: '1.00' })).body.data.txn_group_id as string }),
    updateWallet: async () => ({}),
    simulateUnmatched: async (w) => ({ uuid: await w.activeCard() }),
  };

  it('finds request examples in both documents', () => {
    expect(EXAMPLES.filter((e) => e.spec === 'public').map((e) => e.operationId).sort()).toEqual(['closeCard', 'createCard', 'freezeCard', 'topupCard', 'unfreezeCard']);
    expect(EXAMPLES.filter((e) => e.spec === 'control').length).toBeGreaterThanOrEqual(15);
  });

  it.each(EXAMPLES.map((e) => [`${e.spec} ${e.operationId} (${e.name})`, e] as const))('%s', async (_name, example) => {
    const prepare = PREPARE[example.operationId];
    expect(prepare, `no preparation for ${example.operationId}: add one so that its example is replayed`).toBeDefined();
    const w = world();
    const params = await prepare!(w);
    const route = example.route.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(params[name] ?? `missing-${name}`));
    const url = example.spec === 'public' ? `${running.baseUrl}${route}` : `${running.origin}${route}`;
    const answer = await call(example.method, url, w.token, example.body);
    if (example.operationId === 'createWebhookEndpoint' && answer.status === 201) {
      // Nothing listens at the example's URL: stop the endpoint before any event is queued for it.
      expect((await w.control('DELETE', `/sandbox/webhook-endpoints/${answer.body.data.id}`)).status).toBe(200);
    }
    if (example.operationId === 'updateCardProduct') {
      // The catalogue is shared by every workspace of the sandbox: put product 2 back as every other test expects it.
      expect((await w.control('PATCH', '/sandbox/card-products/2', { issue_fee: 'on_top' })).status).toBe(200);
    }
    if (example.operationId === 'failNextOrder') {
      // The armed failure would hit the next issue of any test: consume it on an issue of this workspace.
      const order = await w.client.cards.create(issueBody());
      await expect(w.client.orders.wait(order.uuid, FAST_WAIT)).rejects.toMatchObject({ name: 'OrderFailedError' });
    }
    expect(answer.status, `${example.method} ${route} answered ${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(300);
    if (example.spec === 'public') expect(validator.responseErrors(example.method, example.route, answer.status, answer.headers.get('content-type'), answer.body)).toEqual([]);
    // The control runtime checks every body against its document before sending it (a mismatch is a 500).
    for (const responseExample of example.responses[String(answer.status)] ?? []) expect(shapeProblems(answer.body, responseExample)).toEqual([]);
  });
});

describe('amounts: the spec pattern and the sandbox agree (D28)', () => {
  const pattern = new RegExp(PUBLIC.components.schemas.AmountInput.pattern as string);
  const positive = new RegExp(CONTROL.components.schemas.PositiveAmountInput.pattern as string);

  it('accepts exactly the strings the spec accepts, on top-up', async () => {
    const { token } = freshWorkspace(running.sandbox, 'amounts', '100000.00');
    const client = clientFor(running.baseUrl, token);
    const card = (await client.orders.wait((await client.cards.create(issueBody())).uuid, FAST_WAIT)).related_card_uuid!;
    const fixed = ['10.001', '10.5000', '10.5', '10', '10.50', '010.00', '1e3', '-10.00', '10.', '.5', ' 10.00'];
    const random = fc.sample(fc.tuple(fc.integer({ min: 5, max: 60 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 9999 })).map(([whole, places, frac]) => (places === 0 ? String(whole) : `${whole}.${String(frac).padStart(4, '0').slice(0, places)}`)), { numRuns: 20, seed: 13 });
    for (const amount of [...fixed, ...random]) {
      const answer = await call('POST', `${running.baseUrl}/cards/${card}/topup`, token, { amount });
      const expected = pattern.test(amount) ? 202 : 422;
      expect(answer.status, `top-up of ${JSON.stringify(amount)}: ${JSON.stringify(answer.body)}`).toBe(expected);
    }
  });

  it('documents the control API positive amounts as the sandbox enforces them', async () => {
    const { token } = freshWorkspace(running.sandbox, 'positive');
    for (const amount of ['0', '0.00', '0.01', '0.10', '1', '1.5', '1.001', '00.5']) {
      const answer = await call('POST', `${running.origin}/sandbox/deposits`, token, { amount });
      expect(answer.status, `deposit of ${amount}`).toBe(positive.test(amount) ? 201 : 422);
    }
    expect(positive.test('0')).toBe(false);
  });
});

describe('the control document is as strict as the sandbox', () => {
  it('allows supplier_txn_id up to 64 characters, as the sandbox enforces', async () => {
    expect(CONTROL.components.parameters.SupplierTxnId.schema.maxLength).toBe(64);
    expect(CONTROL.components.schemas.AuthorizationRequest.properties.supplier_txn_id.maxLength).toBe(64);
    const { token, workspaceId } = freshWorkspace(running.sandbox, 'txn-ids');
    const client = clientFor(running.baseUrl, token);
    const card = (await client.orders.wait((await client.cards.create(issueBody())).uuid, FAST_WAIT)).related_card_uuid!;
    const ok = await call('POST', `${running.origin}/sandbox/cards/${card}/authorizations`, token, { amount: '1.00', supplier_txn_id: `w${workspaceId}`.padEnd(64, 'x') });
    expect(ok.status).toBe(201);
    expect((await call('POST', `${running.origin}/sandbox/purchases/${ok.body.data.supplier_txn_id}/reversal`, token)).status).toBe(201);
    const tooLong = await call('POST', `${running.origin}/sandbox/cards/${card}/authorizations`, token, { amount: '1.00', supplier_txn_id: 'y'.repeat(65) });
    expect(tooLong.status).toBe(422);
    expect((await call('POST', `${running.origin}/sandbox/purchases/${'z'.repeat(65)}/reversal`, token)).status).toBe(422);
  });

  it.each([
    ['DELETE', '/sandbox/tokens/abc', 'revokeToken'],
    ['DELETE', '/sandbox/webhook-endpoints/abc', 'disableWebhookEndpoint'],
    ['POST', '/sandbox/webhook-endpoints/abc/enable', 'enableWebhookEndpoint'],
    ['GET', '/sandbox/webhook-deliveries?endpoint_id=abc', 'listWebhookDeliveries'],
    ['POST', '/sandbox/webhook-deliveries/abc/redeliver', 'redeliverWebhook'],
    ['POST', '/sandbox/cards/not-a-uuid/finish-close', 'finishClose'],
  ])('%s %s: the 422 it answers is documented by %s', async (method, p, operationId) => {
    const answer = await call(method, `${running.origin}${p}`, running.token);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ error: { code: 'validation.failed' } });
    const op = Object.values(CONTROL.paths as Json)
      .flatMap((item) => Object.values(item as Json))
      .find((o) => (o as Json)?.operationId === operationId) as Json;
    expect(Object.keys(op.responses)).toContain('422');
  });

  it('documents 422 on every control operation with a path or query parameter', () => {
    const missing: string[] = [];
    for (const [route, item] of Object.entries(CONTROL.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const params = [...((item as Json).parameters ?? []), ...((op as Json).parameters ?? [])];
        if (params.length > 0 && !('422' in (op as Json).responses)) missing.push(`${method.toUpperCase()} ${route}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('pagination limits (D10)', () => {
  it('answers a page above 2^53-1 with a message naming the real bounds', async () => {
    for (const page of ['9007199254740992', '9007199254740993', '99999999999999999999']) {
      const answer = await call('GET', `${running.baseUrl}/orders?page=${page}`, running.token);
      expect(answer.status).toBe(422);
      const messages = JSON.stringify(answer.body.error);
      expect(messages).not.toContain('at least 1');
      expect(messages).toContain('9007199254740991');
    }
    const last = await call('GET', `${running.baseUrl}/orders?page=9007199254740991`, running.token);
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ data: [], meta: { current_page: 9007199254740991 } });
  });
});

describe('rate-limit headers on every answer (D5, D34)', () => {
  it.each([
    ['200', 'GET', '/ping', undefined, 200],
    ['202', 'POST', '/cards', { ...issueBody(), initial_topup_amount: '10.00' }, 202],
    ['402', 'POST', '/cards', { ...issueBody(), initial_topup_amount: '99999999.00' }, 402],
    ['404', 'GET', '/cards/00000000-0000-4000-8000-000000000000', undefined, 404],
    ['404', 'GET', '/orders/00000000-0000-4000-8000-000000000000', undefined, 404],
    ['422', 'GET', '/orders?per_page=1000', undefined, 422],
    ['422', 'POST', '/cards', { ...issueBody(), initial_topup_amount: '10.001' }, 422],
  ] as const)('%s answers of %s %s carry X-RateLimit-Limit and X-RateLimit-Remaining', async (_name, method, p, body, status) => {
    const answer = await call(method, `${running.baseUrl}${p}`, running.token, body);
    expect(answer.status).toBe(status);
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    expect(Number(answer.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    expect(answer.headers.get('x-ratelimit-remaining')).toMatch(/^[0-9]+$/);
  });

  it('documents them, and a 5xx, on every operation through shared components', () => {
    const responses = PUBLIC.components.responses as Json;
    for (const [name, response] of Object.entries(responses)) {
      // 401 and 403 are decided before the rate limiter counts the request (D16), so they carry no rate-limit headers.
      if (name.startsWith('Webhook') || name === 'Unauthenticated' || name === 'Forbidden') continue;
      expect(Object.keys((response as Json).headers ?? {}), `${name} headers`).toEqual(expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining']));
    }
    expect(String(responses.ServerError.description)).toMatch(/same `X-Idempotency-Key`/);
    for (const item of Object.values(PUBLIC.paths as Json)) {
      for (const op of Object.values(item as Json)) {
        if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
        expect((op as Json).responses['5XX'], (op as Json).operationId).toEqual({ $ref: '#/components/responses/ServerError' });
      }
    }
  });
});

describe('OpenAPI links chain an issue to its order and its card', () => {
  /** Evaluates a `$response.body#/pointer` runtime expression. */
  const evaluate = (expression: string, body: unknown): unknown => {
    const match = /^\$response\.body#(\/.*)$/.exec(expression);
    if (match === null) throw new Error(`unsupported link expression ${expression}`);
    return match[1]!.split('/').slice(1).reduce((at: any, key) => at?.[key], body);
  };
  const operations = Object.entries(PUBLIC.paths as Json).flatMap(([route, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => ['get', 'post'].includes(method))
      .map(([method, op]) => ({ route, method: method.toUpperCase(), op: op as Json, params: [...((item as Json).parameters ?? []), ...((op as Json).parameters ?? [])].map((p: Json) => deref(PUBLIC, p)) })),
  );

  it('every link names an operation and its path parameters', () => {
    const links = Object.entries(PUBLIC.components.links as Json);
    expect(links.length).toBeGreaterThanOrEqual(7);
    for (const [name, link] of links) {
      const target = operations.find((o) => o.op.operationId === (link as Json).operationId);
      expect(target, `${name} -> ${(link as Json).operationId}`).toBeDefined();
      const pathParams = target!.params.filter((p) => p.in === 'path').map((p) => p.name);
      expect(Object.keys((link as Json).parameters).sort(), name).toEqual(pathParams.sort());
    }
    const accepted = PUBLIC.components.responses.OrderAccepted.links;
    expect(Object.values(accepted as Json).map((l) => deref(PUBLIC, l as Json).operationId)).toEqual(['getOrder']);
    const getOrder = operations.find((o) => o.op.operationId === 'getOrder')!;
    expect(Object.values(getOrder.op.responses['200'].links as Json).map((l) => deref(PUBLIC, l as Json).operationId).sort()).toEqual(
      ['closeCard', 'freezeCard', 'getCard', 'listCardTransactions', 'topupCard', 'unfreezeCard'].sort(),
    );
  });

  it('following them from POST /cards reaches the order, then the card and its operations', async () => {
    const { token } = freshWorkspace(running.sandbox, 'links');
    const issued = await call('POST', `${running.baseUrl}/cards`, token, issueBody());
    expect(issued.status).toBe(202);
    const toOrder = deref(PUBLIC, PUBLIC.components.responses.OrderAccepted.links.getOrder);
    const orderUuid = evaluate(toOrder.parameters.uuid, issued.body) as string;
    let order = await call('GET', `${running.baseUrl}/orders/${orderUuid}`, token);
    for (let i = 0; i < 200 && order.body.data.status !== 'completed'; i++) order = await call('GET', `${running.baseUrl}/orders/${orderUuid}`, token);
    expect(order.body.data.status).toBe('completed');
    const getOrder = operations.find((o) => o.op.operationId === 'getOrder')!;
    for (const [name, raw] of Object.entries(getOrder.op.responses['200'].links as Json)) {
      const link = deref(PUBLIC, raw as Json);
      const target = operations.find((o) => o.op.operationId === link.operationId)!;
      const uuid = evaluate(link.parameters.uuid, order.body) as string;
      expect(uuid, name).toMatch(/^[0-9a-f-]{36}$/);
      if (target.method === 'GET') expect((await call('GET', `${running.baseUrl}${target.route.replace('{uuid}', uuid)}`, token)).status, name).toBe(200);
    }
  });
});
