/**
 * The sandbox over HTTP: the generated plugin's handlers, authentication and rate limiter bound to a
 * sandbox, and `startSandbox`, which runs it as a local service.
 */
export { sandboxHandlers, domain, toApiError, type SandboxHandlerOptions } from './handlers.js';
export { sandboxAuthenticate, sandboxRateLimiter, type SandboxAuth } from './auth.js';
export { buildSandboxApp, startSandbox, SANDBOX_PREFIX, type RunningSandbox, type StartSandboxOptions } from './server.js';
