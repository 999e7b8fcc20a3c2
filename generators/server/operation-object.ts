/**
 * OpenAPI 3.1 Operation Object (OAS 3.1 section 4.8.10) → one route-table entry: method, Fastify URL,
 * abilities (from `security`), idempotency header, success status and the JSON Schemas of every request part
 * and of every documented response body.
 */
import type { ServerContext } from './context.js';
import { commaSeparatedQuery, transformParameters } from './parameter-object.js';
import { transformSchemaObject } from './schema-object.js';
import type { JsonObject, OperationModel } from '../model/index.js';

/** A route-table entry as plain data; its shape is the runtime's `RouteDefinition`. */
export interface RouteEntry {
  operationId: string;
  method: string;
  path: string;
  url: string;
  abilities: string[][];
  idempotencyHeader: string | null;
  successStatus: number;
  async: boolean;
  commaSeparatedQuery: string[];
  bodyRequired: boolean;
  schema: JsonObject;
}

/** `/cards/{uuid}/topup` → `/cards/:uuid/topup`. */
export function fastifyUrl(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** The route-table entry of one operation. */
export function transformOperationObject(op: OperationModel, ctx: ServerContext): RouteEntry {
  const schema: JsonObject = {};
  const params = transformParameters(op.pathParams, ctx);
  const querystring = transformParameters(op.queryParams, ctx);
  const headers = transformParameters(op.headerParams, ctx);
  if (params) schema.params = params;
  if (querystring) schema.querystring = querystring;
  if (headers) schema.headers = headers;
  if (op.requestBody) schema.body = transformSchemaObject(op.requestBody.schema, ctx, `${op.pointer}/requestBody`);
  const response: JsonObject = {};
  for (const r of [op.success, ...op.errors]) {
    if (r.schema) response[String(r.status)] = transformSchemaObject(r.schema, ctx, `${op.pointer}/responses/${r.status}`);
  }
  schema.response = response;
  return {
    operationId: op.operationId,
    method: op.method.toUpperCase(),
    path: op.path,
    url: fastifyUrl(op.path),
    abilities: op.abilities,
    idempotencyHeader: op.idempotencyHeader,
    successStatus: op.success.status,
    async: op.async,
    commaSeparatedQuery: commaSeparatedQuery(op.queryParams),
    bodyRequired: op.requestBody?.required ?? false,
    schema,
  };
}
