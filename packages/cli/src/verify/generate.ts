/**
 * Requests generated from the spec's schemas (fast-check): values that satisfy a schema, and for each constraint of
 * a schema (type, enum, pattern, lengths, bounds, required, unknown property, format) one change that breaks that
 * constraint alone. It covers what OpenAPI 3.1 documents of this kind use: `$ref`, `allOf`, `oneOf`/`anyOf`,
 * `enum`, `const`, type arrays, string formats and patterns, numeric bounds, arrays, objects with required keys.
 * The test suites build their arbitraries on it too (test/helpers/schema-arbitrary.ts).
 */
import fc from 'fast-check';

type Json = Record<string, any>;

/** A schema with its `$ref`s followed (local references only, a bounded chain). */
export function resolveRef(doc: Json, node: Json | undefined): Json | undefined {
  let current = node;
  for (let depth = 0; current && typeof current.$ref === 'string' && depth < 20; depth++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((at: Json | undefined, key: string) => at?.[key], doc);
  }
  return current;
}

/** `allOf` folded into one object schema (properties, required, additionalProperties of the parts). */
export function flatten(doc: Json, schema: Json | undefined): Json | undefined {
  const s = resolveRef(doc, schema);
  if (!s || !Array.isArray(s.allOf)) return s;
  const merged: Json = { type: 'object', properties: {}, required: [] };
  for (const part of [...(s.allOf as Json[]).map((p) => flatten(doc, p) ?? {}), s]) {
    Object.assign(merged.properties, part.properties ?? {});
    merged.required.push(...((part.required ?? []) as string[]));
    if (part.additionalProperties === false || part.unevaluatedProperties === false) merged.additionalProperties = false;
  }
  return merged;
}

const typesOf = (s: Json): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : s.enum || s.const !== undefined ? [] : ['string']);

/** An arbitrary of values valid against `schema` (resolved in `doc`). */
export function validValue(doc: Json, schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = flatten(doc, schema);
  if (s === undefined || s === null || depth > 8) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return fc.oneof(...((s.oneOf ?? s.anyOf) as Json[]).map((part) => validValue(doc, part, depth + 1)));
  return fc.oneof(...typesOf(s).map((type) => ofType(doc, s, type, depth)));
}

function ofType(doc: Json, s: Json, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.max(s.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER), max: Math.min(s.maximum ?? 1_000_000, 2 ** 31 - 1) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'array':
      return fc.array(validValue(doc, s.items, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 4, 4)) }).map((items) => (s.uniqueItems ? [...new Map(items.map((i) => [JSON.stringify(i), i])).values()] : items)).filter((items) => items.length >= (s.minItems ?? 0));
    case 'object': {
      const properties = (s.properties ?? {}) as Json;
      const record = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, validValue(doc, value as Json, depth + 1)]));
      return fc.record(record, { requiredKeys: ((s.required ?? []) as string[]).filter((key) => key in properties) });
    }
    default:
      return stringOf(s);
  }
}

function stringOf(s: Json): fc.Arbitrary<string> {
  const min = (s.minLength as number | undefined) ?? 0;
  const max = (s.maxLength as number | undefined) ?? 40;
  const fits = (value: string) => value.length >= min && value.length <= max;
  switch (s.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    default:
      break;
  }
  if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern)).filter(fits);
  return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 40)) });
}

/** One way to make a valid value invalid: which constraint, where, and the change. */
export interface Violation {
  /** The constraint broken, such as `maxLength 500 at /reason`. */
  constraint: string;
  apply: (value: unknown) => unknown;
}

/** Sets `path` in a copy of `value`, making the objects on the way. */
function setAt(value: unknown, path: string[], next: unknown | typeof OMIT): unknown {
  if (path.length === 0) return next;
  const base: Json = value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Json) } : {};
  const [head, ...rest] = path as [string, ...string[]];
  const inner = setAt(base[head], rest, next);
  if (inner === OMIT) delete base[head];
  else base[head] = inner;
  return base;
}
const OMIT = Symbol('omit');

/**
 * Values of one constraint broken, for a leaf schema; every candidate is checked against the other constraints it
 * must keep. `wire`: the value travels as text (a query or path parameter), where any text is a string.
 */
