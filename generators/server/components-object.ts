/**
 * OpenAPI 3.1 Components Object, `schemas` (OAS 3.1 section 4.8.7) → one shared schema with an `$id` whose
 * `$defs` hold every component schema once. Fastify (`addSchema`, for fast-json-stringify) and the runtime's
 * Ajv instances load it, and route schemas point into it, so no schema is duplicated per route.
 */
import type { ServerContext } from './context.js';
import { transformSchemaObject } from './schema-object.js';
import type { JsonObject } from '../model/index.js';

/** The shared schema set: `{ $id: 'card-api.json', $defs: { <Name>: schema } }`, names sorted. */
export function transformComponentsObject(ctx: ServerContext): JsonObject {
  const defs: JsonObject = {};
  for (const schema of ctx.model.schemas) defs[schema.name] = transformSchemaObject(schema.schema, ctx, schema.pointer);
  return { $id: ctx.schemaId, $defs: defs };
}
