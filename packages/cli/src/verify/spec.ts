/**
 * The spec as verify reads it: the document loaded through the generators' loader, a strict Ajv 2020
 * validator over its component schemas, and the operation table (method, path template, operationId,
 * declared statuses and headers) that every other part of verify looks operations up in. Nothing here names an
 * endpoint: list operations, pagination parameters, event names and schemas all come from the document.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { loadSpec } from '../../../../generators/model/load.js';

type Json = Record<string, any>;

const SCHEMA_KEYWORDS_TO_DROP = ['x-enumDescriptions', 'x-assumption', 'example', 'examples', 'deprecated', 'xml', 'externalDocs', 'discriminator'];

/** Component names used as `allOf` bases: closing them would reject the fields their composites add. */
function allOfBases(schemas: Json): Set<string> {
  const bases = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const part of ((node as Json).allOf ?? []) as Json[]) if (typeof part.$ref === 'string') bases.add(part.$ref.split('/').pop()!);
    Object.values(node as Json).forEach(visit);
  };
  visit(schemas);
  return bases;
}

/**
 * Prepares a schema for Ajv: drops annotation keywords Ajv does not know, points `$ref`s at the registered
 * document and, when `strict`, closes every object schema that lists properties (`unevaluatedProperties: false`),
 * so that an undeclared field (a leaked PAN, a typo) fails instead of passing silently.
 */
function prepare(node: unknown, strict: boolean, open = false): unknown {
  if (Array.isArray(node)) return node.map((n) => prepare(n, strict));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (SCHEMA_KEYWORDS_TO_DROP.includes(key)) continue;
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, prepare(v, strict)]));
    else if (key === 'allOf') out[key] = (value as unknown[]).map((part) => prepare(part, strict, true));
    else out[key] = prepare(value, strict);
  }
  if (out.$ref && typeof out.$ref === 'string') out.$ref = `spec.json${out.$ref}`;
  const closable = strict && !open && out.additionalProperties === undefined && out.unevaluatedProperties === undefined;
  if (closable && (out.properties || out.allOf)) out.unevaluatedProperties = false;
  return out;
}

function prepareComponents(schemas: Json, strict: boolean): Json {
  const bases = strict ? allOfBases(schemas) : new Set<string>();
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, prepare(schema, strict, bases.has(name))]));
}