export function leafViolations(doc: Json, schema: Json | undefined, wire = false): Array<{ constraint: string; value: unknown }> {
  const s = flatten(doc, schema);
  if (!s) return [];
  const out: Array<{ constraint: string; value: unknown }> = [];
  const types = typesOf(s);
  if (Array.isArray(s.enum)) {
    out.push({ constraint: 'enum', value: 'verify_not_in_enum' });
    return out;
  }
  if (types.length > 0 && !types.includes('object') && !types.includes('array') && !(wire && types.includes('string'))) {
    const wrong = !types.includes('string') ? 'verify' : !types.includes('integer') && !types.includes('number') ? 12345 : !types.includes('boolean') ? true : null;
    if (wrong !== null || !types.includes('null')) out.push({ constraint: `type ${types.join('|')}`, value: wrong ?? {} });
  }
  if (types.includes('string')) {
    const pattern = typeof s.pattern === 'string' ? new RegExp(s.pattern) : null;
    const min = s.minLength as number | undefined;
    const max = s.maxLength as number | undefined;
    if (pattern) {
      const bad = ['verify invalid!', '-1', '1.123', 'x', ' '].find((v) => !pattern.test(v) && v.length >= (min ?? 0) && v.length <= (max ?? Infinity));
      if (bad !== undefined) out.push({ constraint: `pattern ${s.pattern}`, value: bad });
    }
    if (min !== undefined && min > 0 && !s.format) out.push({ constraint: `minLength ${min}`, value: '1'.repeat(min - 1) });
    if (max !== undefined && !s.format) {
      const long = ['1', 'a'].map((c) => c.repeat(max + 1)).find((v) => !pattern || pattern.test(v)) ?? 'a'.repeat(max + 1);
      out.push({ constraint: `maxLength ${max}`, value: long });
    }
    if (s.format === 'uuid') out.push({ constraint: 'format uuid', value: 'not-a-uuid' });
    if (s.format === 'date-time') out.push({ constraint: 'format date-time', value: 'not-a-date' });
  }
  if (types.includes('integer') || types.includes('number')) {
    if (typeof s.minimum === 'number' && Number.isSafeInteger(s.minimum - 1)) out.push({ constraint: `minimum ${s.minimum}`, value: s.minimum - 1 });
    if (typeof s.maximum === 'number' && Number.isSafeInteger(s.maximum + 1)) out.push({ constraint: `maximum ${s.maximum}`, value: s.maximum + 1 });
    if (types.includes('integer') && !types.includes('number')) out.push({ constraint: 'type integer (a fraction)', value: 1.5 });
  }
  if (types.includes('array')) {
    for (const v of leafViolations(doc, s.items, wire)) out.push({ constraint: `items ${v.constraint}`, value: [v.value] });
  }
  return out;
}

/** Every single-constraint violation of an object-valued body schema, nested objects included. */
export function bodyViolations(doc: Json, schema: Json | undefined, path: string[] = [], depth = 0): Violation[] {
  const s = flatten(doc, schema);
  if (!s || depth > 4) return [];
  const where = `/${path.join('/')}`;
  const out: Violation[] = [];
  const types = typesOf(s);
  if (types.includes('object') || s.properties) {
    if (!types.includes('null') || path.length === 0) out.push({ constraint: `type object at ${where}`, apply: (v) => setAt(v, path, path.length === 0 ? ['verify'] : 'verify') });
    for (const key of (s.required ?? []) as string[]) out.push({ constraint: `required ${where === '/' ? '' : where}/${key}`, apply: (v) => setAt(setAt(v, path, (pathValue(v, path) as Json) ?? {}), [...path, key], OMIT) });
    if (s.additionalProperties === false) out.push({ constraint: `additionalProperties false at ${where}`, apply: (v) => setAt(v, [...path, 'verify_unknown_property'], 1) });
    for (const [key, sub] of Object.entries((s.properties ?? {}) as Json)) {
      const inner = flatten(doc, sub as Json);
      const innerTypes = inner ? typesOf(inner) : [];
      if (inner && (innerTypes.includes('object') || inner.properties) && !Array.isArray(inner.anyOf)) out.push(...bodyViolations(doc, inner, [...path, key], depth + 1));
      else {
        const options = Array.isArray(inner?.anyOf) ? (inner!.anyOf as Json[]).map((p) => flatten(doc, p)).find((p) => p && typesOf(p).includes('object')) : undefined;
        if (options) out.push(...bodyViolations(doc, options, [...path, key], depth + 1).filter((v) => !v.constraint.startsWith('type object')));
        else for (const leaf of leafViolations(doc, sub as Json)) out.push({ constraint: `${leaf.constraint} at ${where === '/' ? '' : where}/${key}`, apply: (v) => setAt(v, [...path, key], leaf.value) });
      }
    }
  }
  return out;
}

function pathValue(value: unknown, path: string[]): unknown {
  return path.reduce((at: any, key) => (at && typeof at === 'object' ? at[key] : undefined), value);
}

/** A query or path value as it goes on the wire: arrays comma-joined (`style: form`, `explode: false`). */
export function wireValue(value: unknown): string {
  return Array.isArray(value) ? value.map((v) => String(v)).join(',') : String(value);
}
