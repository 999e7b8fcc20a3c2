// Copied by gen-card-api from templates/client/errors.ts. Do not edit: change the template and run the generator.
/**
 * Typed errors of the Card Issuing API client.
 *
 * Every failure the client reports is an instance of {@link CardApiError}, so one `instanceof`
 * catches them all and a more specific class narrows to the case a caller can act on.
 * None of them ever holds the API token: the client keeps no request object on an error and
 * scrubs the token from any text a server or a transport might echo back.
 *
 * @module
 */

/** What every {@link CardApiError} is built from. */
export interface CardApiErrorInit {
  /** HTTP status, or `undefined` when no response was received. */
  status?: number | undefined;
  /** Namespaced error code (D2), such as `card.not_found`, or a `client.*` code for local failures. */
  code: string;
  message: string;
  requestId?: string | null | undefined;
  idempotencyKey?: string | null | undefined;
  attempts?: number | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

/**
 * Base class of every error raised by the client.
 *
 * @example
 * ```ts
 * try {
 *   await api.cards.freeze(uuid);
 * } catch (err) {
 *   if (err instanceof ConflictError) console.log('already frozen', err.requestId);
 *   else if (err instanceof CardApiError) console.log(err.status, err.code);
 *   else throw err;
 * }
 * ```
 */
export class CardApiError extends Error {
  override readonly name: string = 'CardApiError';
  /** HTTP status of the response, `undefined` when none was received (network, timeout, order). */
  readonly status: number | undefined;
  /** Error code from the D2 body (`error.code`), or a `client.*` code for local failures. */
  readonly code: string;
  /** `X-Request-Id` header or `error.request_id` of the body; quote it to support. */
  readonly requestId: string | null;
  /** `X-Idempotency-Key` sent with the failed write (the same on every attempt), else `null`. */
  readonly idempotencyKey: string | null;
  /** Attempts made, retries included. */
  readonly attempts: number;
  /** Response headers, when a response was received. */
  readonly headers: Headers | undefined;

  constructor(init: CardApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.idempotencyKey = init.idempotencyKey ?? null;
    this.attempts = init.attempts ?? 1;
    this.headers = init.headers;
  }
}

/** 401 `api.unauthenticated`: the token is missing, unknown, revoked or disabled. */
export class AuthenticationError extends CardApiError {
  override readonly name: string = 'AuthenticationError';
  declare readonly status: 401;
}

/**
 * 403: the token may not do this. `code` says why: `api.workspace_inactive`,
 * `api.ip_not_allowed` or `api.insufficient_ability` (D16).
 */
export class PermissionError extends CardApiError {
  override readonly name: string = 'PermissionError';
  declare readonly status: 403;
  declare readonly code: 'api.workspace_inactive' | 'api.ip_not_allowed' | 'api.insufficient_ability' | (string & {});
}

/** 402 `wallet.insufficient_balance`: the wallet cannot cover the hold of the write. */
export class InsufficientBalanceError extends CardApiError {
  override readonly name: string = 'InsufficientBalanceError';
  declare readonly status: 402;
}

/** 404: `card.not_found`, `order.not_found` or `api.not_found` (unknown route). */
export class NotFoundError extends CardApiError {
  override readonly name: string = 'NotFoundError';
  declare readonly status: 404;
}

/**
 * 409: `card.state_conflict` (the card's state forbids the action) or `idempotency.key_reused`
 * (the key was used with a different body within 24 h) (D3).
 */
export class ConflictError extends CardApiError {
  override readonly name: string = 'ConflictError';
  declare readonly status: 409;
}

/** 422: `validation.failed` or `card_product.unavailable` (D4). */
export class ValidationError extends CardApiError {
  override readonly name: string = 'ValidationError';
  declare readonly status: 422;
  /** Field path (such as `billing_address.country`) to its messages, from D2's `errors`; `{}` when absent. */
  readonly fieldErrors: Record<string, string[]>;

  constructor(init: CardApiErrorInit & { fieldErrors?: Record<string, string[]> | undefined }) {
    super(init);
    this.fieldErrors = init.fieldErrors ?? {};
  }
}

/** 429 `api.rate_limited`. Thrown once the client's retries are spent or `Retry-After` is too long to wait. */
export class RateLimitError extends CardApiError {
  override readonly name: string = 'RateLimitError';
  declare readonly status: 429;
  /** Seconds the server asked to wait (`Retry-After`), `null` when it gave none. */
  readonly retryAfter: number | null;

