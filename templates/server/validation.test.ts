import { describe, expect, it } from 'vitest';
import { createSchemaValidators, splitCommaSeparated, toFieldErrors } from './validation.js';

const shared = { $id: 'v.json', $defs: { Nullable: { anyOf: [{ type: 'object', required: ['a'], properties: { a: { type: 'string' } } }, { type: 'null' }] } } };

describe('toFieldErrors', () => {
  const validators = createSchemaValidators([shared]);
  const errorsFor = (schema: Record<string, unknown>, data: unknown, part: 'body' | 'querystring' = 'body') => {
    const validate = validators.request(schema, part);
    expect(validate(data)).toBe(false);
    return toFieldErrors(validate.errors ?? [], part);
  };

  it.each(['valueOf', 'toString', 'constructor', 'hasOwnProperty', '__proto__'])('keys a field named %s like any other (no inherited members)', (key) => {
    const closed = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } };
    const fields = errorsFor(closed, JSON.parse(`{${JSON.stringify(key)}:null}`));
    expect(Object.keys(fields)).toEqual([key]);
    expect(JSON.parse(JSON.stringify(fields))[key]).toEqual([expect.any(String)]);
  });

  it.each([
    ['nested path with dots', { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string', pattern: '^x$' } } } } }, { a: { b: 'y' } }, { 'a.b': ['Must match the pattern ^x$.'] }],
    ['array index in the path', { type: 'array', items: { enum: ['p', 'q'] } }, ['p', 'z'], { '1': ['Must be one of: p, q.'] }],
    ['whole body keyed by the part', { type: 'object' }, 'text', { body: ['Must be of type object.'] }],
    ['nullable ref: the null branch is not reported', { type: 'object', properties: { n: { $ref: 'v.json#/$defs/Nullable' } } }, { n: { a: 1 } }, { 'n.a': ['Must be of type string.'], n: ['Does not match any allowed shape.'] }],
    ['escaped pointer tokens', { type: 'object', properties: { 'a/b': { type: 'integer' } } }, { 'a/b': 'x' }, { 'a/b': ['Must be of type integer.'] }],
  ])('%s', (_name, schema, data, want) => {
    expect(errorsFor(schema, data)).toEqual(want);
  });

  it('coerces query parts but not bodies', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } } };
    const query: Record<string, unknown> = { n: '2' };
    expect(validators.request(schema, 'querystring')(query)).toBe(true);
    expect(query.n).toBe(2);
    expect(validators.request(schema, 'body')({ n: '2' })).toBe(false);
  });

  it('rejects unknown keywords at compile time (strict mode), so a schema it cannot enforce fails at startup', () => {
    expect(() => validators.response({ type: 'string', 'x-nope': 1 })).toThrow(/unknown keyword/);
  });
});

describe('splitCommaSeparated', () => {
  it.each([
    ['one string', { s: 'a,b' }, { s: ['a', 'b'] }],
    ['repeated parameter', { s: ['a,b', 'c'] }, { s: ['a', 'b', 'c'] }],
    ['absent', {}, {}],
    ['other names untouched', { t: 'a,b' }, { t: 'a,b' }],
  ])('%s', (_name, query, want) => {
    const copy: Record<string, unknown> = { ...query };
    splitCommaSeparated(copy, ['s']);
    expect(copy).toEqual(want);
  });
});
