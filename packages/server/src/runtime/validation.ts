// Copied by gen-card-api from templates/server/validation.ts. Do not edit: change the template and run the generator.
/**
 * Request and response validation with Ajv for JSON Schema 2020-12, the dialect of OpenAPI 3.1 (type arrays
 * such as `[string, 'null']`, `const`, `$defs`), with `format` enforced through ajv-formats.
 *
 * Three Ajv instances, because the parts of a request deserve different treatment:
 * - path, query and headers arrive as strings, so they are coerced (`page=2` becomes 2) and get defaults;
 * - a JSON body is never coerced: `"card_product_id": "1"` is a client bug and answers 422;
 * - responses are checked strictly before fast-json-stringify serialises them, because that serialiser
 *   coerces (a number becomes a string) and drops unknown fields silently: validating first turns a handler's
 *   wrong body into a logged 500 instead of a quietly different payload.
 */
import { Ajv2020, type ErrorObject, type FormatDefinition, type Options, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { FieldErrors } from './errors.js';
import type { JsonSchema } from './types.js';

/** The request parts Fastify validates, named as Fastify names them. */
export type RequestPart = 'params' | 'querystring' | 'headers' | 'body';

/** An Ajv-style validator, as Fastify expects from a validator compiler. */
export interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null | undefined;
}

export interface SchemaValidators {
  /** A validator for one request part; an optional body also accepts no body at all. */
  request(schema: JsonSchema, part: RequestPart, options?: { optional?: boolean }): Validator;
  /** A strict validator for a response body. */
  response(schema: JsonSchema): ValidateFunction;
}

const COMMON: Options = { strict: true, allowUnionTypes: true, allErrors: true, validateFormats: true };

/** Days of each month in a common year (index 1 = January). */
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The decimal value of `length` ASCII digits of `s` from `at`, or -1 if one of them is not a digit. */
function digitsAt(s: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * True for a valid RFC 3339 date-time in the one form servers emit most, UTC as `Date#toISOString` writes it
 * (`2026-03-01T12:00:00.000Z`, any number of fraction digits or none), checked without a regular expression or an
 * allocation. False means "not this form", not "invalid": the caller then asks the full validator. Every date-time
 * of every response is validated, and ajv-formats' check (a split and two regular expressions with captures) was
 * the largest part of validating a card.
 */
export function isCanonicalUtcDateTime(s: string): boolean {
  const n = s.length;
  if (n < 20 || s.charCodeAt(n - 1) !== 90 /* Z */) return false;
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
  if (n > 20) {
    // A fraction: a dot and at least one digit before the Z.
    if (s.charCodeAt(19) !== 46 || n === 21 || digitsAt(s, 20, n - 21) < 0) return false;
  }
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 2);
  const day = digitsAt(s, 8, 2);
  const hour = digitsAt(s, 11, 2);
  const minute = digitsAt(s, 14, 2);
  const second = digitsAt(s, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month]!);
}

/** ajv-formats' full `date-time` format, behind the allocation-free check of the common UTC form. */
function dateTimeFormat(): FormatDefinition<string> {
  const full = formats.default.get('date-time') as FormatDefinition<string>;
  const validate = full.validate as (s: string) => boolean;
  return { ...full, validate: (s: string) => isCanonicalUtcDateTime(s) || validate(s) };
}

function instance(options: Options, schemas: readonly JsonSchema[], custom: readonly string[]): Ajv2020 {
  const ajv = new Ajv2020({ ...COMMON, ...options });
  formats.default(ajv);
  ajv.addFormat('date-time', dateTimeFormat());
  // `true`: Ajv's "known, always valid" (ApiDefinition.formats).
  for (const name of custom) ajv.addFormat(name, true);
  for (const schema of schemas) ajv.addSchema(schema as Record<string, unknown>);
  return ajv;
}

/**
 * Builds the three Ajv instances over the shared component schemas and caches compiled validators. `customFormats`
 * are the spec's formats that ajv-formats does not define, accepted without a check (ApiDefinition.formats).
 */
