/**
 * A spec-driven property test over every operation of the public spec and of the sandbox control document
 * (fast-check, real HTTP): valid requests generated from the operations' schemas, the same requests with
 * broken parts (path parameters of 0 to 10,000 characters, bad percent-encoding, arbitrary query values and
 * bodies, no or a wrong token), and any method on any path. Every answer must be
 * - a status the operation documents, with the documented body (strict: no undeclared field), or
 * - for a method and path no operation takes (or a URL that cannot be decoded), `404 api.not_found` in the D2
 *   body (D36);
 * never a 5xx, and every error carries `X-Request-Id` equal to its `request_id`.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '@card-api/sandbox';
import { operationsOf, valueOf, type DocOperation } from '../helpers/schema-arbitrary.js';
import { openapiYaml as controlYaml } from '../../packages/sandbox/src/control/spec.gen.js';
import { SpecValidator } from '../helpers/spec-validator.js';
import { clientFor, FAST_WAIT, freshWorkspace, issueBody, startTestSandbox } from './support.js';

type Json = Record<string, any>;

/**
 * Statuses the sandbox answers although the document does not declare them: none today. An entry here is a
 * known gap; the last test fails once the document declares it, so that the entry is removed.
 */
const UNDOCUMENTED: Readonly<Record<string, readonly number[]>> = {};

interface Api {
  name: string;
  /** Where the document's paths start on the server: `/api/v1`, or `` for the control API. */
  base: string;
  validator: SpecValidator;
  operations: DocOperation[];
}

interface Call {
  method: string;
  /** Below `base`, already encoded, without the query. */
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(origin: string, call: Call, base: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { ...call.headers, ...(call.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(call.body)) }) };
    // A connection per call: an answer sent before its request body was read must not spill into the next call.
    const { hostname, port } = new URL(origin);
    // The path as given (a URL object would resolve `.` and `..` segments before sending).
    const req = httpRequest({ hostname, port, path: `${base}${call.path}${call.query}`, method: call.method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

const ANY_METHOD = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY', 'PROPFIND', 'TRACE'] as const;
const BAD_ENCODINGS = ['%zz', '%', '%E0%A4%A', '%ff', '%C0%AF', 'a%2', '%%'];

/** A path parameter: valid for its schema, short arbitrary text, 0 to 10,000 characters, or bad percent-encoding. */
function paramValue(api: Api, schema: Json): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: valueOf(api.validator.document, schema).map((v) => encodeURIComponent(String(v))) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.tuple(fc.nat({ max: 10_000 }), fc.constantFrom('a', '7', '-', '_', '.', '~', 'Z')).map(([n, c]) => c.repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom(...BAD_ENCODINGS) },
  );
}

function queryValue(api: Api, schema: Json): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: valueOf(api.validator.document, schema).map((v) => (Array.isArray(v) ? v.join(',') : String(v))) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '0', '-1', '9007199254740993', '1e400', 'null', '[]', 'a,b,,c') },
  );
}

/** A request to `op`: valid parts mostly, broken ones often; the token valid, missing or unknown. */
function callFor(api: Api, op: DocOperation, tokens: fc.Arbitrary<string | null>): fc.Arbitrary<Call> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const pathArb = fc.tuple(...pathParams.map((p) => paramValue(api, p.schema))).map((values) => {
    let route = op.route;
    pathParams.forEach((p, i) => (route = route.replace(`{${p.name}}`, values[i] ?? '')));
    return route;
  });
  const queryArb = fc
    .tuple(...queryParams.map((p) => fc.option(queryValue(api, p.schema), { nil: undefined, freq: 2 })))
    .map((values) => {
      const pairs = queryParams.flatMap((p, i) => (values[i] === undefined ? [] : [`${encodeURIComponent(p.name)}=${encodeURIComponent(values[i]!)}`]));
      return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
    });
  const bodyArb: fc.Arbitrary<string | undefined> = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: valueOf(api.validator.document, op.body).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.constantFrom('{', '', 'null', '[]', '"x"', '{"a":1}') },
      )
    : fc.option(fc.constantFrom('{}', '{"x":1}', 'not json'), { nil: undefined, freq: 4 });
  const idempotency = fc.option(fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'k'.repeat(256), 'ключ')), { nil: undefined, freq: 2 });
  return fc.record({ path: pathArb, query: queryArb, body: bodyArb, token: tokens, key: idempotency }).map(({ path: p, query, body, token, key }) => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // Header values must be Latin-1 on the wire; a key Node cannot send is left out.
    if (key !== undefined && /^[\x20-\x7e]*$/.test(key)) headers['x-idempotency-key'] = key;
    return { method: op.method, path: p, query, headers, ...(body === undefined ? {} : { body }) };
  });
}

