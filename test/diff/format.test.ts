/** What a reviewer reads: each message one sentence, no doubled names, places named compactly (issue 34). */
import { describe, expect, it } from 'vitest';
import { diffModels, formatResult, runDiff, type Change } from '../../generators/diff/index.js';
import { placeText, sentence, subjectOf } from '../../generators/diff/format.js';

type Json = Record<string, any>;
const doc = (paths: Json, components: Json = {}): { document: any } => ({ document: { openapi: '3.1.0', info: { title: 'Shop', version: '1.0.0' }, paths, components } });
const json = (schema: Json) => ({ 'application/json': { schema } });
const getX = (schema: Json, extra: Json = {}) => doc({ '/x': { get: { responses: { 200: { description: 'OK', content: json(schema) } }, ...extra } } });

describe('messages a reviewer reads', () => {
  it('an operation without an id is named once by its method and path', () => {
    const [c] = diffModels(getX({ type: 'string' }), getX({ type: 'integer' }));
    expect(c!.location.operation).toBe('GET /x');
    expect(placeText(c!.places[0]!)).toBe('GET /x');
    expect(formatResult(runDiff({ label: 'a', model: getX({ type: 'string' }) }, { label: 'b', model: getX({ type: 'integer' }) }), 'text')).not.toContain('GET /x (GET /x)');
  });

  it('a branch added says its combinator once', () => {
    const base = getX({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    const head = getX({ anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] });
    const added = diffModels(base, head).find((c) => c.id === 'response-variant-added')!;
    expect(added.message).toBe('`anyOf` branch 3 (boolean) added');
    expect(added.message).not.toMatch(/anyOf branch anyOf/);
  });

  it('an error code newly shown in the error examples is one plain sentence', () => {
    const error = (code: string) => ({ description: 'Bad.', content: { 'application/json': { schema: { type: 'object' }, example: { error: { code } } } } });
    const op = (codes: string[]) => doc({ '/x': { get: { operationId: 'getX', responses: { 200: { description: 'OK' }, ...Object.fromEntries(codes.map((c, i) => [String(400 + i), error(c)])) } } } });
    const added = diffModels(op(['api.bad_request']), op(['api.bad_request', 'api.internal_error'])).find((c) => c.id === 'response-error-code-added')!;
    expect(added.message).toBe('the error examples now show code `api.internal_error`');
  });

  it('an entry reads as one sentence, named by the component it is in', () => {
    const shared = { Card: { type: 'object', required: ['id', 'pan'], properties: { id: { type: 'string' }, pan: { type: 'string' } } } };
    const cut = { Card: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } };
    const twoOps = (components: Json) => doc({ '/a': { get: { operationId: 'getA', responses: { 200: { description: 'OK', content: json({ $ref: '#/components/schemas/Card' }) } } } }, '/b': { get: { operationId: 'getB', responses: { 200: { description: 'OK', content: json({ type: 'array', items: { $ref: '#/components/schemas/Card' } }) } } } } }, { schemas: components });
    const r = runDiff({ label: 'a', model: twoOps(shared) }, { label: 'b', model: twoOps(cut) });
    expect(r.changes).toHaveLength(1);
    const c: Change = r.changes[0]!;
    expect(c.places.map((p) => `${p.operation} ${p.field}`)).toEqual(['getA pan', 'getB [].pan']);
    expect(subjectOf(c)).toBe('Card.pan');
    expect(sentence(c)).toBe('`Card.pan`: field removed; a client that reads the field gets undefined.');
  });
});
