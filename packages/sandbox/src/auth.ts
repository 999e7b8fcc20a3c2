import { createHash, randomBytes } from 'node:crypto';
import { ipAllowed, normaliseIp, parseCidr } from '@card-api/server';
import type { Context } from './context.js';
import { SandboxError } from './errors.js';
import { ABILITIES, type Ability, type Workspace, type WorkspaceStatus } from './types.js';

/** A token in the form `<prefix>_sk_<secret>` (contract 5.1); the prefix has no underscore, so the first `_sk_` splits it. */
const TOKEN_FORM = /^([a-z0-9]{1,16})_sk_([A-Za-z0-9]{16,128})$/;

/** SHA-256 of the whole token value: the only form in which a token is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh token value; the secret comes from the OS CSPRNG, never from the injectable `random`. */
export function mintTokenValue(prefix: string): string {
  return `${prefix}_sk_${randomBytes(24).toString('hex')}`;
}

// Allowlist matching is the server runtime's (one implementation of CIDR rules for the plugin and the sandbox).
export { ipAllowed, normaliseIp, parseCidr };

/** What a successful authentication yields; the HTTP layer checks abilities from it. */
export interface AuthResult {
  tokenId: number;
  tokenName: string;
  workspace: Workspace;
  abilities: Ability[];
  ipAllowlist: string[];
  /** The token's effective per-minute ceiling (its own, else the sandbox default). */
  rateLimitPerMinute: number;
}

/** Rate-limit state after counting one request (D5). */
export interface RateLimitResult {
  allowed: boolean;
  /** Ceiling of the counter that binds (token or IP, whichever has less left). */
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends (`X-RateLimit-Reset`). */
  reset: number;
  /** Seconds to wait (`Retry-After`); `null` when allowed. */
  retryAfter: number | null;
  /** Which counter binds. */
  scope: 'token' | 'ip';
}

export interface AuthService {
  /**
   * Resolves a bearer token for a caller IP, in the D16 order: unknown or malformed token 401
   * `api.unauthenticated`; known token (even revoked) of a frozen or deleted workspace 403
   * `api.workspace_inactive`; revoked token 401; IP outside a non-empty allowlist 403
   * `api.ip_not_allowed`. Ability checks are left to the caller.
   * @param token the value after `Bearer ` (undefined when the header is missing)
   */
  authenticate(token: string | undefined | null, ip: string): AuthResult;
  /**
   * Counts one request against the token's and the IP's per-minute windows and says whether
   * it may proceed. A request over either ceiling is refused and not counted.
   */
  checkRateLimit(tokenId: number, ip: string): RateLimitResult;
  /**
   * The unrevoked token's id and workspace, whatever the workspace's status and the caller's IP; null for a
   * malformed, unknown or revoked token. For the sandbox's control API, which must reach a frozen workspace.
   */
  resolveToken(token: string | undefined | null): { tokenId: number; workspace: Workspace } | null;
}

interface TokenRow {
  id: number;
  workspace_id: number;
  name: string;
  abilities: string;
  ip_allowlist: string;
  rate_limit_per_minute: number | null;
  revoked_at: string | null;
}

/** Reads a workspace row in its public shape. */
export function loadWorkspace(ctx: Context, id: number): Workspace | undefined {
  return ctx.db.prepare<[number], Workspace>('SELECT id, slug, name, base_currency, status, created_at FROM workspaces WHERE id = ?').get(id);
}

