import { createManualClock } from './clock.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
import { openPostgresStore } from './store/postgres.js';
import type { Store } from './store/index.js';
import type { CreateCardBody } from './types.js';

let schemas = 0;

/**
 * The database of a test's sandbox: undefined (in memory), or, in the PostgreSQL run of the tests
 * (test/postgres/vitest.config.ts sets CARD_API_SANDBOX_TEST_DB), a new empty schema of that database, so that each
 * sandbox starts from nothing as an in-memory one does.
 */
export function testDatabase(): string | undefined {
  const url = process.env.CARD_API_SANDBOX_TEST_DB;
  if (url === undefined || url === '') return undefined;
  const schema = `sandbox_${process.pid}_${++schemas}`;
  const admin = openPostgresStore(url);
  try {
    admin.exec(`CREATE SCHEMA ${schema}`);
  } finally {
    admin.close();
  }
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return withSchema.toString();
}

/**
 * Test fixture: an in-memory sandbox on a manual clock (no real timers) with the default
 * workspace seeded. Shared by the `*.test.ts` files of this package.
 */
export function setup(options: SandboxOptions = {}): { sandbox: Sandbox; ws: number; token: string; tokenId: number; clock: ReturnType<typeof createManualClock> } {
  const clock = createManualClock('2026-03-01T12:00:00.000Z');
  const db = testDatabase();
  const sandbox = createSandbox({ clock, orderLatencyMs: 50, closeDelayMs: 1000, ...(db === undefined ? {} : { db }), ...options });
  const seeded = sandbox.seedDefaultWorkspace();
  return { sandbox, ws: seeded.workspace.id, token: seeded.token, tokenId: seeded.tokenId, clock };
}

/** The tables of a test's database, whichever the engine (SQLite's catalogue, or PostgreSQL's schema of the sandbox). */
export function tableNames(db: Store): string[] {
  return db.shared === true
    ? db.pluck<[], string>(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`).all()
    : db.pluck<[], string>(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all();
}

/** The columns of `table`, in order, whichever the engine. */
export function tableColumns(db: Store, table: string): string[] {
  return db.shared === true
    ? db.pluck<[string], string>(`SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`).all(table)
    : db.pluck<[string], string>(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).all(table);
}

/** A valid `POST /cards` body for the USD standard product (id 1: fee 5.00, minimum 10.00, no custom billing address). */
export function issueBody(overrides: Partial<CreateCardBody> = {}): CreateCardBody {
  return { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace', ...overrides };
}

/** Issues a card and runs the order to completion; returns the card uuid. */
export function issueActiveCard(sandbox: Sandbox, ws: number, overrides: Partial<CreateCardBody> = {}): string {
  const order = sandbox.cards.create(ws, issueBody(overrides));
  sandbox.advance(1000);
  const done = sandbox.orders.get(ws, order.uuid);
  // D29: the order names its card from the 202 on; the card is active once the order completed.
  if (done.status !== 'completed' || typeof done.related_card_uuid !== 'string' || done.related_card_uuid !== order.related_card_uuid) throw new Error('issue did not complete');
  return done.related_card_uuid;
}

/** The uuid of the workspace's newest card (listed from the acceptance of its issue order on). */
export function newestCard(sandbox: Sandbox, ws: number): string {
  const card = sandbox.cards.list(ws, { per_page: 1 }).data[0];
  if (card === undefined) throw new Error('the workspace has no card');
  return card.uuid;
}

/** Calls `fn` and returns the SandboxError it throws (fails when it does not throw). */
export function catchError(fn: () => unknown): { status: number; code: string; message: string; fieldErrors: Record<string, string[]> | undefined } {
  try {
    fn();
  } catch (error) {
    return error as { status: number; code: string; message: string; fieldErrors: Record<string, string[]> | undefined };
  }
  throw new Error('expected an error, none was thrown');
}
