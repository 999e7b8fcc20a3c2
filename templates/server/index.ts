/**
 * Runtime of `@card-api/server`: the plugin factory, the access checks, the rate limiter, validation helpers
 * and the handler types. The generated package binds these to the spec (`plugin.gen.ts`).
 */
export { createCardApiPlugin, type CardApiOptions, type RateLimitOptions } from './plugin.js';
export { ApiError, errorBody, isApiError, type ApiErrorCode, type ApiErrorCodes, type ErrorBody, type FieldErrors } from './errors.js';
export { bearerToken, checkAccess, hasAbility, ipAllowed, normaliseIp, parseCidr, type AccessDenial } from './auth.js';
export {
  createMemoryRateLimiter,
  rateLimitHeaders,
  UNLIMITED,
  type MemoryRateLimiter,
  type MemoryRateLimiterOptions,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRequest,
} from './rate-limit.js';
export { createSchemaValidators, splitCommaSeparated, toFieldErrors, type RequestPart, type SchemaValidators, type Validator } from './validation.js';
export { docsInitScript, docsPage, registerDocs, requestOrigin, withServerUrl, type DocsOptions, type DocsOutline } from './docs.js';
export { createFallbacks, type FallbackRoute, type Fallbacks } from './fallbacks.js';
export {
  CARD_API_MAX_PARAM_LENGTH,
  cardApiServerOptions,
  clientErrorAnswer,
  frameworkErrorAnswer,
  newRequestId,
  rawErrorResponse,
  type CardApiServerOptions,
  type CardApiServerOptionsInput,
} from './server-options.js';
export type {
  ApiDefinition,
  AuthResult,
  HandlerInput,
  HandlerResult,
  JsonSchema,
  OperationHandler,
  ResponseBody,
  RouteDefinition,
  StatusOf,
  StatusReply,
  WorkspaceStatus,
} from './types.js';
