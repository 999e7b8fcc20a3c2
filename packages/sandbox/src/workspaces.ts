import type { Context } from './context.js';
import { FieldErrors, SandboxError } from './errors.js';
import { hashToken, loadWorkspace, mintTokenValue, parseCidr } from './auth.js';
import { openWallet, post, requireWorkspace } from './ledger.js';
import { fmt, parseRequestAmount } from './money.js';
import { ABILITIES, type Ability, type Wallet, type Workspace, type WorkspaceStatus } from './types.js';
import { createWalletService } from './ledger.js';

/** The subscription that API tokens require (contract 5.2). */
export const DEVELOPER_PRODUCT = 'developer';

const CURRENCY = /^[A-Z]{3,5}$/;

export interface CreateWorkspaceInput {
  name: string;
  /** Unique; derived from the name when absent. */
  slug?: string;
  /** Default `USD`. */
  baseCurrency?: string;
  /** Default `active`. */
  status?: WorkspaceStatus;
  /** Subscription product codes; default `['developer']`. */
  subscriptions?: string[];
  /** The account holder on file (D41), 1 to 50 characters each; default Ada Lovelace. */
  holderFirstName?: string;
  holderLastName?: string;
}

export interface CreateTokenInput {
  name: string;
  abilities: Ability[];
  /** CIDR entries (IPv4 or IPv6); empty or absent = every IP. */
  ipAllowlist?: string[];
  /** Own per-minute ceiling; absent = the sandbox default. */
  rateLimitPerMinute?: number | null;
  /** Token prefix, `[a-z0-9]{1,16}`; default `sbx`. */
  prefix?: string;
  /** Lifetime on the sandbox clock, 1 to 31,536,000 seconds (D18); absent or null = never expires. */
  expiresInSeconds?: number | null;
}

/** A minted token. `token` is the only place the value ever appears; only its SHA-256 is stored. */
export interface CreatedToken {
  id: number;
  token: string;
  name: string;
  abilities: Ability[];
  ipAllowlist: string[];
  rateLimitPerMinute: number | null;
  /** From this sandbox time on the token answers 401; null = never (D18). */
  expires_at: string | null;
  created_at: string;
}

export interface DepositInput {
  amount: string;
  /** Default: the workspace's base currency. */
  currency?: string;
  /** Channel fee taken from the deposit (`usdt_deposit_fee`). */
  fee?: string;
  description?: string;
}

/** Workspace, token and money controls; the future control API and the tests use them. */
export interface WorkspaceAdmin {
  createWorkspace(input: CreateWorkspaceInput): Workspace;
  setWorkspaceStatus(workspaceId: number, status: WorkspaceStatus): Workspace;
  addSubscription(workspaceId: number, productCode: string): void;
  createToken(workspaceId: number, input: CreateTokenInput): CreatedToken;
  /**
   * Revokes a token; later `authenticate` calls with it answer 401. Idempotent. With `workspaceId`, a token
   * of another workspace (or none) is 404 `api.not_found`.
   */
  revokeToken(tokenId: number, workspaceId?: number): void;
  /** Credits the wallet from outside (`usdt_deposit`), minus an optional fee (`usdt_deposit_fee`). Returns the wallet after. */
  deposit(workspaceId: number, input: DepositInput): Wallet;
}

function slugify(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return base === '' ? 'workspace' : base.slice(0, 48);
}

