/**
 * OpenAPI 3.1 Schema Object (OAS 3.1 section 4.8.24, JSON Schema 2020-12) → the schema Fastify, Ajv and
 * fast-json-stringify receive: validation keywords kept as written, `$ref`s to components rewritten into the
 * shared schema set, and annotations dropped (descriptions, examples, `x-` extensions and the OpenAPI-only
 * keywords) since the served spec keeps them and Ajv's strict mode rejects the unknown ones.
 */
import { componentRef, fail, type ServerContext } from './context.js';
import type { JsonObject } from '../model/index.js';

/** Keywords whose value is one schema. */
const SCHEMA_KEYWORDS = new Set([
  'items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema',
]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas (the names are data, never keywords). */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
/** Annotations and OpenAPI-only keywords: no effect on validation or serialisation. */
const DROPPED = new Set(['description', 'title', 'example', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly', 'discriminator', 'xml', 'externalDocs']);

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Transforms one schema. `at` is the JSON pointer of `node` in the spec, used in error messages.
 * Property order is kept as written: it is the field order fast-json-stringify writes.
 */
export function transformSchemaObject(node: unknown, ctx: ServerContext, at: string): JsonObject | boolean {
  if (typeof node === 'boolean') return node;
  if (!isObject(node)) return fail(ctx, at, 'a schema must be an object or a boolean');
  const out: JsonObject = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (DROPPED.has(keyword) || keyword.startsWith('x-')) continue;
    const here = `${at}/${keyword.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (keyword === '$ref') {
      const match = typeof value === 'string' ? COMPONENT_REF.exec(value) : null;
      if (!match?.[1]) fail(ctx, here, `only references to #/components/schemas/* are supported in schemas, found ${JSON.stringify(value)}`);
      out.$ref = componentRef(ctx, match[1]);
    } else if (SCHEMA_KEYWORDS.has(keyword)) {
      out[keyword] = transformSchemaObject(value, ctx, here);
    } else if (SCHEMA_LIST_KEYWORDS.has(keyword)) {
      if (!Array.isArray(value)) fail(ctx, here, `${keyword} must be a list of schemas`);
      out[keyword] = value.map((item, i) => transformSchemaObject(item, ctx, `${here}/${i}`));
    } else if (SCHEMA_MAP_KEYWORDS.has(keyword)) {
      if (!isObject(value)) fail(ctx, here, `${keyword} must map names to schemas`);
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, transformSchemaObject(schema, ctx, `${here}/${name}`)]));
    } else {
      out[keyword] = value;
    }
  }
  return out;
}
