import formats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSchemaValidators, isCanonicalUtcDateTime, splitCommaSeparated, toFieldErrors } from './validation.js';

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

describe('date-time format', () => {
  const full = (formats.default.get('date-time') as { validate: (s: string) => boolean }).validate;
  const pad = (n: number, width: number): string => String(n).padStart(width, '0');
  // Strings near the canonical form: every field over a range wider than valid, separators and fraction varied.
  const nearCanonical = fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      minute: fc.integer({ min: 0, max: 61 }),
      second: fc.integer({ min: 0, max: 61 }),
      fraction: fc.option(fc.stringMatching(/^[0-9]{0,9}$/)),
      t: fc.constantFrom('T', 't', ' ', 'X'),
      z: fc.constantFrom('Z', 'z', '+00:00', '-01:30', '', 'ZZ'),
      dash: fc.constantFrom('-', '/'),
    })
    .map((p) => `${pad(p.year, 4)}${p.dash}${pad(p.month, 2)}-${pad(p.day, 2)}${p.t}${pad(p.hour, 2)}:${pad(p.minute, 2)}:${pad(p.second, 2)}${p.fraction === null ? '' : `.${p.fraction}`}${p.z}`);

  it('accepts only what ajv-formats accepts (the fast path never widens the format)', () => {
    fc.assert(fc.property(fc.oneof(nearCanonical, fc.string(), fc.string({ unit: 'binary' })), (s) => !isCanonicalUtcDateTime(s) || full(s)), { numRuns: 20_000 });
  });

  it('leaves to ajv-formats exactly what it does not take itself: the validator answers as ajv-formats does', () => {
    const validators = createSchemaValidators([]);
    const validate = validators.response({ type: 'string', format: 'date-time' });
    fc.assert(fc.property(fc.oneof(nearCanonical, fc.string()), (s) => validate(s) === full(s)), { numRuns: 20_000 });
  });

  it.each([
    ['2026-03-01T12:00:00.000Z', true],
    ['2026-03-01T12:00:00Z', true],
    ['2024-02-29T23:59:59.123456789Z', true],
    ['2023-02-29T00:00:00.000Z', false],
    ['2100-02-29T00:00:00Z', false],
    ['2000-02-29T00:00:00Z', true],
    ['2026-04-31T00:00:00Z', false],
    ['2026-03-01T24:00:00Z', false],
    ['2026-03-01T12:60:00Z', false],
    ['2026-03-01T12:00:60Z', false],
    ['2026-03-01T12:00:00.Z', false],
    ['2026-03-01T12:00:00+00:00', false],
    ['2026-3-01T12:00:00Z', false],
    ['+02026-03-01T12:00:00Z', false],
  ])('%s: canonical UTC %s', (s, canonical) => {
    expect(isCanonicalUtcDateTime(s)).toBe(canonical);
  });

  it('still accepts the other RFC 3339 forms through ajv-formats: offsets, a lowercase t, a leap second', () => {
    const validate = createSchemaValidators([]).response({ type: 'string', format: 'date-time' });
    for (const s of ['2026-03-01T12:00:00+02:00', '2026-03-01t12:00:00z', '2016-12-31T23:59:60Z']) expect(validate(s)).toBe(true);
    for (const s of ['2026-03-01T12:00:00', '2026-03-01', 'yesterday']) expect(validate(s)).toBe(false);
  });
});