export function createAuthService(ctx: Context): AuthService {
  const unauthenticated = (): SandboxError => new SandboxError(401, 'api.unauthenticated', 'The API token is missing, invalid or revoked.');
  const tokenLimit = (tokenId: number): number => {
    const row = ctx.db.prepare<[number], { rate_limit_per_minute: number | null }>('SELECT rate_limit_per_minute FROM api_tokens WHERE id = ?').get(tokenId);
    if (row === undefined) throw unauthenticated();
    return row.rate_limit_per_minute ?? ctx.options.defaultTokenRateLimitPerMinute;
  };

  return {
    authenticate(token, ip) {
      if (typeof token !== 'string' || !TOKEN_FORM.test(token)) throw unauthenticated();
      const row = ctx.db.prepare<[string], TokenRow>('SELECT id, workspace_id, name, abilities, ip_allowlist, rate_limit_per_minute, revoked_at FROM api_tokens WHERE token_hash = ?').get(hashToken(token));
      if (row === undefined) throw unauthenticated();
      const workspace = loadWorkspace(ctx, row.workspace_id);
      if (workspace === undefined) throw unauthenticated();
      // D16: the workspace check overrides everything else once the token is resolved.
      if ((workspace.status as WorkspaceStatus) !== 'active') throw new SandboxError(403, 'api.workspace_inactive', `The workspace is ${workspace.status}; its API access is suspended.`);
      if (row.revoked_at !== null) throw unauthenticated();
      const ipAllowlist = JSON.parse(row.ip_allowlist) as string[];
      if (!ipAllowed(ipAllowlist, ip)) throw new SandboxError(403, 'api.ip_not_allowed', `The caller IP ${normaliseIp(ip)} is not in the token's allowlist.`);
      const abilities = (JSON.parse(row.abilities) as string[]).filter((a): a is Ability => (ABILITIES as readonly string[]).includes(a));
      return { tokenId: row.id, tokenName: row.name, workspace, abilities, ipAllowlist, rateLimitPerMinute: row.rate_limit_per_minute ?? ctx.options.defaultTokenRateLimitPerMinute };
    },

    resolveToken(token) {
      if (typeof token !== 'string' || !TOKEN_FORM.test(token)) return null;
      const row = ctx.db.prepare<[string], { id: number; workspace_id: number; revoked_at: string | null }>('SELECT id, workspace_id, revoked_at FROM api_tokens WHERE token_hash = ?').get(hashToken(token));
      if (row === undefined || row.revoked_at !== null) return null;
      const workspace = loadWorkspace(ctx, row.workspace_id);
      return workspace === undefined ? null : { tokenId: row.id, workspace };
    },

    checkRateLimit(tokenId, ip) {
      const limits = { token: tokenLimit(tokenId), ip: ctx.options.ipRateLimitPerMinute };
      return ctx.write(() => {
        const nowMs = ctx.nowMs();
        const windowStart = Math.floor(nowMs / 60_000) * 60_000;
        const windowEnd = windowStart + 60_000;
        ctx.db.prepare('DELETE FROM rate_counters WHERE window_start_ms < ?').run(windowStart);
        const buckets = { token: `token:${tokenId}`, ip: `ip:${normaliseIp(ip)}` } as const;
        const read = (bucket: string): number =>
          ctx.db.prepare<[string, number], { count: number }>('SELECT count FROM rate_counters WHERE bucket = ? AND window_start_ms = ?').get(bucket, windowStart)?.count ?? 0;
        const counts = { token: read(buckets.token), ip: read(buckets.ip) };
        const allowed = counts.token < limits.token && counts.ip < limits.ip;
        if (allowed) {
          const bump = ctx.db.prepare('INSERT INTO rate_counters (bucket, window_start_ms, count) VALUES (?, ?, 1) ON CONFLICT (bucket, window_start_ms) DO UPDATE SET count = count + 1');
          bump.run(buckets.token, windowStart);
          bump.run(buckets.ip, windowStart);
          counts.token += 1;
          counts.ip += 1;
        }
        const left = { token: Math.max(0, limits.token - counts.token), ip: Math.max(0, limits.ip - counts.ip) };
        const scope = left.ip < left.token ? 'ip' : 'token';
        return {
          allowed,
          limit: limits[scope],
          remaining: left[scope],
          reset: Math.ceil(windowEnd / 1000),
          retryAfter: allowed ? null : Math.max(1, Math.ceil((windowEnd - nowMs) / 1000)),
          scope,
        };
      });
    },
  };
}
