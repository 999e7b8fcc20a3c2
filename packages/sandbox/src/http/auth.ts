/**
 * The sandbox's token resolution and rate limit, shaped for the generated Fastify plugin: `authenticate`
 * resolves a bearer token through `sandbox.auth`, and the plugin's `rateLimit.limiter` counts requests in the
 * sandbox's in-memory windows on the sandbox clock (one limiter: the plugin's own is not used).
 */
import { ApiError, type AuthResult, type RateLimiter } from '@card-api/server';
import type { FastifyRequest } from 'fastify';
import { SandboxError } from '../errors.js';
import type { Sandbox } from '../sandbox.js';
import type { Ability, Workspace } from '../types.js';

/** What the sandbox's `authenticate` resolves a token to; every handler receives it as `auth`. */
export interface SandboxAuth extends AuthResult {
  readonly workspace: Workspace;
  readonly abilities: Ability[];
  readonly ipAllowlist: string[];
  readonly tokenId: number;
  readonly tokenName: string;
  readonly rateLimitPerMinute: number;
  /** `String(tokenId)`: the sandbox's rate counters are per token id. */
  readonly rateLimitKey: string;
}

/**
 * The plugin's `authenticate` over `sandbox.auth.authenticate(token, request.ip)`.
 *
 * The domain runs the D16 checks itself, in the plugin's order (workspace inactive, then revoked, then IP),
 * and refuses by throwing. It has no read that hands back the token row of a frozen workspace or of an IP
 * outside the allowlist, so those two refusals are rethrown as `ApiError` with the domain's status, code
 * and message: the plugin answers them in the D2 shape exactly as it answers its own checks. A 401 becomes
 * `null` (the plugin's `api.unauthenticated`). The ability check is left to the plugin.
 */
export function sandboxAuthenticate(sandbox: Sandbox): (token: string, request: FastifyRequest) => SandboxAuth | null {
  return (token, request) => {
    try {
      const auth = sandbox.auth.authenticate(token, request.ip);
      return {
        workspace: auth.workspace,
        abilities: auth.abilities,
        ipAllowlist: auth.ipAllowlist,
        tokenId: auth.tokenId,
        tokenName: auth.tokenName,
        rateLimitPerMinute: auth.rateLimitPerMinute,
        rateLimitKey: String(auth.tokenId),
      };
    } catch (error) {
      if (error instanceof SandboxError) {
        if (error.status === 401) return null;
        throw new ApiError(error.status, error.code, error.message, error.fieldErrors);
      }
      throw error;
    }
  };
}

/**
 * The plugin's `rateLimit.limiter` over `sandbox.auth.checkRateLimit`: per-token (the token's own ceiling,
 * else the sandbox default) and per-IP one-minute windows on the sandbox clock, kept in memory (no disk write
 * per request). `tokenKey` is the `rateLimitKey` set by {@link sandboxAuthenticate}, the token id, and
 * `tokenLimit` its effective ceiling as authentication read it (0 = none).
 */
export function sandboxRateLimiter(sandbox: Sandbox): RateLimiter {
  return {
    consume({ tokenKey, tokenLimit, ip }) {
      // A refused request (no usable token) counts against the IP only (D37).
      if (tokenKey === null) return sandbox.auth.checkRateLimit(null, ip);
      const tokenId = Number(tokenKey);
      if (!Number.isSafeInteger(tokenId)) throw new TypeError(`sandbox rate limiter: token key ${tokenKey} is not a token id`);
      try {
        return sandbox.auth.checkRateLimit(tokenId, ip, tokenLimit);
      } catch (error) {
        // The token was deleted between authentication and counting.
        if (error instanceof SandboxError) throw new ApiError(error.status, error.code, error.message, error.fieldErrors);
        throw error;
      }
    },
  };
}