/** Any method on a path of the document (parameters filled by anything) or on a made-up path. */
function anyCall(api: Api, tokens: fc.Arbitrary<string | null>): fc.Arbitrary<Call> {
  const routes = [...new Set(api.operations.map((op) => op.route))];
  const segment = fc.oneof(fc.constantFrom('cards', 'orders', 'sandbox', 'x', '', '..', 'wallet', '%zz'), fc.string({ maxLength: 12 }).map(encodeURIComponent));
  const pathArb = fc.oneof(
    fc.tuple(fc.constantFrom(...routes), fc.array(paramValue(api, { type: 'string' }), { minLength: 3, maxLength: 3 })).map(([route, values]) => {
      let i = 0;
      return route.replace(/\{[^}]+\}/g, () => values[i++] ?? '');
    }),
    fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
  );
  return fc.record({ method: fc.constantFrom(...ANY_METHOD), path: pathArb, token: tokens, json: fc.boolean() }).map(({ method, path: p, token, json }) => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (json) headers['content-type'] = 'application/json';
    return { method, path: p, query: '', headers, ...(json && method !== 'GET' && method !== 'HEAD' ? { body: '{}' } : {}) };
  });
}

/** The operation a call reaches: same method (HEAD reaches GET) and a path whose every parameter is non-empty. */
function operationFor(api: Api, call: Call): DocOperation | undefined {
  const method = call.method === 'HEAD' ? 'GET' : call.method;
  return api.operations.find((op) => op.method === method && op.pattern.test(call.path));
}

const DOCS_PATHS = ['/openapi.yaml', '/docs', '/docs/init.js'];

/** Problems of one answer; empty when it is a documented one. */
function problems(api: Api, call: Call, answer: Answer): string[] {
  const where = `${call.method} ${api.base}${call.path}${call.query} -> ${answer.status}`;
  const out: string[] = [];
  if (answer.status >= 500) out.push(`${where}: a 5xx: ${answer.text.slice(0, 300)}`);
  const docsBase = api.base === '' ? '/sandbox' : '';
  if (DOCS_PATHS.some((p) => call.path === `${docsBase}${p}`) || call.path.startsWith(`${docsBase}/docs/`)) return out;
  const body = answer.text === '' ? undefined : (JSON.parse(answer.text) as Json);
  if (answer.status >= 400 && call.method !== 'HEAD') {
    if (body?.error?.request_id === undefined || answer.headers['x-request-id'] !== body.error.request_id) out.push(`${where}: X-Request-Id ${String(answer.headers['x-request-id'])} vs body ${JSON.stringify(body)}`);
    out.push(...api.validator.schemaErrors('Error', body).map((e) => `${where}: not the D2 body: ${e}`));
  }
  const op = operationFor(api, call);
  if (op === undefined) {
    if (answer.status !== 404 || (call.method !== 'HEAD' && body?.error?.code !== 'api.not_found')) out.push(`${where}: no operation takes this, expected 404 api.not_found: ${answer.text.slice(0, 200)}`);
    return out;
  }
  const undocumented = UNDOCUMENTED[op.operationId] ?? [];
  if (!op.statuses.includes(answer.status)) {
    if (!undocumented.includes(answer.status)) out.push(`${where}: ${op.operationId} does not document ${answer.status}: ${answer.text.slice(0, 300)}`);
    return out;
  }
  if (call.method === 'HEAD') return out;
  const contentType = typeof answer.headers['content-type'] === 'string' ? answer.headers['content-type'] : null;
  out.push(...api.validator.responseErrors(op.method, op.route, answer.status, contentType, body).map((e) => `${where}: ${e}`));
  return out;
}

let running: RunningSandbox;
const publicApi: Api = (() => {
  const validator = new SpecValidator({ strict: true });
  return { name: 'public', base: '/api/v1', validator, operations: operationsOf(validator.document) };
})();
const controlApi: Api = (() => {
  // The bundled document the sandbox serves: its references to the public spec are inlined.
  const validator = new SpecValidator({ strict: true, yaml: controlYaml });
  return { name: 'control', base: '', validator, operations: operationsOf(validator.document) };
})();

