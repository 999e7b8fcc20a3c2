// Copied by gen-card-api from templates/server/types.ts. Do not edit: change the template and run the generator.
/**
 * The shapes shared by the generated route table, the plugin and handler authors. Handler types are derived
 * from openapi-typescript's `operations[...]` entries, so the generated package only names the operation and
 * its success status; this file turns that into `{ params, query, headers, body, auth, request }` and a reply.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { DocsOutline } from './docs.js';

/** A JSON Schema (2020-12) as emitted into the route table. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** One operation of the spec, as the plugin registers it. Generated; never written by hand outside tests. */
export interface RouteDefinition {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The OpenAPI path template, `/cards/{uuid}`. */
  readonly path: string;
  /** The Fastify URL, `/cards/:uuid`. */
  readonly url: string;
  /** Alternatives: the token needs every ability of at least one list; `[[]]` lets any valid token in. */
  readonly abilities: ReadonlyArray<ReadonlyArray<string>>;
  readonly idempotencyHeader: string | null;
  readonly successStatus: number;
  /** Answers 202 with an Order. */
  readonly async: boolean;
  /** Query parameters serialised `style: form, explode: false` as arrays: split on commas before validation. */
  readonly commaSeparatedQuery: readonly string[];
  readonly bodyRequired: boolean;
  readonly schema: {
    readonly params?: JsonSchema;
    readonly querystring?: JsonSchema;
    readonly headers?: JsonSchema;
    readonly body?: JsonSchema;
    /** Response body schema by status; statuses without a JSON body are absent. */
    readonly response: Readonly<Record<number, JsonSchema>>;
  };
}

/** Everything the generator knows that the plugin needs: the routes, the shared schemas, the spec text. */
export interface ApiDefinition {
  readonly title: string;
  readonly routes: readonly RouteDefinition[];
  /** Shared schemas with `$id`s that route schemas `$ref` (the spec's components). */
  readonly schemas: readonly JsonSchema[];
  /** The bundled spec, served at `<prefix>/openapi.yaml`. */
  readonly openapiYaml: string;
  /** The spec's outline, rendered into `<prefix>/docs` before its script runs (generated; absent: an empty page until then). */
  readonly outline?: DocsOutline | undefined;
  /**
   * Formats the spec uses that ajv-formats does not define (`iban`): each is accepted without a check, a documented
   * no-op, so that Ajv's strict mode builds the schemas. Validate such a value in the handler if it matters.
   */
  readonly formats?: readonly string[] | undefined;
}

export type WorkspaceStatus = 'active' | 'frozen' | 'deleted';

/** What `authenticate` resolves a bearer token to. Extend it freely: handlers receive your type back. */
export interface AuthResult {
  readonly workspace: { readonly id: string | number; readonly status: WorkspaceStatus | (string & {}) };
  readonly abilities: readonly string[];
  /** CIDR entries, IPv4 or IPv6; a bare address is one host; empty allows every IP (contract 5.6). */
  readonly ipAllowlist: readonly string[];
  /** The token's own per-minute ceiling; the plugin's default applies when absent. */
  readonly rateLimitPerMinute?: number | undefined;
  /**
   * A known token that may not be used: answered 401, unless its workspace is inactive (then 403, D16).
   * Absent means active.
   */
  readonly tokenStatus?: 'active' | 'revoked' | 'expired' | 'disabled' | undefined;
  /** Stable key of the token for rate limiting (a token id); a hash of the token when absent. */
  readonly rateLimitKey?: string | undefined;
}

type Empty = Record<never, never>;
type Present<T, Fallback> = [NonNullable<T>] extends [never] ? Fallback : NonNullable<T>;
type ParameterPart<Op, K extends string> = Op extends { parameters: infer P } ? (K extends keyof P ? Present<P[K], Empty> : Empty) : Empty;
type LowercaseKeys<T> = { [K in keyof T as K extends string ? Lowercase<K> : K]: T[K] };
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
type ResponsesOf<Op> = Op extends { responses: infer R } ? R : never;
type RequestBodyOf<Op> = Op extends { requestBody?: infer RB }
  ? [NonNullable<RB>] extends [never]
    ? undefined
    : Op extends { requestBody: unknown }
      ? JsonContent<NonNullable<RB>>
      : JsonContent<NonNullable<RB>> | undefined
  : undefined;

/** The documented statuses of an openapi-typescript operation. */
export type StatusOf<Op> = keyof ResponsesOf<Op> & number;

/** The JSON body of one documented response of an operation. */
export type ResponseBody<Op, S extends StatusOf<Op>> = JsonContent<ResponsesOf<Op>[S]>;

/** `{ status, body }` for any documented status of the operation, typed per status. */
export type StatusReply<Op> = { [S in StatusOf<Op>]: { status: S; body: ResponseBody<Op, S> } }[StatusOf<Op>];

/** What a handler returns: the success body, or `{ status, body }` for another documented response. */
export type HandlerResult<Op, Success extends StatusOf<Op>> = ResponseBody<Op, Success> | StatusReply<Op>;

/** The validated request, as a handler sees it. Header names are lower case, as Node delivers them. */
export interface HandlerInput<Op, Auth extends AuthResult = AuthResult> {
  params: ParameterPart<Op, 'path'>;
  query: ParameterPart<Op, 'query'>;
  headers: LowercaseKeys<ParameterPart<Op, 'header'>> & IncomingHttpHeaders;
  body: RequestBodyOf<Op>;
  /** What `authenticate` returned for the bearer token, after every access check passed. */
  auth: Auth;
  /** The id sent as `X-Request-Id`; put it in `request_id` of an error body returned as `{ status, body }`. */
  requestId: string;
  /** The Fastify request, for logging and anything the spec does not model. */
  request: FastifyRequest;
}

/**
 * A handler for an openapi-typescript operation `Op` whose success status is `Success`.
 * It returns the success body (or `{ status, body }` for another documented response) and may throw an
 * `ApiError`; any other throw becomes `500 api.internal_error`.
 */
export type OperationHandler<Op, Success extends StatusOf<Op>, Auth extends AuthResult = AuthResult> = (
  input: HandlerInput<Op, Auth>,
) => HandlerResult<Op, Success> | Promise<HandlerResult<Op, Success>>;
