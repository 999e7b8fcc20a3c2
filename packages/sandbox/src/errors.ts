import type { ErrorCode } from '@card-api/types';

/**
 * The one error type the sandbox services throw. The HTTP layer maps it to the D2 body
 * `{ error: { code, message, request_id, errors? } }` with `status` as the HTTP status.
 *
 * Messages are written for the API caller: they name the field or state that is wrong and
 * never contain card secrets (PAN, CVV, expiry) or token values.
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  /** HTTP status the error stands for. */
  readonly status: number;
  /** Dotted error code (contract section 7, decisions D2-D6). */
  readonly code: SandboxErrorCode;
  /** Field path -> messages; only on 422 `validation.failed` (D2). */
  readonly fieldErrors: Record<string, string[]> | undefined;

  constructor(status: number, code: SandboxErrorCode, message: string, fieldErrors?: Record<string, string[]>) {
    super(message);
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
  }
}

/** Every code the sandbox can produce: the spec's `ErrorCode` (contract section 7 plus D3-D6, D34). */
export type SandboxErrorCode = ErrorCode;

/** 422 `validation.failed` with one or more field errors. */
export function validationError(fieldErrors: Record<string, string[]>): SandboxError {
  const fields = Object.keys(fieldErrors);
  const first = fields[0] !== undefined ? fieldErrors[fields[0]]?.[0] : undefined;
  const message = first === undefined ? 'The request is invalid.' : fields.length === 1 ? first : `${first} (and ${fields.length - 1} more error${fields.length > 2 ? 's' : ''})`;
  return new SandboxError(422, 'validation.failed', message, fieldErrors);
}

/** 409 `card.state_conflict` (D3). */
export function stateConflict(message: string): SandboxError {
  return new SandboxError(409, 'card.state_conflict', message);
}

/**
 * Collects field errors while a request is checked, so that one 422 reports every problem
 * at once instead of the first one only.
 */
export class FieldErrors {
  private readonly errors: Record<string, string[]> = {};

  /** Records `message` against the field path `field` (for example `billing_address.country`). */
  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  /** Whether the field already has an error (to avoid stacking follow-up errors). */
  has(field: string): boolean {
    return this.errors[field] !== undefined;
  }

  /** Throws the collected 422, if any. */
  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw validationError(this.errors);
  }
}