  constructor(init: CardApiErrorInit & { retryAfter?: number | null | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter ?? null;
  }
}

/** Any other HTTP failure: 400, 408, 5xx, an undocumented status, or a success body that is not JSON. */
export class ApiError extends CardApiError {
  override readonly name: string = 'ApiError';
}

/** No response: DNS, TCP, TLS or a connection reset while sending or reading. */
export class ApiConnectionError extends CardApiError {
  override readonly name: string = 'ApiConnectionError';
  declare readonly status: undefined;
}

/** A per-attempt request timeout, or {@link waitForOrder} giving up. */
export class TimeoutError extends CardApiError {
  override readonly name: string = 'TimeoutError';
  declare readonly status: undefined;
}

/** The minimal order shape the order helpers read. */
export interface OrderLike {
  uuid: string;
  status: string;
  failure_reason?: string | null | undefined;
}

/** An order reached `failed` (section 3.1). Its held funds are already back in the wallet. */
export class OrderFailedError<O extends OrderLike = OrderLike> extends CardApiError {
  override readonly name: string = 'OrderFailedError';
  declare readonly status: undefined;
  /** The failed order as last read. */
  readonly order: O;
  /** `failure_reason` of the order (section 2.11), such as `business4xx`; `null` if the server sent none. */
  readonly failureReason: string | null;

  constructor(order: O, init?: Partial<CardApiErrorInit>) {
    const reason = order.failure_reason ?? null;
    super({
      code: 'order.failed',
      message: `Order ${order.uuid} failed${reason === null ? '' : `: ${reason}`}`,
      ...init,
    });
    this.order = order;
    this.failureReason = reason;
  }
}

/** What {@link errorFromResponse} needs to know about the attempt that failed. */
export interface ErrorContext {
  idempotencyKey: string | null;
  attempts: number;
  /** Token to scrub from any echoed text; never stored. */
  token: string;
}

/** Replaces every occurrence of the token in a text, so that an echoing server or proxy cannot leak it. */
export function redact(text: string, token: string): string {
  return token !== '' && text.includes(token) ? text.split(token).join('[REDACTED]') : text;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function fieldErrorsOf(v: unknown): Record<string, string[]> | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const out: Record<string, string[]> = {};
  for (const [k, msgs] of Object.entries(v)) {
    if (Array.isArray(msgs)) out[k] = msgs.filter((m): m is string => typeof m === 'string');
    else if (typeof msgs === 'string') out[k] = [msgs];
  }
  return out;
}

/**
 * Maps a non-2xx response to its error class.
 *
 * Reads D2's `{ error: { code, message, request_id, errors } }` and tolerates a flat
 * `{ code, message, errors }` (Laravel's default), a text body or nothing at all: the message then
 * falls back to the status text.
 *
 * @param body - The body as parsed JSON, or the raw text when it was not JSON.
 * @param retryAfter - Seconds from `Retry-After`, for 429.
 */
export function errorFromResponse(
  status: number,
  statusText: string,
  headers: Headers,
  body: unknown,
  ctx: ErrorContext,
  retryAfter: number | null = null,
): CardApiError {
  const outer = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  const inner =
    outer?.['error'] !== null && typeof outer?.['error'] === 'object'
      ? (outer['error'] as Record<string, unknown>)
      : outer;
  const code = str(inner?.['code']) ?? defaultCode(status);
  const rawMessage = str(inner?.['message']) ?? (str(statusText) ?? `HTTP ${status}`);
  const init = {
    status,
    code,
    message: redact(rawMessage, ctx.token),
    requestId: headers.get('x-request-id') ?? str(inner?.['request_id']) ?? null,
    idempotencyKey: ctx.idempotencyKey,
    attempts: ctx.attempts,
    headers,
  };
  switch (status) {
    case 401:
      return new AuthenticationError(init);
    case 402:
      return new InsufficientBalanceError(init);
    case 403:
      return new PermissionError(init);
    case 404:
      return new NotFoundError(init);
    case 409:
      return new ConflictError(init);
    case 422:
      return new ValidationError({ ...init, fieldErrors: fieldErrorsOf(inner?.['errors'] ?? outer?.['errors']) });
    case 429:
      return new RateLimitError({ ...init, retryAfter });
    default:
      return new ApiError(init);
  }
}

function defaultCode(status: number): string {
  switch (status) {
    case 401:
      return 'api.unauthenticated';
    case 402:
      return 'wallet.insufficient_balance';
    case 404:
      return 'api.not_found';
    case 422:
      return 'validation.failed';
    case 429:
      return 'api.rate_limited';
    default:
      return status >= 500 ? 'api.internal_error' : `http.${status}`;
  }
}