const formatErrors = (fn: ValidateFunction): string[] => (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'} ${JSON.stringify(e.params)}`);

/**
 * Strict validation of values against a spec document (OpenAPI 3.1 = JSON Schema 2020-12): the validator the
 * contract tests use and `gen-card-api verify` ships.
 */
export class SchemaValidator {
  readonly document: Json;
  readonly #ajv: Ajv2020;
  readonly #cache = new Map<string, ValidateFunction>();
  readonly #strict: boolean;

  constructor(document: Json, options: { strict?: boolean } = {}) {
    this.document = document;
    this.#strict = options.strict ?? false;
    this.#ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(this.#ajv);
    const components = { components: { schemas: prepareComponents(document.components?.schemas ?? {}, this.#strict) } };
    this.#ajv.addSchema({ $id: 'spec.json', ...components });
  }

  #validator(ref: string): ValidateFunction {
    let fn = this.#cache.get(ref);
    if (!fn) {
      fn = this.#ajv.compile({ $ref: `spec.json${ref}` });
      this.#cache.set(ref, fn);
    }
    return fn;
  }

  /** Errors of `value` against an inline schema or a `$ref` into the document; empty when valid. */
  errors(schema: Json, value: unknown): string[] {
    const fn = typeof schema.$ref === 'string' ? this.#validator(schema.$ref) : this.#compileInline(schema);
    return fn(value) ? [] : formatErrors(fn);
  }

  #compileInline(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let fn = this.#cache.get(key);
    if (!fn) {
      fn = this.#ajv.compile(prepare(schema, this.#strict) as Json);
      this.#cache.set(key, fn);
    }
    return fn;
  }

  /** Errors of `value` against `#/components/schemas/<name>`; empty when valid. */
  schemaErrors(name: string, value: unknown): string[] {
    return this.errors({ $ref: `#/components/schemas/${name}` }, value);
  }

  /** The request-body schema the spec declares for a webhook event, or undefined for an unknown event. */
  webhookSchema(event: string): Json | undefined {
    return this.document.webhooks?.[event]?.post?.requestBody?.content?.['application/json']?.schema;
  }

  /** Errors of a webhook body against the schema the spec declares for its event. */
  webhookErrors(body: unknown): string[] {
    const name = String((body as { event?: unknown } | null)?.event);
    const schema = this.webhookSchema(name);
    if (!schema) return [`no webhook ${name} in the spec`];
    return this.errors(schema, body);
  }

  /** Errors of a response: declared status, JSON content type, body schema (the test suites' entry point). */
  responseErrors(method: string, route: string, status: number, contentType: string | null, body: unknown): string[] {
    const op = this.document.paths?.[route]?.[method.toLowerCase()];
    if (!op) return [`no operation ${method} ${route}`];
    const response = resolveResponse(this.document, op.responses?.[String(status)]);
    if (!response) return [`${method} ${route} does not declare status ${status}`];
    const media = response.content?.['application/json'];
    if (!media) return body === undefined || body === '' ? [] : [`${method} ${route} ${status} declares no body`];
    if (!contentType?.startsWith('application/json')) return [`content type ${contentType} is not application/json`];
    return this.errors(media.schema as Json, body);
  }
}

/** A response object with its `$ref` followed. */
export function resolveResponse(document: Json, response: Json | undefined): Json | undefined {
  if (!response) return undefined;
  if (typeof response.$ref === 'string') return document.components?.responses?.[response.$ref.split('/').pop()!];
  return response;
}

/** A parameter object with its `$ref` followed. */
function resolveParameter(document: Json, parameter: Json): Json {
  if (typeof parameter.$ref === 'string') return document.components?.parameters?.[parameter.$ref.split('/').pop()!] ?? {};
  return parameter;
}

/** A schema with a top-level `$ref` followed (one level, enough for parameter schemas). */
export function resolveSchema(document: Json, schema: Json | undefined): Json | undefined {
  if (schema && typeof schema.$ref === 'string') return document.components?.schemas?.[schema.$ref.split('/').pop()!];
  return schema;
}

/** One operation of the spec. */
export interface SpecOperation {
  operationId: string;
  method: string;
  /** Path template below the API root, such as `/cards/{uuid}`. */
  route: string;
  pattern: RegExp;
  /** Parameters (path-level and operation-level), `$ref`s followed. */
  parameters: Json[];
  /** The operation object. */
  op: Json;
}

/** The loaded spec, its strict validator and its operation table. */
export class VerifySpec {
  readonly document: Json;
  readonly validator: SchemaValidator;
  readonly operations: SpecOperation[];

  constructor(document: Json) {
    this.document = document;
    this.validator = new SchemaValidator(document, { strict: true });
    this.operations = Object.entries((document.paths ?? {}) as Record<string, Json>).flatMap(([route, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, op]) => ({
          operationId: String((op as Json).operationId),
          method: method.toUpperCase(),
          route,
          pattern: new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
          parameters: [...((item.parameters ?? []) as Json[]), ...(((op as Json).parameters ?? []) as Json[])].map((p) => resolveParameter(document, p)),
          op: op as Json,
        })),
    );
  }

  /** Loads a spec file through the generators' loader (bundled, validated as OpenAPI 3.1). */
  static async load(file: string): Promise<VerifySpec> {
    const { document } = await loadSpec(file);
    return new VerifySpec(document as Json);
  }

  /** The operation with this operationId; throws when the spec has none (verify cannot run its flow then). */
  operation(operationId: string): SpecOperation {
    const found = this.operations.find((o) => o.operationId === operationId);
    if (!found) throw new Error(`the spec has no operation ${operationId}`);
    return found;
  }

  /** The operation a request went to, from its method and path below the API root. */
  operationOf(method: string, pathBelowRoot: string): SpecOperation | undefined {
    return this.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(pathBelowRoot));
  }

  /** The response object declared for a status (exact code, then `4XX`-style ranges), `$ref` followed. */
  declaredResponse(operation: SpecOperation, status: number): Json | undefined {
    const responses = (operation.op.responses ?? {}) as Json;
    return resolveResponse(this.document, responses[String(status)] ?? responses[`${String(status)[0]}XX`]);
  }

  /** Paginated list operations: GETs that take both `page` and `per_page` query parameters (contract section 4). */
  listOperations(): SpecOperation[] {
    return this.operations.filter((o) => o.method === 'GET' && this.queryParameter(o, 'page') && this.queryParameter(o, 'per_page'));
  }

  queryParameter(operation: SpecOperation, name: string): Json | undefined {
    return operation.parameters.find((p) => p.in === 'query' && p.name === name);
  }

  pathParameters(operation: SpecOperation): Json[] {
    return operation.parameters.filter((p) => p.in === 'path');
  }

  /** Every event code of the spec's `webhooks`. */
  eventNames(): string[] {
    return Object.keys(this.document.webhooks ?? {});
  }

  /** Values of an enum schema reached from a parameter (array items followed), or []. */
  enumOf(schema: Json | undefined): string[] {
    let s = resolveSchema(this.document, schema);
    if (s?.type === 'array') s = resolveSchema(this.document, s.items);
    return Array.isArray(s?.enum) ? (s!.enum as string[]) : [];
  }

  /** The schema of a component. */
  component(name: string): Json | undefined {
    return this.document.components?.schemas?.[name];
  }
}
