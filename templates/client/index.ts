/**
 * Public API of the hand-written client runtime. The generator copies this folder into
 * `packages/client/src/runtime/` and builds the resource classes on {@link ClientCore}.
 *
 * @module
 */
export {
  ClientCore,
  CLIENT_VERSION,
  assertIdempotencyKey,
  type ClientOptions,
  type FetchFn,
  type HttpMethod,
  type ListOptions,
  type NoContent,
  type OperationDescriptor,
  type RequestOptions,
  type RequestParams,
  type ResponseMeta,
  type WithResponse,
  type WriteOptions,
} from './core.js';
export {
  ApiConnectionError,
  ApiError,
  AuthenticationError,
  CardApiError,
  ConflictError,
  InsufficientBalanceError,
  NotFoundError,
  OrderFailedError,
  PermissionError,
  RateLimitError,
  TimeoutError,
  ValidationError,
  type CardApiErrorInit,
  type OrderLike,
} from './errors.js';
export { PagePromise, hasNextPage, type Page, type PageFetcher, type PageLinks, type PageMeta } from './pagination.js';
export { createQuerySerializerFor, type QueryParamStyle, type QuerySerializerFn } from './query.js';
export {
  isTerminalOrderStatus,
  orderCardUuid,
  waitForOrder,
  type OrderEvent,
  type OrderEventSource,
  type WaitOptions,
} from './orders.js';
export { backoffDelay, parseRetryAfter, type Sleep } from './retry.js';
export { AMOUNT_PATTERN, DECIMAL_PATTERN, Decimal, meetsMinimum, type Rounding } from './decimal.js';
