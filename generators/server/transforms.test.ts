import { describe, expect, it } from 'vitest';
import type { RenderOptions } from '../core/target.js';
import type { ApiModel, OperationModel, ParameterModel } from '../model/index.js';
import { createContext, type ServerContext } from './context.js';
import { toLiteral } from './literal.js';
import { fastifyUrl, transformOperationObject } from './operation-object.js';
import { commaSeparatedQuery, transformParameters } from './parameter-object.js';
import { transformSchemaObject } from './schema-object.js';

const options: RenderOptions = { typesImport: 'package' };
const ctx: ServerContext = createContext({ specFile: 'spec/openapi.yaml', specName: 'spec/openapi.yaml', document: {}, operations: [], schemas: [] } as unknown as ApiModel, options);

describe('transformSchemaObject', () => {
  it.each([
    ['rewrites component refs into the shared set', { $ref: '#/components/schemas/Card' }, { $ref: 'card-api.json#/$defs/Card' }],
    ['keeps 2020-12 validation keywords', { type: ['string', 'null'], format: 'uuid', const: 'x', pattern: '^a$' }, { type: ['string', 'null'], format: 'uuid', const: 'x', pattern: '^a$' }],
    [
      'drops annotations and extensions, but not properties that share their names',
      { type: 'object', description: 'd', 'x-assumption': 'D1', example: {}, properties: { description: { type: 'string', description: 'the field' } } },
      { type: 'object', properties: { description: { type: 'string' } } },
    ],
    [
      'recurses into every subschema position',
      { allOf: [{ $ref: '#/components/schemas/A' }], items: { $ref: '#/components/schemas/B' }, additionalProperties: { anyOf: [{ $ref: '#/components/schemas/C' }, { type: 'null' }] } },
      { allOf: [{ $ref: 'card-api.json#/$defs/A' }], items: { $ref: 'card-api.json#/$defs/B' }, additionalProperties: { anyOf: [{ $ref: 'card-api.json#/$defs/C' }, { type: 'null' }] } },
    ],
    ['keeps enum and default values as data', { enum: ['description', 'x-y'], default: { description: 1 } }, { enum: ['description', 'x-y'], default: { description: 1 } }],
    ['keeps boolean schemas', true, true],
  ])('%s', (_name, given, want) => {
    expect(transformSchemaObject(given, ctx, '#/x')).toEqual(want);
  });

  it('refuses a reference it cannot share, with the pointer', () => {
    expect(() => transformSchemaObject({ properties: { a: { $ref: '#/components/parameters/Page' } } }, ctx, '#/components/schemas/X')).toThrow(
      /#\/components\/schemas\/X\/properties\/a\/\$ref: only references to #\/components\/schemas/,
    );
  });
});

const param = (p: Partial<ParameterModel> & Pick<ParameterModel, 'name' | 'in'>): ParameterModel => ({
  required: false,
  description: '',
  schema: { type: 'string' },
  style: p.in === 'query' ? 'form' : 'simple',
  explode: p.in === 'query',
  pointer: `#/p/${p.name}`,
  ...p,
});

describe('transformParameters', () => {
  it.each([
    ['none', [], null],
    [
      'path parameters, required listed',
      [param({ name: 'uuid', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } })],
      { type: 'object', properties: { uuid: { type: 'string', format: 'uuid' } }, required: ['uuid'] },
    ],
    ['header names lower-cased', [param({ name: 'X-Idempotency-Key', in: 'header' })], { type: 'object', properties: { 'x-idempotency-key': { type: 'string' } } }],
  ])('%s', (_name, given, want) => {
    expect(transformParameters(given, ctx)).toEqual(want);
  });

  it('finds form arrays that are not exploded', () => {
    const list = [
      param({ name: 'status', in: 'query', explode: false, schema: { type: 'array', items: { type: 'string' } } }),
      param({ name: 'tags', in: 'query', explode: true, schema: { type: 'array', items: { type: 'string' } } }),
      param({ name: 'q', in: 'query', explode: false }),
    ];
    expect(commaSeparatedQuery(list)).toEqual(['status']);
  });
});

describe('transformOperationObject', () => {
  it.each([
    ['/cards', '/cards'],
    ['/cards/{uuid}', '/cards/:uuid'],
    ['/cards/{uuid}/topup', '/cards/:uuid/topup'],
  ])('fastifyUrl(%s) = %s', (given, want) => expect(fastifyUrl(given)).toBe(want));

  it('gathers method, abilities, statuses and every part schema', () => {
    const op = {
      operationId: 'freezeCard',
      method: 'post',
      path: '/cards/{uuid}/freeze',
      pointer: '#/paths/~1cards~1{uuid}~1freeze/post',
      pathParams: [param({ name: 'uuid', in: 'path', required: true })],
      queryParams: [],
      headerParams: [param({ name: 'X-Idempotency-Key', in: 'header' })],
      requestBody: { required: false, schema: { $ref: '#/components/schemas/CardActionRequest' }, type: null },
      success: { status: 202, description: '', kind: 'data', type: null, schema: { $ref: '#/components/schemas/OrderAccepted' }, headers: [] },
      errors: [
        { status: 404, description: '', kind: 'error', type: null, schema: { $ref: '#/components/schemas/Error' }, headers: [] },
        { status: 500, description: '', kind: 'none', type: null, schema: null, headers: [] },
      ],
      abilities: [['cards.write']],
      async: true,
      idempotencyHeader: 'X-Idempotency-Key',
    } as unknown as OperationModel;
    expect(transformOperationObject(op, ctx)).toEqual({
      operationId: 'freezeCard',
      method: 'POST',
      path: '/cards/{uuid}/freeze',
      url: '/cards/:uuid/freeze',
      abilities: [['cards.write']],
      idempotencyHeader: 'X-Idempotency-Key',
      successStatus: 202,
      async: true,
      commaSeparatedQuery: [],
      bodyRequired: false,
      schema: {
        params: { type: 'object', properties: { uuid: { type: 'string' } }, required: ['uuid'] },
        headers: { type: 'object', properties: { 'x-idempotency-key': { type: 'string' } } },
        body: { $ref: 'card-api.json#/$defs/CardActionRequest' },
        response: { 202: { $ref: 'card-api.json#/$defs/OrderAccepted' }, 404: { $ref: 'card-api.json#/$defs/Error' } },
      },
    });
  });
});

describe('toLiteral', () => {
  it.each([
    ['scalars', [null, 1, 'it\'s', true], "[null, 1, 'it\\'s', true]"],
    ['identifier keys bare, others quoted', { a: 1, 'x-y': 2, 200: 3, $ref: 'r' }, "{ 200: 3, a: 1, 'x-y': 2, $ref: 'r' }"],
    ['long values broken one entry per line', { k: 'v'.repeat(100) }, `{\n  k: '${'v'.repeat(100)}',\n}`],
    ['empty containers', { a: [], b: {} }, '{ a: [], b: {} }'],
  ])('%s', (_name, given, want) => {
    expect(toLiteral(given)).toBe(want);
  });
});