beforeAll(async () => {
  running = await startTestSandbox({ sandboxOptions: { closeDelayMs: null } });
});

afterAll(async () => {
  await running?.close();
});

describe.each([publicApi, controlApi])('every operation of the $name document', (api) => {
  let token: string;
  let knownUuids: string[] = [];

  beforeAll(async () => {
    const ws = freshWorkspace(running.sandbox, `fuzz ${api.name}`, '1000000.00');
    token = ws.token;
    const client = clientFor(running.baseUrl, token);
    const order = await client.orders.wait((await client.cards.create(issueBody())).uuid, FAST_WAIT);
    knownUuids = [order.related_card_uuid!, order.uuid];
  });

  it('covers every operation', () => {
    expect(api.operations.length).toBeGreaterThan(api.name === 'public' ? 14 : 20);
  });

  it('answers only documented statuses with documented bodies, never a 5xx', async () => {
    // A workspace of its own per run for the control API, whose operations revoke tokens and freeze workspaces.
    const tokens = fc.oneof({ weight: 8, arbitrary: fc.constant('TOKEN') }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('sbx_sk_0000', 'nope') });
    const perOperation = api.operations.map((op) => callFor(api, op, tokens));
    // Calls on the known card and order, so that 2xx answers are checked too.
    const onKnown = fc.tuple(fc.constantFrom(...api.operations.filter((op) => /\{uuid\}/.test(op.route))), fc.constantFrom(...knownUuids), tokens).chain(([op, uuid, tok]) =>
      callFor(api, op, fc.constant(tok)).map((call) => ({ ...call, path: op.route.replace('{uuid}', uuid) })),
    );
    const calls = fc.oneof({ weight: 6, arbitrary: fc.oneof(...perOperation) }, { weight: 2, arbitrary: onKnown }, { weight: 2, arbitrary: anyCall(api, tokens) });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(calls, async (call) => {
        run += 1;
        // The control API's operations revoke tokens and freeze workspaces: a fresh workspace per call, except
        // for calls on the known card, which belongs to the first one.
        const onKnownCard = knownUuids.some((uuid) => call.path.includes(uuid));
        const current = api.name === 'control' && !onKnownCard ? freshWorkspace(running.sandbox, `fuzz control ${run}`, '100000.00').token : token;
        const headers = { ...call.headers };
        if (headers.authorization === 'Bearer TOKEN') headers.authorization = `Bearer ${current}`;
        const answer = await send(running.origin, { ...call, headers }, api.base);
        expect(problems(api, call, answer)).toEqual([]);
      }),
      { numRuns: 400, endOnFailure: true },
    );
  });
});

describe('the bar of issue 13, on both documents', () => {
  it.each([
    ['QUERY on a route', 'QUERY', '/api/v1/ping'],
    ['QUERY on the control API', 'QUERY', '/sandbox/clock'],
    ['a 200-character path parameter', 'GET', `/api/v1/cards/${'a'.repeat(200)}`],
    ['a 128-character supplier_txn_id', 'POST', `/sandbox/purchases/${'a'.repeat(128)}/capture`],
    ['bad percent-encoding', 'GET', '/api/v1/cards/%zz'],
    ['bad percent-encoding on the control API', 'POST', '/sandbox/cards/%E0%A4%A/authorizations'],
  ])('%s gets the D2 body with X-Request-Id', async (_name, method, target) => {
    const answer = await send(running.origin, { method, path: target, query: '', headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' }, body: '{}' }, '');
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    const body = JSON.parse(answer.text) as Json;
    expect(publicApi.validator.schemaErrors('Error', body)).toEqual([]);
    expect(answer.headers['x-request-id']).toBe(body.error.request_id);
  });

  it('keeps UNDOCUMENTED to statuses the control document really lacks', () => {
    for (const [operationId, statuses] of Object.entries(UNDOCUMENTED)) {
      const op = controlApi.operations.find((o) => o.operationId === operationId);
      expect(op, `${operationId} is an operation of the control document`).toBeDefined();
      for (const status of statuses) expect(op!.statuses, `${operationId} now documents ${status}: remove it from UNDOCUMENTED`).not.toContain(status);
    }
  });
});
