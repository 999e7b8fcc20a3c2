/**
 * The plugin through a real Fastify server on 127.0.0.1 and fetch, over a small hand-written API definition
 * (below) that uses the 2020-12 features the spec relies on: type arrays with 'null', const, pattern,
 * formats, $defs refs, an ability alternative, an optional body and a comma-separated query array.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { createCardApiPlugin, type CardApiOptions } from './plugin.js';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { cardApiServerOptions, type CardApiServerOptions } from './server-options.js';
import type { ApiDefinition, AuthResult, JsonSchema, RouteDefinition } from './types.js';


const ref = (name: string): JsonSchema => ({ $ref: `fixture.json#/$defs/${name}` });
const errors = { 401: ref('Error'), 403: ref('Error'), 404: ref('Error'), 409: ref('Error'), 422: ref('Error'), 429: ref('Error') };

export const fixtureSchemas: JsonSchema = {
  $id: 'fixture.json',
  $defs: {
    Thing: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'kind', 'label', 'note', 'at'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        kind: { const: 'thing' },
        label: { type: 'string', pattern: '^[a-z]+$' },
        note: { type: ['string', 'null'], maxLength: 5 },
        at: { type: 'string', format: 'date-time' },
      },
    },
    Tag: { type: 'string', enum: ['red', 'blue'] },
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'request_id'],
          properties: {
            code: { type: 'string', enum: ['api.unauthenticated', 'api.workspace_inactive', 'api.ip_not_allowed', 'api.insufficient_ability', 'api.rate_limited', 'api.not_found', 'thing.not_found', 'thing.conflict', 'validation.failed'] },
            message: { type: 'string' },
            request_id: { type: ['string', 'null'] },
            errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    },
  },
};

const thingData: JsonSchema = { type: 'object', required: ['data'], properties: { data: ref('Thing') } };
const uuidParams: JsonSchema = { type: 'object', required: ['uuid'], properties: { uuid: { type: 'string', format: 'uuid' } } };

function route(partial: Partial<RouteDefinition> & Pick<RouteDefinition, 'operationId' | 'method' | 'url' | 'schema'>): RouteDefinition {
  return {
    path: partial.url.replace(/:([A-Za-z_]+)/g, '{$1}'),
    abilities: [[]],
    idempotencyHeader: null,
    successStatus: 200,
    async: false,
    commaSeparatedQuery: [],
    bodyRequired: false,
    ...partial,
  };
}

export const fixtureRoutes: readonly RouteDefinition[] = [
  route({ operationId: 'ping', method: 'GET', url: '/ping', schema: { response: { 200: { type: 'object', required: ['ok'], properties: { ok: { const: true } } }, ...errors } } }),
  route({
    operationId: 'listThings',
    method: 'GET',
    url: '/things',
    abilities: [['things.read'], ['things.write']],
    commaSeparatedQuery: ['tags'],
    schema: {
      querystring: {
        type: 'object',
        properties: {
          page: { type: 'integer', minimum: 1, default: 1 },
          tags: { type: 'array', items: ref('Tag') },
          from: { type: 'string', format: 'date-time' },
        },
      },
      response: { 200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref('Thing') } } }, ...errors },
    },
  }),
  route({
    operationId: 'createThing',
    method: 'POST',
    url: '/things',
    abilities: [['things.write']],
    successStatus: 202,
    bodyRequired: true,
    idempotencyHeader: 'X-Idempotency-Key',
    schema: {
      headers: { type: 'object', properties: { 'x-idempotency-key': { type: 'string', pattern: '^[\\x21-\\x7E]{1,255}$' } } },
      body: ref('Thing'),
      response: { 202: thingData, ...errors },
    },
  }),
  route({ operationId: 'getThing', method: 'GET', url: '/things/:uuid', abilities: [['things.read']], schema: { params: uuidParams, response: { 200: thingData, ...errors } } }),
  route({
    operationId: 'touchThing',
    method: 'POST',
    url: '/things/:uuid/touch',
    abilities: [['things.write']],
    successStatus: 202,
    schema: {
      params: uuidParams,
      body: { type: 'object', additionalProperties: false, properties: { reason: { type: ['string', 'null'], maxLength: 10 } } },
      response: { 202: thingData, ...errors },
    },
  }),
];

export const fixtureApi: ApiDefinition = {
  title: 'Fixture <API>',
  routes: fixtureRoutes,
  schemas: [fixtureSchemas],
  openapiYaml: 'openapi: 3.1.0\ninfo:\n  title: Fixture\n  version: 1.0.0\n',
  outline: {
    title: 'Fixture <API>',
    version: '1.0.0',
    summary: 'Things & "stuff"',
    tags: [{ name: 'Things', description: '</h3><script>alert(1)</script>', operations: [{ method: 'GET', path: '/things/{uuid}', summary: 'Get a <thing>', deprecated: false }] }],
    webhooks: [{ name: 'thing.touched', summary: 'A thing was touched', deprecated: true }],
  },
};

const THING = { id: '3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14', kind: 'thing', label: 'abc', note: null, at: '2026-11-20T10:00:00Z' };
const UUID = THING.id;

interface TestAuth extends AuthResult {
  name: string;
}

const TOKENS: Record<string, TestAuth> = {
  reader: { name: 'reader', workspace: { id: 1, status: 'active' }, abilities: ['things.read'], ipAllowlist: [] },
  writer: { name: 'writer', workspace: { id: 1, status: 'active' }, abilities: ['things.write'], ipAllowlist: ['127.0.0.0/8', '::1/128'] },
  nothing: { name: 'nothing', workspace: { id: 1, status: 'active' }, abilities: [], ipAllowlist: [] },
  frozen: { name: 'frozen', workspace: { id: 2, status: 'frozen' }, abilities: ['things.read'], ipAllowlist: ['10.0.0.0/8'] },
  frozenRevoked: { name: 'frozenRevoked', workspace: { id: 2, status: 'deleted' }, abilities: [], ipAllowlist: [], tokenStatus: 'revoked' },
  revoked: { name: 'revoked', workspace: { id: 1, status: 'active' }, abilities: ['things.read'], ipAllowlist: [], tokenStatus: 'revoked' },
  faraway: { name: 'faraway', workspace: { id: 1, status: 'active' }, abilities: ['things.read'], ipAllowlist: ['10.0.0.0/8', '2001:db8::/32'] },
  slow: { name: 'slow', workspace: { id: 1, status: 'active' }, abilities: ['things.read'], ipAllowlist: [], rateLimitPerMinute: 2, rateLimitKey: 'slow' },
};

type Calls = Array<{ operationId: string; input: Record<string, unknown> }>;

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function start(
  overrides: Partial<CardApiOptions<unknown, TestAuth>> = {},
  handlers: Record<string, (input: Record<string, unknown>) => unknown> = {},
  serverOptions: Partial<CardApiServerOptions> = {},
) {
  const calls: Calls = [];
  const logs: string[] = [];
  const record = (operationId: string, fn: (input: Record<string, unknown>) => unknown) => (input: Record<string, unknown>) => {
    calls.push({ operationId, input });
    return fn(input);
  };
  const defaults: Record<string, (input: Record<string, unknown>) => unknown> = {
    ping: () => ({ ok: true }),
    listThings: () => ({ data: [THING] }),
    createThing: (input) => ({ data: input.body }),
    getThing: () => ({ data: THING }),
    touchThing: () => ({ data: THING }),
  };
  const all = Object.fromEntries(Object.entries({ ...defaults, ...handlers }).map(([id, fn]) => [id, record(id, fn)]));
  const app = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => void logs.push(line) } },
    ...serverOptions,
  });
  apps.push(app);
  await app.register(createCardApiPlugin(fixtureApi), {
    prefix: '/api/v1',
    handlers: all,
    authenticate: (token: string) => TOKENS[token] ?? null,
    ...overrides,
  } as CardApiOptions<unknown, AuthResult>);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const call = async (method: string, path: string, init: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(`${base}/api/v1${path}`, { method, headers, body });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  return { app, base, call, calls, logs };
}

describe('validation', () => {
  it('answers 422 with a field error per broken keyword: format, const, pattern, type arrays, additionalProperties', async () => {
    const { call, calls } = await start();
    const res = await call('POST', '/things', { token: 'writer', body: { id: 'not-a-uuid', kind: 'other', label: 'ABC', note: 5, at: 'yesterday', extra: 1 } });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation.failed');
    expect(res.json.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.json.error.errors).toEqual({
      id: ['Must be a valid uuid.'],
      kind: ['Must be "thing".'],
      label: ['Must match the pattern ^[a-z]+$.'],
      note: ['Must be of type string or null.'],
      at: ['Must be a valid date-time.'],
      extra: ['This field is not allowed.'],
    });
    expect(calls).toEqual([]);
  });

  it('accepts null where the type array allows it, and never coerces a JSON body', async () => {
    const { call } = await start();
    expect((await call('POST', '/things', { token: 'writer', body: THING })).status).toBe(202);
    const coerced = await call('POST', '/things', { token: 'writer', body: { ...THING, note: 12 } });
    expect(coerced.json.error.errors).toEqual({ note: ['Must be of type string or null.'] });
  });

  it('reports a missing required body and missing required fields', async () => {
    const { call } = await start();
    expect((await call('POST', '/things', { token: 'writer' })).json.error.errors).toEqual({ body: ['Must be of type object.'] });
    expect((await call('POST', '/things', { token: 'writer', body: { kind: 'thing' } })).json.error.errors).toEqual({
      id: ['This field is required.'],
      label: ['This field is required.'],
      note: ['This field is required.'],
      at: ['This field is required.'],
    });
  });

  it('lets an optional body be absent but validates it when present', async () => {
    const { call } = await start();
    expect((await call('POST', `/things/${UUID}/touch`, { token: 'writer' })).status).toBe(202);
    expect((await call('POST', `/things/${UUID}/touch`, { token: 'writer', body: { reason: null } })).status).toBe(202);
    const long = await call('POST', `/things/${UUID}/touch`, { token: 'writer', body: { reason: 'far too long a reason' } });
    expect(long.json.error.errors).toEqual({ reason: ['Must be at most 10 characters.'] });
  });

  it('coerces query strings, applies defaults and splits comma-separated arrays', async () => {
    const { call, calls } = await start();
    expect((await call('GET', '/things?page=2&tags=red,blue', { token: 'reader' })).status).toBe(200);
    expect((await call('GET', '/things', { token: 'reader' })).status).toBe(200);
    expect(calls.map((c) => ({ ...(c.input.query as object) }))).toEqual([{ page: 2, tags: ['red', 'blue'] }, { page: 1 }]);
    const bad = await call('GET', '/things?page=0&tags=red,green&from=tomorrow', { token: 'reader' });
    expect(bad.status).toBe(422);
    expect(bad.json.error.errors).toEqual({ page: ['Must be at least 1.'], 'tags.1': ['Must be one of: red, blue.'], from: ['Must be a valid date-time.'] });
  });

  it('validates path parameters and headers', async () => {
    const { call } = await start();
    expect((await call('GET', '/things/42', { token: 'reader' })).json.error.errors).toEqual({ uuid: ['Must be a valid uuid.'] });
    const header = await call('POST', '/things', { token: 'writer', body: THING, headers: { 'x-idempotency-key': 'has space' } });
    expect(header.json.error.errors).toEqual({ 'x-idempotency-key': ['Must match the pattern ^[\\x21-\\x7E]{1,255}$.'] });
  });

  it('takes an empty body with a JSON content type as no body where the body is optional (orval sends that)', async () => {
    const { call, calls, base } = await start();
    for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'application/json; charset=utf-8' }]) {
      const res = await call('POST', `/things/${UUID}/touch`, { token: 'writer', raw: '', headers });
      expect(res.status).toBe(202);
    }
    // Chunked with no chunk at all: the parser sees zero bytes too.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/v1/things/${UUID}/touch`, { method: 'POST', headers: { authorization: 'Bearer writer', 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(chunked).toBe(202);
    expect(calls.map((c) => [c.operationId, c.input.body])).toEqual([
      ['touchThing', undefined],
      ['touchThing', undefined],
      ['touchThing', undefined],
    ]);
    // Not empty: still parsed, and refused when it is not JSON or breaks the schema.
    for (const [raw, message] of [[' ', 'The body is not valid JSON.'], ['{', 'The body is not valid JSON.'], ['null', undefined]] as const) {
      const res = await call('POST', `/things/${UUID}/touch`, { token: 'writer', raw, headers: { 'content-type': 'application/json' } });
      expect(res.status, raw).toBe(message === undefined ? 202 : 422);
      if (message !== undefined) expect(res.json.error.errors).toEqual({ body: [message] });
    }
    const invalid = await call('POST', `/things/${UUID}/touch`, { token: 'writer', body: { reason: 7 } });
    expect(invalid.json.error.errors).toEqual({ reason: ['Must be of type string or null.'] });
    // A required body stays required.
    const required = await call('POST', '/things', { token: 'writer', raw: '', headers: { 'content-type': 'application/json' } });
    expect(required.status).toBe(422);
    expect(required.json.error.errors).toEqual({ body: ['The body is not valid JSON.'] });
  });

  it.each([
    ['malformed JSON', { raw: '{"id": ' }, 'The body is not valid JSON.'],
    ['an empty JSON body', { raw: '' }, 'The body is not valid JSON.'],
    ['text/plain', { raw: 'id=1', headers: { 'content-type': 'text/plain' } }, 'The body must be application/json.'],
    ['another media type', { raw: '<id/>', headers: { 'content-type': 'application/xml' } }, 'The body must be application/json.'],
  ])('answers %s with 422 in the D2 shape', async (_name, init, message) => {
    const { call } = await start();
    const res = await call('POST', '/things', { token: 'writer', ...init });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ error: { code: 'validation.failed', message: 'The request is invalid.', request_id: res.headers.get('x-request-id'), errors: { body: [message] } } });
  });
});

describe('errors', () => {
  it('answers an unknown route 404 api.not_found with a request id, token or not', async () => {
    const { call } = await start();
    for (const token of [undefined, 'reader']) {
      const res = await call('GET', '/nowhere', token ? { token } : {});
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('api.not_found');
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    }
    expect((await call('DELETE', '/things', { token: 'writer' })).status).toBe(404);
  });

  it('never leaks the message or stack of an unexpected throw', async () => {
    const { call, logs } = await start({}, {
      getThing: () => {
        throw new Error('connection to postgres://admin:hunter2@db failed');
      },
    });
    const res = await call('GET', `/things/${UUID}`, { token: 'reader' });
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ error: { code: 'api.internal_error', message: 'An unexpected error occurred.', request_id: res.headers.get('x-request-id') } });
    expect(res.text).not.toMatch(/hunter2|stack|postgres|at /);
    expect(logs.join('')).toContain('hunter2');
  });

  it('sends an ApiError as is, field errors and headers included, with the rate-limit headers kept', async () => {
    const { call } = await start({}, {
      getThing: () => {
        throw new ApiError(404, 'thing.not_found', 'No such thing.');
      },
      createThing: () => {
        throw new ApiError(422, 'validation.failed', 'The request is invalid.', { label: ['Already taken.'] });
      },
    });
    const missing = await call('GET', `/things/${UUID}`, { token: 'reader' });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'thing.not_found', message: 'No such thing.' });
    expect(missing.headers.get('x-ratelimit-limit')).toBe('60');
    const taken = await call('POST', '/things', { token: 'writer', body: THING });
    expect(taken.json.error.errors).toEqual({ label: ['Already taken.'] });
  });

  it('sends { status, body } replies with the documented status', async () => {
    const { call } = await start({}, {
      createThing: (input) => ({ status: 409, body: { error: { code: 'thing.conflict', message: 'Exists.', request_id: input.requestId } } }),
    });
    const res = await call('POST', '/things', { token: 'writer', body: THING });
    expect(res.status).toBe(409);
    expect(res.json.error.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('turns a body that breaks the response schema into a logged 500, or sends it in log mode', async () => {
    const wrong = () => ({ data: { ...THING, kind: 'other', label: 7 } });
    const strict = await start({}, { getThing: wrong });
    const res = await strict.call('GET', `/things/${UUID}`, { token: 'reader' });
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('api.internal_error');
    expect(strict.logs.join('')).toContain('does not match the spec');

    const lenient = await start({ responseValidation: 'log' }, { getThing: wrong });
    const sent = await lenient.call('GET', `/things/${UUID}`, { token: 'reader' });
    expect(sent.status).toBe(200);
    expect(lenient.logs.join('')).toContain('does not match the spec');
  });

  it('refuses an ApiError whose body breaks the documented error schema', async () => {
    const { call } = await start({}, {
      getThing: () => {
        throw new ApiError(404, 'made.up', 'Not a code of the spec.');
      },
    });
    const res = await call('GET', `/things/${UUID}`, { token: 'reader' });
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('api.internal_error');
  });

  it('fails at registration when a handler is missing', async () => {
    const app = Fastify();
    apps.push(app);
    await expect(
      app.register(createCardApiPlugin(fixtureApi), { handlers: { ping: () => ({ ok: true }) }, authenticate: () => null }).ready(),
    ).rejects.toThrow(/no handler for listThings, createThing, getThing, touchThing/);
  });
});

describe('deeply frozen bodies (a cached read served many times)', () => {
  /** A frozen `{ data: thing }` whose `label` getter counts how often validation and serialization read the body. */
  const counted = (label = 'abc') => {
    const reads = { count: 0 };
    const thing = Object.freeze(
      Object.defineProperty({ ...THING }, 'label', {
        enumerable: true,
        get: () => {
          reads.count++;
          return label;
        },
      }),
    );
    return { body: Object.freeze({ data: thing }), reads };
  };

  it('validates and serializes the same frozen body once, and sends the same bytes each time', async () => {
    const { body, reads } = counted();
    const { call } = await start({}, { getThing: () => body });
    const first = await call('GET', `/things/${UUID}`, { token: 'reader' });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const afterFirst = reads.count;
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) {
      const again = await call('GET', `/things/${UUID}`, { token: 'reader' });
      expect(again.text).toBe(first.text);
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    }
    expect(reads.count).toBe(afterFirst);
  });

  it('keeps nothing for a body frozen only at the top: a change inside it is sent', async () => {
    const inner = { ...THING };
    const body = Object.freeze({ data: inner });
    const { call } = await start({}, { getThing: () => body });
    expect((await call('GET', `/things/${UUID}`, { token: 'reader' })).json.data.label).toBe('abc');
    inner.label = 'xyz';
    expect((await call('GET', `/things/${UUID}`, { token: 'reader' })).json.data.label).toBe('xyz');
    inner.label = 'NOT VALID';
    expect((await call('GET', `/things/${UUID}`, { token: 'reader' })).status).toBe(500);
  });

  it('checks a frozen body against each route and status it is sent on', async () => {
    // Valid for getThing (200) and touchThing (202); listThings (200 too) wants an array of things.
    const { body } = counted();
    const { call } = await start({}, { getThing: () => body, touchThing: () => body, listThings: () => body });
    expect((await call('GET', `/things/${UUID}`, { token: 'reader' })).status).toBe(200);
    expect((await call('GET', '/things', { token: 'reader' })).status).toBe(500);
    expect((await call('GET', `/things/${UUID}`, { token: 'reader' })).status).toBe(200);
    expect((await call('POST', `/things/${UUID}/touch`, { token: 'writer', body: {} })).status).toBe(202);
    expect((await call('GET', '/things', { token: 'reader' })).status).toBe(500);
  });

  it('refuses an invalid frozen body every time, and in log mode logs it on every send', async () => {
    const { body } = counted('NOT VALID');
    const strict = await start({}, { getThing: () => body });
    for (let i = 0; i < 2; i++) expect((await strict.call('GET', `/things/${UUID}`, { token: 'reader' })).status).toBe(500);

    const lenient = await start({ responseValidation: 'log' }, { getThing: () => body });
    for (let i = 0; i < 2; i++) expect((await lenient.call('GET', `/things/${UUID}`, { token: 'reader' })).status).toBe(200);
    expect(lenient.logs.filter((line) => line.includes('does not match the spec'))).toHaveLength(2);
  });

  it("still runs the app's preSerialization hooks, which may replace the body", async () => {
    const { body } = counted();
    const hooked = Fastify({ logger: false });
    apps.push(hooked);
    let seen = 0;
    hooked.addHook('preSerialization', async (request, _reply, payload) => {
      seen++;
      return request.url.endsWith('?swap=1') ? { data: { ...THING, label: 'swapped' } } : payload;
    });
    await hooked.register(createCardApiPlugin(fixtureApi), {
      prefix: '/api/v1',
      handlers: { ping: () => ({ ok: true }), listThings: () => ({ data: [] }), createThing: () => ({ data: THING }), getThing: () => body, touchThing: () => ({ data: THING }) },
      authenticate: (token: string) => TOKENS[token] ?? null,
    } as CardApiOptions<unknown, AuthResult>);
    const base = await hooked.listen({ port: 0, host: '127.0.0.1' });
    const get = async (query = '') => (await (await fetch(`${base}/api/v1/things/${UUID}${query}`, { headers: { authorization: 'Bearer reader' } })).json()) as { data: { label: string } };
    expect((await get()).data.label).toBe('abc');
    expect((await get('?swap=1')).data.label).toBe('swapped');
    expect((await get()).data.label).toBe('abc');
    expect(seen).toBe(3);
  });
});