export function createWorkspaceAdmin(ctx: Context): WorkspaceAdmin {
  const wallet = createWalletService(ctx);
  return {
    createWorkspace(input) {
      const errors = new FieldErrors();
      if (typeof input.name !== 'string' || input.name.trim() === '') errors.add('name', 'is required');
      const currency = input.baseCurrency ?? 'USD';
      if (!CURRENCY.test(currency)) errors.add('base_currency', 'must be a currency code such as USD');
      const status = input.status ?? 'active';
      if (!['active', 'frozen', 'deleted'].includes(status)) errors.add('status', 'must be active, frozen or deleted');
      const holder = (field: string, value: string | undefined, fallback: string): string => {
        if (value === undefined) return fallback;
        if (typeof value !== 'string' || value.trim() === '' || value.length > 50) errors.add(field, 'must be 1 to 50 characters, not only spaces');
        return String(value).trim();
      };
      const holderFirst = holder('holder_first_name', input.holderFirstName, 'Ada');
      const holderLast = holder('holder_last_name', input.holderLastName, 'Lovelace');
      errors.throwIfAny();
      return ctx.write(() => {
        let slug = input.slug ?? slugify(input.name);
        if (input.slug === undefined) {
          // Derived slugs get a numeric suffix instead of failing on a name used twice.
          const base = slug;
          for (let n = 2; ctx.db.prepare('SELECT 1 FROM workspaces WHERE slug = ?').get(slug) !== undefined; n++) slug = `${base}-${n}`;
        } else if (ctx.db.prepare('SELECT 1 FROM workspaces WHERE slug = ?').get(slug) !== undefined) {
          throw new SandboxError(422, 'validation.failed', `The slug ${slug} is taken.`, { slug: ['is already taken'] });
        }
        const now = ctx.nowIso();
        const id = ctx.db
          .pluck<unknown[], number>('INSERT INTO workspaces (slug, name, base_currency, status, holder_first_name, holder_last_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id')
          .get(slug, input.name.trim(), currency, status, holderFirst, holderLast, now, now)!;
        for (const code of new Set(input.subscriptions ?? [DEVELOPER_PRODUCT])) ctx.db.prepare('INSERT INTO workspace_subscriptions (workspace_id, product_code) VALUES (?, ?)').run(id, code);
        openWallet(ctx, id, currency);
        return loadWorkspace(ctx, id)!;
      });
    },

    setWorkspaceStatus(workspaceId, status) {
      if (!['active', 'frozen', 'deleted'].includes(status)) throw new SandboxError(422, 'validation.failed', 'The status must be active, frozen or deleted.', { status: ['must be active, frozen or deleted'] });
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        ctx.db.prepare('UPDATE workspaces SET status = ?, updated_at = ? WHERE id = ?').run(status, ctx.nowIso(), workspaceId);
        return loadWorkspace(ctx, workspaceId)!;
      });
    },

    addSubscription(workspaceId, productCode) {
      ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        ctx.db.prepare('INSERT OR IGNORE INTO workspace_subscriptions (workspace_id, product_code) VALUES (?, ?)').run(workspaceId, productCode);
      });
    },

    createToken(workspaceId, input) {
      const errors = new FieldErrors();
      if (typeof input.name !== 'string' || input.name.trim() === '') errors.add('name', 'is required');
      const abilities = [...new Set(input.abilities)];
      for (const a of abilities) if (!(ABILITIES as readonly string[]).includes(a)) errors.add('abilities', `unknown ability ${String(a)}`);
      const ipAllowlist = (input.ipAllowlist ?? []).map((e) => e.trim());
      ipAllowlist.forEach((entry, i) => {
        if (parseCidr(entry) === null) errors.add(`ip_allowlist.${i}`, 'must be an IPv4 or IPv6 address or CIDR block');
      });
      const limit = input.rateLimitPerMinute ?? null;
      if (limit !== null && (!Number.isSafeInteger(limit) || limit < 1)) errors.add('rate_limit_per_minute', 'must be a positive integer');
      const prefix = input.prefix ?? 'sbx';
      if (!/^[a-z0-9]{1,16}$/.test(prefix)) errors.add('prefix', 'must be 1 to 16 lowercase letters or digits');
      const lifetime = input.expiresInSeconds ?? null;
      if (lifetime !== null && (!Number.isSafeInteger(lifetime) || lifetime < 1 || lifetime > 31_536_000)) errors.add('expires_in_seconds', 'must be an integer from 1 to 31536000');
      errors.throwIfAny();
      return ctx.write(() => {
        requireWorkspace(ctx, workspaceId);
        const subscribed = ctx.db.prepare('SELECT 1 FROM workspace_subscriptions WHERE workspace_id = ? AND product_code = ?').get(workspaceId, DEVELOPER_PRODUCT);
        if (subscribed === undefined) throw new SandboxError(422, 'validation.failed', 'API tokens need the workspace to subscribe to the developer product.', { workspace: ['does not subscribe to the developer product'] });
        const token = mintTokenValue(prefix);
        const now = ctx.nowIso();
        const expiresAt = lifetime === null ? null : new Date(ctx.nowMs() + lifetime * 1000).toISOString();
        const id = ctx.db
          .pluck<unknown[], number>('INSERT INTO api_tokens (workspace_id, name, prefix, token_hash, abilities, ip_allowlist, rate_limit_per_minute, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id')
          .get(workspaceId, input.name.trim(), prefix, hashToken(token), JSON.stringify(abilities), JSON.stringify(ipAllowlist), limit, expiresAt, now)!;
        return { id, token, name: input.name.trim(), abilities, ipAllowlist, rateLimitPerMinute: limit, expires_at: expiresAt, created_at: now };
      });
    },

    revokeToken(tokenId, workspaceId) {
      ctx.write(() => {
        if (workspaceId !== undefined) {
          const owner = ctx.db.prepare<[number], { workspace_id: number }>('SELECT workspace_id FROM api_tokens WHERE id = ?').get(tokenId);
          if (owner?.workspace_id !== workspaceId) throw new SandboxError(404, 'api.not_found', `No token ${String(tokenId)} in this workspace.`);
        }
        ctx.db.prepare('UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(ctx.nowIso(), tokenId);
      });
    },

    deposit(workspaceId, input) {
      const errors = new FieldErrors();
      const amount = parseRequestAmount(input.amount);
      if (!amount.ok) errors.add('amount', amount.message);
      else if (amount.value.isZero()) errors.add('amount', 'must be greater than 0');
      const fee = parseRequestAmount(input.fee ?? '0');
      if (!fee.ok) errors.add('fee', fee.message);
      if (amount.ok && fee.ok && fee.value.greaterThan(amount.value)) errors.add('fee', 'must not exceed the amount');
      if (input.currency !== undefined && !CURRENCY.test(input.currency)) errors.add('currency', 'must be a currency code such as USD');
      errors.throwIfAny();
      if (!amount.ok || !fee.ok) throw new Error('unreachable');
      ctx.write(() => {
        const ws = requireWorkspace(ctx, workspaceId);
        const currency = input.currency ?? ws.base_currency;
        openWallet(ctx, workspaceId, currency);
        const description = input.description ?? `Deposit of ${fmt(amount.value)} ${currency}`;
        post(ctx, {
          workspaceId,
          currency,
          reason: 'usdt_deposit',
          description,
          legs: [
            { account: 'external.deposit', direction: 'debit', amount: amount.value },
            { account: 'wallet.available', direction: 'credit', amount: amount.value },
          ],
        });
        post(ctx, {
          workspaceId,
          currency,
          reason: 'usdt_deposit_fee',
          description: 'Deposit channel fee',
          legs: [
            { account: 'wallet.available', direction: 'debit', amount: fee.value },
            { account: 'platform.revenue', direction: 'credit', amount: fee.value },
          ],
        });
      });
      return wallet.get(workspaceId);
    },
  };
}
