import { afterEach, describe, expect, it } from 'vitest';
import { hashToken, ipAllowed } from './auth.js';
import { SandboxError } from './errors.js';
import { catchError, setup } from './test-support.js';

describe('auth.authenticate (D16 order)', () => {
  let ctx = setup();
  afterEach(() => {
    ctx.sandbox.close();
    ctx = setup();
  });

  it('resolves a valid token to its workspace, abilities and limits', () => {
    const result = ctx.sandbox.auth.authenticate(ctx.token, '203.0.113.7');
    expect(result.workspace).toMatchObject({ id: ctx.ws, slug: 'default', base_currency: 'USD', status: 'active' });
    expect(result.abilities).toEqual(['cards.read', 'cards.write', 'orders.read', 'wallet.read', 'transactions.read']);
    expect(result.ipAllowlist).toEqual([]);
    expect(result.rateLimitPerMinute).toBe(120);
    expect(ctx.token).toMatch(/^sbx_sk_[0-9a-f]{48}$/);
  });

  it('expires a token created with a lifetime on the sandbox clock, as a revoked one (D18)', () => {
    const { sandbox, ws, clock } = ctx;
    const lasting = sandbox.admin.createToken(ws, { name: 'forever', abilities: ['cards.read'] });
    const brief = sandbox.admin.createToken(ws, { name: 'one hour', abilities: ['cards.read'], expiresInSeconds: 3600 });
    expect(lasting.expires_at).toBeNull();
    expect(brief.expires_at).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());
    clock.advance(3_599_999);
    expect(sandbox.auth.authenticate(brief.token, '1.1.1.1').tokenId).toBe(brief.id);
    expect(sandbox.auth.resolveToken(brief.token)?.tokenId).toBe(brief.id);
    clock.advance(1);
    expect(catchError(() => sandbox.auth.authenticate(brief.token, '1.1.1.1'))).toMatchObject({ status: 401, code: 'api.unauthenticated' });
    expect(sandbox.auth.resolveToken(brief.token)).toBeNull();
    expect(sandbox.auth.authenticate(lasting.token, '1.1.1.1').tokenId).toBe(lasting.id);
    // D16: the workspace check still wins over an expired token.
    sandbox.admin.setWorkspaceStatus(ws, 'frozen');
    expect(catchError(() => sandbox.auth.authenticate(brief.token, '1.1.1.1'))).toMatchObject({ status: 403, code: 'api.workspace_inactive' });
    for (const expiresInSeconds of [0, 31_536_001, 1.5]) {
      expect(catchError(() => sandbox.admin.createToken(ws, { name: 'bad', abilities: [], expiresInSeconds }))).toMatchObject({ status: 422, fieldErrors: { expires_in_seconds: expect.any(Array) } });
    }
  });

  it('stores only the SHA-256 of the token', () => {
    const rows = ctx.sandbox.db.prepare('SELECT * FROM api_tokens').all();
    expect(JSON.stringify(rows)).not.toContain(ctx.token.split('_sk_')[1]);
    expect(rows).toContainEqual(expect.objectContaining({ token_hash: hashToken(ctx.token) }));
  });

  const table: [string, (c: typeof ctx) => [string | undefined, string], number, string][] = [
    ['missing token', () => [undefined, '1.1.1.1'], 401, 'api.unauthenticated'],
    ['malformed token', () => ['Bearer nope', '1.1.1.1'], 401, 'api.unauthenticated'],
    ['unknown token of the right form', () => [`sbx_sk_${'a'.repeat(48)}`, '1.1.1.1'], 401, 'api.unauthenticated'],
    [
      'revoked token',
      (c) => {
        c.sandbox.admin.revokeToken(c.tokenId);
        return [c.token, '1.1.1.1'];
      },
      401,
      'api.unauthenticated',
    ],
    [
      'frozen workspace',
      (c) => {
        c.sandbox.admin.setWorkspaceStatus(c.ws, 'frozen');
        return [c.token, '1.1.1.1'];
      },
      403,
      'api.workspace_inactive',
    ],
    [
      'deleted workspace',
      (c) => {
        c.sandbox.admin.setWorkspaceStatus(c.ws, 'deleted');
        return [c.token, '1.1.1.1'];
      },
      403,
      'api.workspace_inactive',
    ],
    [
      'revoked token of a frozen workspace: the workspace check wins',
      (c) => {
        c.sandbox.admin.revokeToken(c.tokenId);
        c.sandbox.admin.setWorkspaceStatus(c.ws, 'frozen');
        return [c.token, '1.1.1.1'];
      },
      403,
      'api.workspace_inactive',
    ],
    [
      'IP outside an IPv4 allowlist',
      (c) => [c.sandbox.admin.createToken(c.ws, { name: 'ci', abilities: ['cards.read'], ipAllowlist: ['10.0.0.0/8'] }).token, '192.168.1.1'],
      403,
      'api.ip_not_allowed',
    ],
    [
      'IP outside the allowlist of a frozen workspace: the workspace check wins',
      (c) => {
        const t = c.sandbox.admin.createToken(c.ws, { name: 'ci', abilities: [], ipAllowlist: ['10.0.0.0/8'] }).token;
        c.sandbox.admin.setWorkspaceStatus(c.ws, 'frozen');
        return [t, '192.168.1.1'];
      },
      403,
      'api.workspace_inactive',
    ],
  ];

  it.each(table)('%s', (_name, arrange, status, code) => {
    const [token, ip] = arrange(ctx);
    const error = catchError(() => ctx.sandbox.auth.authenticate(token, ip));
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ status, code });
    if (token !== undefined) expect(error.message).not.toContain(token);
  });

  it('accepts callers inside IPv4 and IPv6 allowlists, including IPv4-mapped addresses', () => {
    const { token } = ctx.sandbox.admin.createToken(ctx.ws, { name: 'office', abilities: ['wallet.read'], ipAllowlist: ['10.0.0.0/8', '2001:db8::/32', '198.51.100.4'] });
    expect(ctx.sandbox.auth.authenticate(token, '10.20.30.40').abilities).toEqual(['wallet.read']);
    expect(ctx.sandbox.auth.authenticate(token, '::ffff:10.1.1.1').tokenName).toBe('office');
    expect(ctx.sandbox.auth.authenticate(token, '2001:db8:1::5').tokenName).toBe('office');
    expect(ctx.sandbox.auth.authenticate(token, '198.51.100.4').tokenName).toBe('office');
    expect(catchError(() => ctx.sandbox.auth.authenticate(token, '198.51.100.5')).code).toBe('api.ip_not_allowed');
    expect(catchError(() => ctx.sandbox.auth.authenticate(token, '2001:db9::1')).code).toBe('api.ip_not_allowed');
  });

  it('rejects bad token definitions with field errors', () => {
    const error = catchError(() => ctx.sandbox.admin.createToken(ctx.ws, { name: '', abilities: ['cards.fly' as 'cards.read'], ipAllowlist: ['10.0.0.0/33', 'nonsense'] }));
    expect(error).toMatchObject({ status: 422, code: 'validation.failed' });
    expect(Object.keys(error.fieldErrors ?? {})).toEqual(['name', 'abilities', 'ip_allowlist.0', 'ip_allowlist.1']);
  });

  it('requires the developer subscription to mint a token', () => {
    const other = ctx.sandbox.admin.createWorkspace({ name: 'No dev', subscriptions: [] });
    expect(catchError(() => ctx.sandbox.admin.createToken(other.id, { name: 't', abilities: [] })).status).toBe(422);
  });
});