describe('authentication and access (contract 5, D16)', () => {
  it.each([
    ['no Authorization header', undefined, {}, 401, 'api.unauthenticated'],
    ['another scheme', undefined, { authorization: 'Basic cmVhZGVyOg==' }, 401, 'api.unauthenticated'],
    ['an unknown token', 'nobody', {}, 401, 'api.unauthenticated'],
    ['a revoked token', 'revoked', {}, 401, 'api.unauthenticated'],
    ['a frozen workspace, even with the IP outside the allowlist', 'frozen', {}, 403, 'api.workspace_inactive'],
    ['a deleted workspace, even with a revoked token', 'frozenRevoked', {}, 403, 'api.workspace_inactive'],
    ['an IP outside the allowlist (IPv4 and IPv6 entries)', 'faraway', {}, 403, 'api.ip_not_allowed'],
    ['a token without the ability', 'nothing', {}, 403, 'api.insufficient_ability'],
    ['a token with the other ability only', 'writer', {}, 403, 'api.insufficient_ability'],
  ])('refuses %s', async (_name, token, headers, status, code) => {
    const { call, calls } = await start();
    const res = await call('GET', `/things/${UUID}`, { ...(token ? { token } : {}), headers });
    expect(res.status).toBe(status);
    expect(res.json.error.code).toBe(code);
    expect(res.headers.get('x-request-id')).toBe(res.json.error.request_id);
    // Refused requests count against the IP (D37), so they carry the IP's counter.
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(calls).toEqual([]);
  });

  it('checks the token before reading the body', async () => {
    const { call } = await start();
    expect((await call('POST', '/things', { raw: '{oops' })).json.error.code).toBe('api.unauthenticated');
  });

  it('accepts any of the ability alternatives, an allowlisted IP, and any valid token where no ability is needed', async () => {
    const { call, calls } = await start();
    expect((await call('GET', '/things', { token: 'reader' })).status).toBe(200);
    expect((await call('GET', '/things', { token: 'writer' })).status).toBe(200);
    expect((await call('GET', '/ping', { token: 'nothing' })).status).toBe(200);
    expect((calls[1]?.input.auth as TestAuth).name).toBe('writer');
  });

  it('passes the token and the request to authenticate', async () => {
    const seen: string[] = [];
    const { call } = await start({
      authenticate: (token, request) => {
        seen.push(`${token} ${request.method} ${request.url}`);
        return TOKENS[token] ?? null;
      },
    });
    await call('GET', '/ping', { headers: { authorization: 'bearer   reader' } });
    expect(seen).toEqual(['reader GET /api/v1/ping']);
  });
});

