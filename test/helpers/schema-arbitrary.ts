/**
 * fast-check arbitraries from an OpenAPI 3.1 document: values that satisfy a schema (the subset the
 * project's documents use: $ref, allOf, oneOf/anyOf, enum, const, type arrays, string formats and patterns,
 * numeric bounds, arrays, objects with required keys), and the operations with their parameters.
 */
import fc from 'fast-check';

type Json = Record<string, any>;

/** One operation of a document, with everything needed to build a request. */
export interface DocOperation {
  operationId: string;
  method: string;
  /** Path template, `/cards/{uuid}`. */
  route: string;
  pattern: RegExp;
  statuses: number[];
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Json }>;
  body: Json | undefined;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function resolve(doc: Json, node: Json): Json {
  let current = node;
  for (let depth = 0; current && typeof current.$ref === 'string' && depth < 20; depth++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, key: string) => at?.[key], doc);
  }
  return current;
}

/** Every operation of `doc`. */
export function operationsOf(doc: Json): DocOperation[] {
  return Object.entries(doc.paths as Json).flatMap(([route, rawItem]) => {
    const item = rawItem as Json;
    return Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, rawOp]) => {
        const op = rawOp as Json;
        const parameters = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map((p) => {
          const param = resolve(doc, p);
          return { name: param.name as string, in: param.in as 'path' | 'query' | 'header', required: param.required === true, schema: param.schema as Json };
        });
        const body = op.requestBody ? (resolve(doc, op.requestBody).content?.['application/json']?.schema as Json | undefined) : undefined;
        return {
          operationId: op.operationId as string,
          method: method.toUpperCase(),
          route,
          // As Fastify's router matches: a parameter may be empty (`/cards//topup` reaches the route).
          pattern: new RegExp(`^${route.replace(/\{[^}]+\}/g, '[^/]*')}$`),
          statuses: Object.keys(op.responses).map(Number),
          parameters,
          body,
        };
      });
  });
}

/** An arbitrary of values valid against `schema` (resolved in `doc`). */
export function valueOf(doc: Json, schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 8) return fc.constant(null);
  const s = resolve(doc, schema);
  if (s === undefined || s === null) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return fc.oneof(...((s.oneOf ?? s.anyOf) as Json[]).map((part) => valueOf(doc, part, depth + 1)));
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as Json[]).map((part) => resolve(doc, part));
    const merged: Json = { type: 'object', properties: {}, required: [] };
    for (const part of [...parts, s]) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...((part.required ?? []) as string[]));
    }
    return valueOf(doc, merged, depth + 1);
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : ['string'];
  return fc.oneof(...types.map((type) => ofType(doc, s, type, depth)));
}

function ofType(doc: Json, s: Json, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'array':
      return fc.array(valueOf(doc, s.items, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, 4) });
    case 'object': {
      const properties = (s.properties ?? {}) as Json;
      const record = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, valueOf(doc, value as Json, depth + 1)]));
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
