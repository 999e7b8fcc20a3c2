/**
 * The intermediate model: everything a target needs, read from the spec once. Targets read only this
 * (plus `document`, for the tools that consume OpenAPI directly such as openapi-typescript and Ajv).
 */
import type { JsonObject } from './load.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export interface ParameterModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description: string;
  schema: JsonObject;
  /** Query serialisation (OpenAPI `style`/`explode`), defaults applied. */
  style: string;
  explode: boolean;
  pointer: string;
}

/** A reference to a named component schema, possibly as an array of it. */
export interface TypeRef {
  schema: string;
  array: boolean;
}

export interface ResponseModel {
  status: number;
  description: string;
  /** `data` for `{ data: T }`, `page` for a paginated envelope, `none` for no JSON body. */
  kind: 'data' | 'page' | 'none' | 'error' | 'other';
  /** For `data`: the type of `data`; for `page`: the item type. */
  type: TypeRef | null;
  /** The response's JSON schema (refs intact). */
  schema: JsonObject | null;
  headers: string[];
}

export interface OperationModel {
  operationId: string;
  method: HttpMethod;
  path: string;
  pointer: string;
  summary: string;
  description: string;
  tags: string[];
  /** Client placement, from `x-client`: `resource` null means a method on the client itself. */
  resource: string | null;
  methodName: string;
  /** Name of an order-waiting helper to add beside this read (from `x-client.waiter`). */
  waiter: string | null;
  pathParams: ParameterModel[];
  queryParams: ParameterModel[];
  headerParams: ParameterModel[];
  requestBody: { required: boolean; schema: JsonObject; type: TypeRef | null } | null;
  success: ResponseModel;
  errors: ResponseModel[];
  /** Alternatives from `security`: the token needs every ability of at least one list; `[[]]` = any valid token. */
  abilities: string[][];
  /** Answers 202 with an Order: the outcome arrives later. */
  async: boolean;
  paginated: boolean;
  /** Declares the idempotency header: a write that is safe to retry with its key. */
  idempotent: boolean;
  idempotencyHeader: string | null;
}

export interface EnumModel {
  name: string;
  values: string[];
  descriptions: Record<string, string>;
  description: string;
}

export interface SchemaModel {
  name: string;
  pointer: string;
  description: string;
  schema: JsonObject;
}

export interface EventModel {
  /** The event code, the key under `webhooks`. */
  name: string;
  operationId: string;
  summary: string;
  description: string;
  pointer: string;
  /** Component schema of the whole event body. */
  schemaName: string;
  /** Component schema of `data`. */
  dataSchemaName: string;
  /** Property names of `data`, composition followed. */
  dataFields: string[];
  signatureHeader: string;
  example: unknown;
}

export interface ApiModel {
  title: string;
  version: string;
  /** Absolute path of the spec file. */
  specFile: string;
  /**
   * How generated headers name the spec: its path relative to the asset root (the checkout, or an installed
   * gen-card-api's bundled assets; see core/assets.ts) when it lies inside it (`spec/openapi.yaml`, whatever the
   * working directory), else relative to the working directory, POSIX
   * separators, so that a vendored client's header stays the same on every machine of a team.
   */
  specName: string;
  specHash: string;
  document: JsonObject;
  operations: OperationModel[];
  schemas: SchemaModel[];
  enums: EnumModel[];
  events: EventModel[];
}