describe('rate limit (D5)', () => {
  it('answers 429 with Retry-After and X-RateLimit-* over the token ceiling, and lets it through in the next window', async () => {
    let now = Date.UTC(2026, 10, 20, 10, 0, 15);
    const { call, calls } = await start({ rateLimit: { now: () => now } });
    const first = await call('GET', '/things', { token: 'slow' });
    expect([first.status, first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([200, '2', '1']);
    expect(first.headers.get('retry-after')).toBeNull();
    expect((await call('GET', '/things', { token: 'slow' })).headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await call('GET', '/things', { token: 'slow' });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('api.rate_limited');
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(Date.UTC(2026, 10, 20, 10, 1, 0) / 1000));
    expect(calls).toHaveLength(2);
    now += 45_000;
    expect((await call('GET', '/things', { token: 'slow' })).status).toBe(200);
  });

  it('applies the IP ceiling across tokens', async () => {
    const { call } = await start({ rateLimit: { ipPerMinute: 2, now: () => 0 } });
    expect((await call('GET', '/things', { token: 'reader' })).status).toBe(200);
    expect((await call('GET', '/things', { token: 'writer' })).status).toBe(200);
    const refused = await call('GET', '/ping', { token: 'nothing' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
  });

  it('counts refused requests against the IP: guessing tokens ends in 429 (D37)', async () => {
    const { call, calls } = await start({ rateLimit: { ipPerMinute: 3, now: () => 0 } });
    for (const token of ['guess1', 'guess2', 'guess3']) {
      const res = await call('GET', '/things', { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(3 - Number(token.slice(-1))));
    }
    const refused = await call('GET', '/things', { token: 'guess4' });
    expect([refused.status, refused.json.error.code, refused.headers.get('retry-after')]).toEqual([429, 'api.rate_limited', '60']);
    // A valid token from the same IP is over the ceiling too; no handler ran.
    expect((await call('GET', '/things', { token: 'reader' })).status).toBe(429);
    expect((await call('GET', '/ping')).status).toBe(429);
    expect(calls).toEqual([]);
  });

  it('counts a refusal thrown by authenticate against the IP', async () => {
    const { call } = await start({
      rateLimit: { ipPerMinute: 1, now: () => 0 },
      authenticate: () => {
        throw new ApiError(403, 'api.workspace_inactive', 'The workspace is frozen.');
      },
    });
    expect((await call('GET', '/ping', { token: 'x' })).status).toBe(403);
    expect((await call('GET', '/ping', { token: 'x' })).status).toBe(429);
  });

  it('can be switched off', async () => {
    const { call } = await start({ rateLimit: false });
    const res = await call('GET', '/ping', { token: 'slow' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('spec and docs', () => {
  it('serves the spec and a Swagger UI page from local assets, without a token', async () => {
    const { call } = await start();
    const spec = await call('GET', '/openapi.yaml');
    expect(spec.status).toBe(200);
    expect(spec.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(spec.text).toBe(fixtureApi.openapiYaml);

    const page = await call('GET', '/docs');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>Fixture &#60;API&#62;</title>');
    expect(page.text).not.toMatch(/https?:\/\//);
    const scripts = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/api/v1/docs/swagger-ui.css', '/api/v1/docs/favicon-32x32.png', '/api/v1/docs/swagger-ui-bundle.js', '/api/v1/docs/init.js']);
    for (const asset of scripts) {
      const res = await call('GET', asset.replace('/api/v1', ''));
      expect(res.status, asset).toBe(200);
    }
    // The document is in the page's script (no download, so no spinner while it loads).
    expect((await call('GET', '/docs/init.js')).text).toContain(JSON.stringify(fixtureApi.openapiYaml));
    // The static rendering, spec text escaped: the outline's markup-like text stays text.
    for (const text of ['Fixture &#60;API&#62;', 'Things &#38; &#34;stuff&#34;', '&#60;/h3&#62;&#60;script&#62;alert(1)&#60;/script&#62;', 'Get a &#60;thing&#62;', '/things/{uuid}', 'thing.touched']) expect(page.text).toContain(text);
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).toContain('<span class="opblock-summary-method">GET</span>');
    expect((await call('GET', '/docs/package.json')).status).toBe(404);
    expect((await call('GET', '/docs/..%2Fpackage.json')).status).toBe(404);
  });

  it('can leave the docs out', async () => {
    const { call } = await start({ docs: false });
    expect((await call('GET', '/openapi.yaml')).json.error.code).toBe('api.not_found');
  });
});

/** One raw HTTP/1.1 exchange, for methods and URLs fetch will not send. */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The D2 body with the request id of the X-Request-Id header. */
function expectD2(res: { headers: Record<string, string | string[] | undefined>; json: any }, code: string): void {
  expect(res.json?.error?.code).toBe(code);
  expect(typeof res.json.error.message).toBe('string');
  expect(res.json.error.request_id).toMatch(/^req_[0-9a-f]{32}$/);
  expect(res.headers['x-request-id']).toBe(res.json.error.request_id);
}

describe('requests no operation takes (D36)', () => {
  it.each(['QUERY', 'PROPFIND', 'DELETE', 'PUT'])('answers %s on a known path 404 api.not_found with Allow, without a token', async (method) => {
    const { base, calls } = await start();
    const res = await raw(base, method, '/api/v1/ping');
    expect(res.status).toBe(404);
    expectD2(res, 'api.not_found');
    expect(res.headers.allow).toBe('GET, HEAD');
    const things = await raw(base, method, `/api/v1/things/${UUID}`);
    expect(things.status).toBe(404);
    expect(things.headers.allow).toBe('GET, HEAD');
    expect(calls).toEqual([]);
  });

  it('answers QUERY with a body, and any method on an unknown path, 404 without Allow', async () => {
    const { base } = await start();
    const res = await raw(base, 'QUERY', '/api/v1/nothing/here', { 'content-type': 'application/json' });
    expect(res.status).toBe(404);
    expectD2(res, 'api.not_found');
    expect(res.headers.allow).toBeUndefined();
    const bad = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/v1/nothing`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{not json');
    });
    expect(bad).toBe(404);
  });

  it('lists every method of a path with several operations', async () => {
    const { base } = await start();
    const res = await raw(base, 'PATCH', '/api/v1/things');
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });
});

describe('errors raised before the plugin runs, with cardApiServerOptions() (D36)', () => {
  const long = (n: number) => 'a'.repeat(n);

  it('lets a 200-character path parameter reach the schema: 422 naming the parameter', async () => {
    const { base } = await start({}, {}, cardApiServerOptions());
    const res = await raw(base, 'GET', `/api/v1/things/${long(200)}`, { authorization: 'Bearer reader' });
    expect(res.status).toBe(422);
    expectD2(res, 'validation.failed');
    expect(Object.keys(res.json.error.errors)).toEqual(['uuid']);
  });

  it('answers bad percent-encoding 404 api.not_found in the D2 shape, on a route or not', async () => {
    const { base } = await start({}, {}, cardApiServerOptions());
    for (const target of ['/api/v1/things/%zz', '/api/v1/things/%E0%A4%A/touch', '/api/v1/%zz/nothing']) {
      const res = await raw(base, 'GET', target, { authorization: 'Bearer reader' });
      expect(res.status, target).toBe(404);
      expectD2(res, 'api.not_found');
    }
  });

  it('answers oversized headers 431 and a malformed request 400 in the D2 shape', async () => {
    const { base } = await start({}, {}, cardApiServerOptions());
    const big = await raw(base, 'GET', '/api/v1/ping', { 'x-big': long(20_000) });
    expect(big.status).toBe(431);
    expectD2(big, 'validation.failed');
    const { port } = new URL(base);
    const text = await new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('FOO /api/v1/ping HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('validation.failed');
    expect(text).toContain(`X-Request-Id: ${body.error.request_id}`);
  });

  it("warns at registration when the app keeps Fastify's 100-character maxParamLength", async () => {
    const { logs } = await start();
    expect(logs.join('')).toContain('cardApiServerOptions');
    const tuned = await start({}, {}, cardApiServerOptions());
    expect(tuned.logs.join('')).not.toContain('cardApiServerOptions');
  });
});

describe('one request id: the X-Request-Id a client sees is the reqId of every log line of its request', () => {
  /** The app at log level info, its lines parsed, and a raw request that returns the X-Request-Id it got. */
  async function logged(serverOptions: Partial<CardApiServerOptions>, overrides: Partial<CardApiOptions<unknown, TestAuth>> = {}) {
    const lines: Array<Record<string, unknown>> = [];
    const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } }, ...serverOptions });
    apps.push(app);
    await app.register(createCardApiPlugin(fixtureApi), {
      prefix: '/api/v1',
      handlers: {
        ping: () => ({ ok: true }),
        listThings: () => {
          throw new Error('boom');
        },
        createThing: (input: Record<string, unknown>) => ({ data: input.body }),
        getThing: () => ({ data: THING }),
        touchThing: () => ({ data: THING }),
      },
      authenticate: (token: string) => TOKENS[token] ?? null,
      ...overrides,
    } as CardApiOptions<unknown, AuthResult>);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const send = async (method: string, target: string, headers: Record<string, string> = {}, last = 'request completed'): Promise<{ status: number; id: string; bodyId: unknown; lines: Array<Record<string, unknown>> }> => {
      const res = await raw(base, method, target, headers);
      const id = res.headers['x-request-id'];
      if (typeof id !== 'string') throw new Error(`${method} ${target}: no X-Request-Id`);
      // "request completed" is written once the response has finished: wait for it (bounded by the test timeout).
      await expect.poll(() => lines.some((line) => line.reqId === id && line.msg === last)).toBe(true);
      return { status: res.status, id, bodyId: res.json?.error?.request_id, lines: lines.filter((line) => line.reqId === id) };
    };
    return { send, lines };
  }

  const CASES: Array<[string, string, string, Record<string, string>, number]> = [
    ['a 200', 'GET', '/api/v1/ping', { authorization: 'Bearer reader' }, 200],
    ['a 401', 'GET', '/api/v1/ping', {}, 401],
    ['a 422', 'GET', '/api/v1/things/not-a-uuid', { authorization: 'Bearer reader' }, 422],
    ['a 500 from a throwing handler', 'GET', '/api/v1/things', { authorization: 'Bearer reader' }, 500],
    ['a 404 on an unknown path under the prefix', 'GET', '/api/v1/nothing', {}, 404],
  ];

  it.each(CASES)('with cardApiServerOptions(): %s', async (_name, method, target, headers, status) => {
    const { send } = await logged(cardApiServerOptions());
    const res = await send(method, target, headers);
    expect(res.status).toBe(status);
    expect(res.id).toMatch(/^req_[0-9a-f]{32}$/);
    if (status >= 400) expect(res.bodyId).toBe(res.id);
    expect(res.lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    if (status === 500) expect(res.lines.map((line) => line.msg)).toContain('card-api: unhandled error');
  });

  it('with cardApiServerOptions(): a URL the router cannot decode (frameworkErrors)', async () => {
    const { send, lines } = await logged(cardApiServerOptions());
    // Fastify logs this request's arrival and no completion: the router answered it before any route.
    const res = await send('GET', '/api/v1/things/%zz', {}, 'incoming request');
    expect(res.status).toBe(404);
    expect(res.id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.bodyId).toBe(res.id);
    expect(lines.filter((line) => 'reqId' in line && line.reqId !== res.id)).toEqual([]);
  });

  it.each(CASES)("without cardApiServerOptions() the plugin's routes still get one id: %s", async (_name, method, target, headers, status) => {
    const { send } = await logged({});
    const res = await send(method, target, headers);
    expect(res.status).toBe(status);
    expect(res.id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
  });

  it('takes the ids an app chooses, through cardApiServerOptions({ requestId }) or the plugin option', async () => {
    let n = 0;
    const app = await logged(cardApiServerOptions({ requestId: () => `app_${++n}` }));
    const res = await app.send('GET', '/api/v1/ping', {});
    expect(res.id).toMatch(/^app_\d+$/);
    expect(res.bodyId).toBe(res.id);
    const plugin = await logged({}, { requestId: () => `plugin_${++n}` });
    const other = await plugin.send('GET', '/api/v1/ping', {});
    expect(other.id).toMatch(/^plugin_\d+$/);
    expect(other.bodyId).toBe(other.id);
  });
});

describe('served document server URL', () => {
  it('puts the given server URL in the served document', async () => {
    const { call, base } = await start({ docs: { serverUrl: (request) => `http://${request.host}/api/v1` } });
    const spec = await call('GET', '/openapi.yaml');
    expect(spec.text).toContain(`servers:\n  - url: "${base}/api/v1"\n`);
    expect(spec.text.startsWith('openapi: 3.1.0\ninfo:\n')).toBe(true);
  });
});
