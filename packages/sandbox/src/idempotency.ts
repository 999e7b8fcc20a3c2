import { hash } from 'node:crypto';
import type { Context } from './context.js';
import { SandboxError } from './errors.js';

/** D7: 1 to 255 visible ASCII characters. */
const KEY_FORM = /^[\x21-\x7E]{1,255}$/;

/** Contract section 8: the window in which a key returns the same order. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The idempotent write operations. A key is scoped to the workspace (D33): the operation is part of the request it names. */
export type IdempotentOperation = 'cards.create' | 'cards.topup' | 'cards.freeze' | 'cards.unfreeze' | 'cards.close';

/** JSON with sorted keys and no undefined members, so that equal requests hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Fingerprint of a request: operation, path parameters and body. */
export function requestHash(request: unknown): string {
  // The one-shot form of createHash('sha256').update(text).digest('hex'): the same digest, without a Hash object per request.
  return hash('sha256', canonical(request), 'hex');
}

/** Rejects a malformed key with 422 before anything else happens. */
export function checkKey(key: string | undefined): void {
  if (key !== undefined && !KEY_FORM.test(key)) {
    throw new SandboxError(422, 'validation.failed', 'X-Idempotency-Key must be 1 to 255 visible ASCII characters.', { 'X-Idempotency-Key': ['must be 1 to 255 visible ASCII characters'] });
  }
}

/**
 * Runs an accepting write at most once per key (D7). Must be called inside the write
 * transaction, which is IMMEDIATE: the lookup and the insert of the key happen under the
 * database write lock, so concurrent identical requests (also from other connections to the
 * same file) see either no key and insert it, or the key and replay its order.
 *
 * - key seen within 24 h with the same request: returns its order uuid, whatever the order's state (a failed order stays failed);
 * - key seen within 24 h with another request - another operation, card or body (D33): 409 `idempotency.key_reused`;
 * - key older than 24 h: forgotten, the request runs as new.
 *
 * Only accepted writes bind a key: a request refused with 4xx leaves the key unused.
 *
 * @returns the order uuid and whether it was replayed
 */
export function once(ctx: Context, scope: { workspaceId: number; operation: IdempotentOperation; key: string | undefined; request: unknown }, accept: () => string): { orderUuid: string; replayed: boolean } {
  if (!ctx.db.inTransaction) throw new Error('idempotency check outside a write transaction');
  if (scope.key === undefined) return { orderUuid: accept(), replayed: false };
  const hash = requestHash({ operation: scope.operation, request: scope.request });
  const nowMs = ctx.nowMs();
  // Newest first: a database written before D33 may hold the key under several operations.
  const seen = ctx.db
    .prepare<[number, string], { operation: string; request_hash: string; order_uuid: string; created_at_ms: number }>(
      'SELECT operation, request_hash, order_uuid, created_at_ms FROM idempotency_keys WHERE workspace_id = ? AND key = ? ORDER BY created_at_ms DESC LIMIT 1',
    )
    .get(scope.workspaceId, scope.key);
  if (seen !== undefined && nowMs - seen.created_at_ms < IDEMPOTENCY_WINDOW_MS) {
    if (seen.request_hash !== hash) {
      const where = seen.operation === scope.operation ? 'with a different request' : `on another endpoint (${seen.operation})`;
      throw new SandboxError(409, 'idempotency.key_reused', `This X-Idempotency-Key was already used ${where} within 24 hours; use a new key.`);
    }
    return { orderUuid: seen.order_uuid, replayed: true };
  }
  if (seen !== undefined) ctx.db.prepare('DELETE FROM idempotency_keys WHERE workspace_id = ? AND key = ?').run(scope.workspaceId, scope.key);
  const orderUuid = accept();
  ctx.db.prepare('INSERT INTO idempotency_keys (workspace_id, operation, key, request_hash, order_uuid, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)').run(scope.workspaceId, scope.operation, scope.key, hash, orderUuid, nowMs);
  return { orderUuid, replayed: false };
}
