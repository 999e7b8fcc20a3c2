// Copied by gen-card-api from templates/client/query.ts. Do not edit: change the template and run the generator.
/**
 * Query-string serialisation per operation, on top of openapi-fetch's primitives.
 *
 * openapi-fetch takes one array style for a whole client, while the spec gives it per parameter
 * (`status` of `GET /cards` is comma-separated, `explode: false`). So each operation gets its own
 * serializer, built once and cached by descriptor.
 *
 * @module
 */
import { serializeArrayParam, serializeObjectParam, serializePrimitiveParam } from 'openapi-fetch';

/** Serialisation of one query parameter, as the OpenAPI description states it. */
export interface QueryParamStyle {
  style: 'form';
  explode: boolean;
}

/** A function from a query object to a query string without the leading `?`. */
export type QuerySerializerFn = (query: Record<string, unknown>) => string;

const EMPTY: Readonly<Record<string, QueryParamStyle>> = Object.freeze({});

/**
 * Builds a serializer: arrays follow the parameter's style (OpenAPI's default `form` + `explode`
 * when the parameter is not listed), `Date` values become ISO 8601 strings, `null` and `undefined`
 * are left out, and other values are sent as given.
 *
 * @example
 * ```ts
 * const s = createQuerySerializerFor({ status: { style: 'form', explode: false } });
 * s({ status: ['active', 'frozen'], page: 2 }); // "status=active,frozen&page=2"
 * ```
 */
export function createQuerySerializerFor(styles: Readonly<Record<string, QueryParamStyle>> = EMPTY): QuerySerializerFn {
  return (query) => {
    let out = '';
    for (const name in query) {
      const value = query[name];
      if (value === undefined || value === null) continue;
      let part: string;
      if (Array.isArray(value)) {
        if (value.length === 0) continue;
        const style = styles[name];
        part = serializeArrayParam(name, value.map(scalar), { style: 'form', explode: style ? style.explode : true });
      } else if (value instanceof Date) {
        part = serializePrimitiveParam(name, value.toISOString());
      } else if (typeof value === 'object') {
        part = serializeObjectParam(name, value as Record<string, unknown>, { style: 'deepObject', explode: true });
      } else {
        part = serializePrimitiveParam(name, String(value));
      }
      if (part !== '') out = out === '' ? part : `${out}&${part}`;
    }
    return out;
  };
}

function scalar(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}