describe('ipAllowed', () => {
  it('allows everything with an empty list and nothing for an unparsable caller IP', () => {
    expect(ipAllowed([], 'whatever')).toBe(true);
    expect(ipAllowed(['0.0.0.0/0'], 'not-an-ip')).toBe(false);
    expect(ipAllowed(['::/0'], '2001:db8::1')).toBe(true);
  });
});

describe('auth.checkRateLimit (D5)', () => {
  it('counts per token and per IP within one clock minute and resets with the next', () => {
    const { sandbox, ws, clock } = setup({ rateLimits: { ipPerMinute: 5 } });
    const limited = sandbox.admin.createToken(ws, { name: 'slow', abilities: [], rateLimitPerMinute: 3 });
    const results = [1, 2, 3, 4].map(() => sandbox.auth.checkRateLimit(limited.id, '1.1.1.1'));
    expect(results.map((r) => [r.allowed, r.limit, r.remaining])).toEqual([
      [true, 3, 2],
      [true, 3, 1],
      [true, 3, 0],
      [false, 3, 0],
    ]);
    const windowEnd = Date.parse('2026-03-01T12:01:00.000Z') / 1000;
    expect(results[3]).toMatchObject({ scope: 'token', reset: windowEnd, retryAfter: 60 });
    expect(results[0]?.retryAfter).toBeNull();

    // The IP counter spans tokens: 3 hits so far from 1.1.1.1 (the refused one is not counted).
    const other = sandbox.admin.createToken(ws, { name: 'fast', abilities: [] });
    expect(sandbox.auth.checkRateLimit(other.id, '1.1.1.1')).toMatchObject({ allowed: true, scope: 'ip', limit: 5, remaining: 1 });
    expect(sandbox.auth.checkRateLimit(other.id, '1.1.1.1')).toMatchObject({ allowed: true, remaining: 0 });
    expect(sandbox.auth.checkRateLimit(other.id, '1.1.1.1')).toMatchObject({ allowed: false, scope: 'ip' });
    // A fresh IP starts its own window; the binding counter is the one with less left.
    expect(sandbox.auth.checkRateLimit(other.id, '2.2.2.2')).toMatchObject({ allowed: true, scope: 'ip', limit: 5, remaining: 4 });

    clock.advance(30_000);
    expect(sandbox.auth.checkRateLimit(limited.id, '3.3.3.3')).toMatchObject({ allowed: false, retryAfter: 30 });
    clock.advance(30_000);
    expect(sandbox.auth.checkRateLimit(limited.id, '1.1.1.1')).toMatchObject({ allowed: true, remaining: 2 });
    sandbox.close();
  });
});
