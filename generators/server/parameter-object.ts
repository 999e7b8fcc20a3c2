/**
 * OpenAPI 3.1 Parameter Objects (OAS 3.1 section 4.8.12) of one location → the object schema Fastify
 * validates that request part with: `params`, `querystring` or `headers`.
 */
import type { ServerContext } from './context.js';
import { transformSchemaObject } from './schema-object.js';
import type { JsonObject, ParameterModel } from '../model/index.js';

/**
 * The object schema of a list of parameters, or null when there are none. Header names are lower-cased,
 * because Node delivers them so. Unknown query parameters and headers stay allowed: clients and proxies add
 * their own.
 */
export function transformParameters(params: readonly ParameterModel[], ctx: ServerContext): JsonObject | null {
  if (params.length === 0) return null;
  const name = (p: ParameterModel): string => (p.in === 'header' ? p.name.toLowerCase() : p.name);
  const properties = Object.fromEntries(params.map((p) => [name(p), transformSchemaObject(p.schema, ctx, `${p.pointer}/schema`)]));
  const required = params.filter((p) => p.required).map(name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** Query parameters serialised as comma-separated arrays (`style: form, explode: false`). */
export function commaSeparatedQuery(params: readonly ParameterModel[]): string[] {
  return params.filter((p) => p.in === 'query' && p.style === 'form' && !p.explode && p.schema.type === 'array').map((p) => p.name);
}
