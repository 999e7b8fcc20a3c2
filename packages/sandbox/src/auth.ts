import { createHash, randomBytes } from 'node:crypto';
import { createMemoryRateLimiter, ipAllowed, normaliseIp, parseCidr, UNLIMITED } from '@card-api/server';
import { referenceCached, type Context } from './context.js';
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
   * `api.unauthenticated`; known token (even revoked or expired) of a frozen or deleted workspace 403
   * `api.workspace_inactive`; revoked or expired token 401 (D18: expiry on the sandbox clock); IP outside a non-empty allowlist 403
   * `api.ip_not_allowed`. Ability checks are left to the caller.
   * @param token the value after `Bearer ` (undefined when the header is missing)
   */
  authenticate(token: string | undefined | null, ip: string): AuthResult;
  /**
   * Counts one request against the token's and the IP's per-minute windows and says whether
   * it may proceed. A request over either ceiling is refused and not counted. A ceiling of 0 is
   * none; with no ceiling at all the result reports {@link UNLIMITED} as limit and remaining.
   * The counters are in memory, per sandbox process, on the sandbox clock's minutes.
   * @param tokenId null for a refused request (no usable token): it counts against the IP only (D37)
   * @param tokenCeiling the token's effective ceiling when the caller already has it (`AuthResult.rateLimitPerMinute`); else it is read
   */
  checkRateLimit(tokenId: number | null, ip: string, tokenCeiling?: number): RateLimitResult;
  /**
   * The unrevoked, unexpired token's id and workspace, whatever the workspace's status and the caller's IP; null
   * for a malformed, unknown, revoked or expired token. For the sandbox's control API, which must reach a frozen workspace.
   */
  resolveToken(token: string | undefined | null): { tokenId: number; workspace: Workspace } | null;
}

/** Token values kept resolved between changes of the reference tables (see `lookupToken`). */
const TOKEN_CACHE_LIMIT = 1000;

interface ResolvedToken {
  row: TokenRow;
  /** `row.expires_at` in epoch ms (Infinity when it never expires), compared with the sandbox clock per request. */
  expiresAtMs: number;
  workspace: Workspace;
  ipAllowlist: string[];
  abilities: Ability[];
}

/** What `X-RateLimit-Limit` and `X-RateLimit-Remaining` say when no ceiling applies (both limits set to 0 = none). */
export { UNLIMITED };

interface TokenRow {
  id: number;
  workspace_id: number;
  name: string;
  abilities: string;
  ip_allowlist: string;
  rate_limit_per_minute: number | null;
  revoked_at: string | null;
  /** D18: from this sandbox time on the token answers 401; null never. */
  expires_at: string | null;
}

/** The columns of a workspace in its public shape (the control document's `Workspace`). */
export const WORKSPACE_COLUMNS = 'id, slug, name, base_currency, status, holder_first_name, holder_last_name, created_at';

/** Reads a workspace row in its public shape. */
export function loadWorkspace(ctx: Context, id: number): Workspace | undefined {
  return ctx.db.prepare<[number], Workspace>(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = ?`).get(id);
}

/**
 * A token value's row, workspace and parsed lists, or null for an unknown token. Cached until a token, a workspace
 * or another reference table changes (ctx.referenceGeneration, also moved by another process's commit to a file):
 * requests skip the SHA-256 and both queries, card and order writes in between included, and a revocation, a
 * frozen workspace or a changed limit is seen by the very next request. Bounded in size.
 */
const lookupToken = referenceCached((ctx: Context, token: string): ResolvedToken | null => {
  const row = ctx.db.prepare<[string], TokenRow>('SELECT id, workspace_id, name, abilities, ip_allowlist, rate_limit_per_minute, revoked_at, expires_at FROM api_tokens WHERE token_hash = ?').get(hashToken(token));
  const workspace = row === undefined ? undefined : loadWorkspace(ctx, row.workspace_id);
  if (row === undefined || workspace === undefined) return null;
  return {
    row,
    expiresAtMs: row.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(row.expires_at),
    workspace,
    ipAllowlist: JSON.parse(row.ip_allowlist) as string[],
    abilities: (JSON.parse(row.abilities) as string[]).filter((a): a is Ability => (ABILITIES as readonly string[]).includes(a)),
  };
}, TOKEN_CACHE_LIMIT);

export function createAuthService(ctx: Context): AuthService {
  const unauthenticated = (): SandboxError => new SandboxError(401, 'api.unauthenticated', 'The API token is missing, invalid, expired or revoked.');
  const tokenLimit = (tokenId: number): number => {
    const row = ctx.db.prepare<[number], { rate_limit_per_minute: number | null }>('SELECT rate_limit_per_minute FROM api_tokens WHERE id = ?').get(tokenId);
    if (row === undefined) throw unauthenticated();
    return row.rate_limit_per_minute ?? ctx.options.defaultTokenRateLimitPerMinute;
  };


  // Rate counters live in memory (D5 windows of one sandbox-clock minute), in the server runtime's own limiter:
  // counting a request must not cost a disk write. A restart starts every window afresh, which only ever lets a
  // client through earlier.
  const limiter = createMemoryRateLimiter({ ipPerMinute: ctx.options.ipRateLimitPerMinute, now: () => ctx.nowMs() });

  return {
    authenticate(token, ip) {
      if (typeof token !== 'string' || !TOKEN_FORM.test(token)) throw unauthenticated();
      const found = lookupToken(ctx, token);
      if (found === null) throw unauthenticated();
      const { row, workspace } = found;
      // D16: the workspace check overrides everything else once the token is resolved.
      if ((workspace.status as WorkspaceStatus) !== 'active') throw new SandboxError(403, 'api.workspace_inactive', `The workspace is ${workspace.status}; its API access is suspended.`);
      if (row.revoked_at !== null || ctx.nowMs() >= found.expiresAtMs) throw unauthenticated();
      if (!ipAllowed(found.ipAllowlist, ip)) throw new SandboxError(403, 'api.ip_not_allowed', `The caller IP ${normaliseIp(ip)} is not in the token's allowlist.`);
      return {
        tokenId: row.id,
        tokenName: row.name,
        workspace: { ...workspace },
        abilities: [...found.abilities],
        ipAllowlist: [...found.ipAllowlist],
        rateLimitPerMinute: row.rate_limit_per_minute ?? ctx.options.defaultTokenRateLimitPerMinute,
      };
    },

    resolveToken(token) {
      if (typeof token !== 'string' || !TOKEN_FORM.test(token)) return null;
      const row = ctx.db
        .prepare<[string], { id: number; workspace_id: number; revoked_at: string | null; expires_at: string | null }>('SELECT id, workspace_id, revoked_at, expires_at FROM api_tokens WHERE token_hash = ?')
        .get(hashToken(token));
      if (row === undefined || row.revoked_at !== null || (row.expires_at !== null && ctx.nowMs() >= Date.parse(row.expires_at))) return null;
      const workspace = loadWorkspace(ctx, row.workspace_id);
      return workspace === undefined ? null : { tokenId: row.id, workspace };
    },

    checkRateLimit(tokenId, ip, tokenCeiling) {
      // No token (a refused request, D37): only the IP's window counts.
      const tokenKey = tokenId === null ? null : String(tokenId);
      return limiter.consume({ tokenKey, tokenLimit: tokenId === null ? 0 : (tokenCeiling ?? tokenLimit(tokenId)), ip });
    },
  };
}
