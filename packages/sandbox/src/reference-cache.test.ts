/**
 * Rows of the reference tables (workspaces, subscriptions, tokens, products, forced failures) are cached until one
 * of those tables changes (context.ts, `referenceCached`). These tests pin both halves: the cache survives the card
 * and order writes of ordinary traffic, and no change to a reference table is missed, whoever makes it: the admin
 * API, a raw SQL write, a transaction that is rolled back, or another connection to the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { migrations } from './migrations.js';
import { createSandbox } from './sandbox.js';
import { openStore, type Store } from './store/index.js';
import { catchError, issueBody, setup } from './test-support.js';

const IP = '127.0.0.1';

/** SQL texts of the statements `fn` prepares through the store (the sandbox prepares at the point of use). */
function statementsOf(db: Store, fn: () => void): string[] {
  const seen: string[] = [];
  const spied = ['prepare', 'arrays', 'pluck'] as const;
  for (const method of spied) {
    const original = (db[method] as (sql: string) => unknown).bind(db);
    Object.defineProperty(db, method, { configurable: true, value: (sql: string) => (seen.push(sql), original(sql)) });
  }
  try {
    fn();
  } finally {
    for (const method of spied) delete (db as unknown as Record<string, unknown>)[method];
  }
  return seen;
}

const REFERENCE_READ = /FROM (workspaces|workspace_subscriptions|api_tokens|card_products|forced_failures)\b/;

describe('reference cache', () => {
  it('survives card and order writes: a second issue reads no workspace, token, product or subscription row', () => {
    const { sandbox, ws, token } = setup();
    sandbox.auth.authenticate(token, IP);
    sandbox.cards.create(ws, issueBody(), 'first');
    sandbox.advance(200);
    const statements = statementsOf(sandbox.db, () => {
      sandbox.auth.authenticate(token, IP);
      sandbox.cards.create(ws, issueBody(), 'second');
    });
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((sql) => REFERENCE_READ.test(sql))).toEqual([]);
  });

  it('sees admin changes at once: a frozen workspace, a revoked token, a forced failure', () => {
    const { sandbox, ws, token, tokenId } = setup();
    sandbox.auth.authenticate(token, IP);
    sandbox.admin.setWorkspaceStatus(ws, 'frozen');
    expect(catchError(() => sandbox.auth.authenticate(token, IP)).status).toBe(403);
    sandbox.admin.setWorkspaceStatus(ws, 'active');
    expect(sandbox.auth.authenticate(token, IP).workspace.status).toBe('active');

    sandbox.admin.failNextOrder('next-issue', 'business4xx');
    const failing = sandbox.cards.create(ws, issueBody(), 'forced');
    sandbox.advance(200);
    expect(sandbox.orders.get(ws, failing.uuid)).toMatchObject({ status: 'failed', failure_reason: 'business4xx' });
    // The forced failure was used up: the next issue completes.
    const next = sandbox.cards.create(ws, issueBody(), 'after-forced');
    sandbox.advance(200);
    expect(sandbox.orders.get(ws, next.uuid).status).toBe('completed');

    sandbox.admin.revokeToken(tokenId);
    expect(catchError(() => sandbox.auth.authenticate(token, IP)).status).toBe(401);
  });

  it('sees a raw SQL write to a reference table, which no service made', () => {
    const { sandbox, ws } = setup();
    sandbox.cards.create(ws, issueBody(), 'warm');
    sandbox.db.prepare(`UPDATE card_products SET min_initial_topup_amount = '500.00' WHERE id = 1`).run();
    const refused = catchError(() => sandbox.cards.create(ws, issueBody(), 'after-raise'));
    expect(refused.status).toBe(422);
    expect(refused.fieldErrors?.initial_topup_amount?.[0]).toContain('500.00');
  });

  it('keeps nothing a rolled-back transaction read after changing a reference table', () => {
    const { sandbox, ws, token } = setup();
    sandbox.auth.authenticate(token, IP);
    expect(() =>
      sandbox.db.transaction('write', () => {
        sandbox.db.prepare(`UPDATE workspaces SET status = 'frozen' WHERE id = ?`).run(ws);
        sandbox.db.prepare(`UPDATE card_products SET min_initial_topup_amount = '500.00' WHERE id = 1`).run();
        // Inside the transaction its own changes are seen...
        expect(catchError(() => sandbox.auth.authenticate(token, IP)).status).toBe(403);
        expect(catchError(() => sandbox.cards.create(ws, issueBody(), 'inside')).status).toBe(422);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    // ...and after the rollback none of them is: in a later transaction opened on the store directly (where the
    // context cannot tell that the first one ended)...
    sandbox.db.transaction('read', () => {
      expect(sandbox.auth.authenticate(token, IP).workspace.status).toBe('active');
      expect(sandbox.db.pluck('SELECT min_initial_topup_amount FROM card_products WHERE id = 1').get()).toBe('10.00');
    });
    // ...and outside any.
    expect(sandbox.auth.authenticate(token, IP).workspace.status).toBe('active');
    expect(sandbox.cards.create(ws, issueBody(), 'after-rollback').status).toBe('pending');
  });
});

describe('reference cache on a file database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-reference-'));
  const open: { close(): void }[] = [];
  afterEach(() => {
    for (const handle of open.splice(0)) handle.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("sees another connection's commit to a reference table", () => {
    const file = join(dir, 'two.db');
    const sandbox = createSandbox({ db: file, clock: createManualClock('2026-03-01T12:00:00.000Z'), orderLatencyMs: 50 });
    open.push(sandbox);
    const seeded = sandbox.seedDefaultWorkspace();
    expect(sandbox.auth.authenticate(seeded.token, IP).workspace.id).toBe(seeded.workspace.id);
    sandbox.cards.create(seeded.workspace.id, issueBody(), 'warm');

    // A second connection to the file, as a second process would have.
    const other = openStore(file, migrations);
    open.push(other);
    other.prepare(`UPDATE api_tokens SET revoked_at = '2026-03-01T12:00:00.000Z' WHERE id = ?`).run(seeded.tokenId);
    other.prepare(`UPDATE card_products SET min_initial_topup_amount = '500.00' WHERE id = 1`).run();

    expect(catchError(() => sandbox.auth.authenticate(seeded.token, IP)).status).toBe(401);
    expect(catchError(() => sandbox.cards.create(seeded.workspace.id, issueBody(), 'after-raise')).status).toBe(422);
  });
});
