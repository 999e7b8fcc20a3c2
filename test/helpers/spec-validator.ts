/**
 * Validates values against the spec with an OpenAPI 3.1-aware validator: Ajv in JSON Schema 2020-12 mode
 * (type arrays, const, unevaluatedProperties), every component schema registered under its `$ref` URI.
 * `strict: true` closes every object schema that lists properties, so an undeclared field (a leaked PAN,
 * a typo) fails instead of passing silently.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { SPEC_PATH } from './spec.js';

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

export class SpecValidator {
  readonly document: Json;
  readonly #ajv: Ajv2020;
  readonly #cache = new Map<string, ValidateFunction>();

  constructor(options: { strict?: boolean } = {}) {
    this.document = parse(readFileSync(SPEC_PATH, 'utf8')) as Json;
    this.#ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(this.#ajv);
    const components = { components: { schemas: prepareComponents(this.document.components.schemas, options.strict ?? false) } };
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

  /** Errors of `value` against `#/components/schemas/<name>`, as readable strings; empty when valid. */
  schemaErrors(name: string, value: unknown): string[] {
    const fn = this.#validator(`#/components/schemas/${name}`);
    return fn(value) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** Errors of a webhook body against the schema the spec declares for that event. */
  webhookErrors(body: unknown): string[] {
    const name = String((body as { event?: unknown } | null)?.event);
    const hook = this.document.webhooks?.[name]?.post;
    if (!hook) return [`no webhook ${name} in the spec`];
    const ref = hook.requestBody.content['application/json'].schema.$ref as string;
    return this.schemaErrors(ref.split('/').pop()!, body);
  }

  /** Errors of a response: declared status, JSON content type, body schema. */
  responseErrors(method: string, route: string, status: number, contentType: string | null, body: unknown): string[] {
    const op = this.document.paths?.[route]?.[method.toLowerCase()];
    if (!op) return [`no operation ${method} ${route}`];
    let response = op.responses?.[String(status)];
    if (!response) return [`${method} ${route} does not declare status ${status}`];
    if (response.$ref) response = this.document.components.responses[String(response.$ref).split('/').pop()!];
    const media = response.content?.['application/json'];
    if (!media) return body === undefined || body === '' ? [] : [`${method} ${route} ${status} declares no body`];
    if (!contentType?.startsWith('application/json')) return [`content type ${contentType} is not application/json`];
    const schema = media.schema as Json;
    const fn = schema.$ref ? this.#validator(schema.$ref) : this.#ajv.compile(prepare(schema, false) as Json);
    return fn(body) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