export function createSchemaValidators(schemas: readonly JsonSchema[], customFormats: readonly string[] = []): SchemaValidators {
  const coercing = instance({ coerceTypes: 'array', useDefaults: true }, schemas, customFormats);
  const body = instance({ coerceTypes: false, useDefaults: false }, schemas, customFormats);
  const response = instance({ coerceTypes: false, useDefaults: false }, schemas, customFormats);
  return {
    request(schema, part, options = {}) {
      const validate = (part === 'body' ? body : coercing).compile(schema as Record<string, unknown>);
      if (!options.optional) return validate;
      // Fastify validates a missing body as null; an operation whose body is optional accepts that.
      const optional: Validator = (data) => {
        if (data === null || data === undefined) {
          optional.errors = null;
          return true;
        }
        const ok = validate(data);
        optional.errors = validate.errors;
        return ok;
      };
      return optional;
    },
    response(schema) {
      return response.compile(schema as Record<string, unknown>);
    },
  };
}

/**
 * Splits `style: form, explode: false` array parameters (`status=active,frozen`) in place, before validation
 * coerces and checks the items. A repeated parameter (`status=a&status=b`) is accepted too.
 */
export function splitCommaSeparated(query: Record<string, unknown>, names: readonly string[]): void {
  for (const name of names) {
    const value = query[name];
    if (typeof value === 'string') query[name] = value.split(',');
    else if (Array.isArray(value)) query[name] = value.flatMap((v) => (typeof v === 'string' ? v.split(',') : [v]));
  }
}

function pathOf(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') segments.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') segments.push(params.additionalProperty);
  return segments.join('.');
}

function messageOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  const list = (value: unknown): string => (Array.isArray(value) ? value.map(String).join(', ') : String(value));
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'additionalProperties':
      return 'This field is not allowed.';
    case 'type':
      return `Must be of type ${list(p.type).replace(/, /g, ' or ')}.`;
    case 'enum':
      return `Must be one of: ${list(p.allowedValues)}.`;
    case 'const':
      return `Must be ${JSON.stringify(p.allowedValue)}.`;
    case 'pattern':
      return `Must match the pattern ${String(p.pattern)}.`;
    case 'format':
      return `Must be a valid ${String(p.format)}.`;
    case 'minLength':
      return `Must be at least ${String(p.limit)} characters.`;
    case 'maxLength':
      return `Must be at most ${String(p.limit)} characters.`;
    case 'minimum':
      return `Must be at least ${String(p.limit)}.`;
    case 'maximum':
      return `Must be at most ${String(p.limit)}.`;
    case 'minItems':
      return `Must have at least ${String(p.limit)} items.`;
    case 'maxItems':
      return `Must have at most ${String(p.limit)} items.`;
    case 'uniqueItems':
      return 'Must not contain duplicates.';
    case 'anyOf':
    case 'oneOf':
      return 'Does not match any allowed shape.';
    default: {
      const text = error.message ?? 'is invalid';
      return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
    }
  }
}

/**
 * Turns Ajv errors into D2 field errors: `{ 'billing_address.country': ['Must match the pattern ^[A-Z]{2}$.'] }`.
 * An error on the whole part is keyed by the part (`body`). Under `anyOf` with a `null` branch (a nullable
 * field), the branch's "must be null" is noise and is dropped.
 */
export function toFieldErrors(errors: readonly ErrorObject[], part: RequestPart): FieldErrors {
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath));
  // A prototype-free map: a client may name a field `valueOf` or `__proto__`, which must be keyed, not inherited.
  const fields: FieldErrors = Object.create(null) as FieldErrors;
  for (const error of errors) {
    const nullBranch = error.keyword === 'type' && (error.params as { type?: unknown }).type === 'null' && anyOfPaths.has(error.instancePath);
    if (nullBranch) continue;
    const key = pathOf(error) || part;
    const messages = (fields[key] ??= []);
    const message = messageOf(error);
    if (!messages.includes(message)) messages.push(message);
  }
  return fields;
}
