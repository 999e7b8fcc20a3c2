// Copied by gen-card-api from templates/server/errors.ts. Do not edit: change the template and run the generator.
/**
 * The one error type a handler throws, and the one body every error response has (D2):
 * `{ error: { code, message, request_id, errors? } }`.
 */

/**
 * Error codes a handler may use. Empty here; the generated package augments it with the spec's `ErrorCode`
 * enum (`declare module './runtime/errors.js'`), so that a typo in a code fails to compile there while this
 * runtime stays usable, and testable, without a spec.
 */
export interface ApiErrorCodes {}

/** `api.not_implemented` is the scaffold's deliberate 501; it is not part of the contract. */
export type ApiErrorCode = keyof ApiErrorCodes extends never ? string : keyof ApiErrorCodes | 'api.not_implemented';

/** Field path (`billing_address.country`, `per_page`) to its messages, as in Laravel's validation errors. */
export type FieldErrors = Record<string, string[]>;

/** The error body of every non-2xx response (D2). */
export interface ErrorBody {
  error: { code: string; message: string; request_id: string | null; errors?: FieldErrors };
}

// A symbol from the global registry rather than `instanceof`, so that an ApiError thrown by code that loaded
// another copy of this module (a vendored runtime, a second install) is still recognised.
const API_ERROR = Symbol.for('card-api-kit.server.ApiError');

/**
 * An error with a status and a code from the contract, sent as is. Anything else a handler throws is answered
 * `500 api.internal_error` with a generic message: internal messages and stacks never reach the caller.
 *
 * @example
 * throw new ApiError(404, 'card.not_found', `No card ${params.uuid} in this workspace.`);
 * throw new ApiError(422, 'validation.failed', 'The request is invalid.', { initial_topup_amount: ['Must be at least 10.00.'] });
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly fieldErrors: FieldErrors | undefined;
  /** Extra response headers, for example `Retry-After` on a 429. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: ApiErrorCode, message: string, fieldErrors?: FieldErrors, headers: Record<string, string> = {}) {
    super(message);
    if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError(`ApiError status must be 4xx or 5xx, got ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
    this.headers = headers;
    Object.defineProperty(this, API_ERROR, { value: true });
  }

  /** The D2 body for this error. */
  toBody(requestId: string | null): ErrorBody {
    return errorBody(this.code, this.message, requestId, this.fieldErrors);
  }
}

/** Whether a thrown value is an ApiError, from this copy of the runtime or another. */
export function isApiError(value: unknown): value is ApiError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[API_ERROR] === true;
}

/** Builds a D2 error body; `errors` is omitted unless there are field errors. */
export function errorBody(code: string, message: string, requestId: string | null, fieldErrors?: FieldErrors): ErrorBody {
  const error: ErrorBody['error'] = { code, message, request_id: requestId };
  if (fieldErrors && Object.keys(fieldErrors).length > 0) error.errors = fieldErrors;
  return { error };
}
