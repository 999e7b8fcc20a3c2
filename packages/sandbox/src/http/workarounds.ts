/**
 * Workaround for a bug in the server runtime (templates/server/validation.ts `toFieldErrors`): it collects
 * field errors in a `{}` literal, so a field named like an `Object.prototype` member (`valueOf`, `toString`,
 * `constructor`, `__proto__`...) finds the inherited member instead of an array and the error handler throws,
 * answering 500 `api.internal_error` to what is a plain 422. Every request body of the spec is a closed
 * object (`additionalProperties: false`), so such a key is always invalid: this hook answers it 422
 * `validation.failed` before Fastify's validation runs. Unknown query parameters are dropped by the runtime,
 * not reported, so queries are left alone. Remove it once the runtime builds its field map with `Object.create(null)`.
 */
import { ApiError } from '@card-api/server';
import type { FastifyRequest } from 'fastify';

const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Own keys of a parsed body that shadow an `Object.prototype` member, at the top level. */
function shadowingKeys(value: unknown): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.keys(value).filter((key) => INHERITED.has(key));
}

/** A `preValidation` hook for the app that registers `cardApi`: 422 for body keys the runtime would turn into a 500. */
export async function rejectPrototypeKeys(request: FastifyRequest): Promise<void> {
  const keys = shadowingKeys(request.body);
  if (keys.length === 0) return;
  // Built with defineProperty: an assignment to `__proto__` would set the prototype instead of a field.
  const fields: Record<string, string[]> = {};
  for (const key of keys) Object.defineProperty(fields, key, { value: ['Is not an accepted field.'], enumerable: true, writable: true, configurable: true });
  throw new ApiError(422, 'validation.failed', 'The request is invalid.', fields);
}
