/**
 * The in-memory database is a SQLite `memdb` file behind a bounded page cache (see `openSqliteStore` in store/sqlite.ts).
 * Its one new behaviour is SQLite's ceiling for such files: these tests fill a database to it, once directly and
 * once under the HTTP API, and check that a write past it is refused cleanly (nothing half-written, a 503 that
 * tells the caller what to do) rather than failing somewhere later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from './migrations.js';
import { isStorageFull, MEMORY_DATABASE_LIMIT_BYTES, openStore, type Store } from './store/index.js';
import { DATABASE_FULL } from './http/handlers.js';
import { startSandbox, type RunningSandbox } from './http/server.js';
import { issueBody } from './test-support.js';

const MIB = Buffer.alloc(1024 * 1024, 7);

/**
 * Inserts 1 MiB blobs into `ballast` until SQLite refuses one, then (with `toTheByte`) ever smaller ones until even
 * a 64-byte one is refused, so that no page is left for anything else. Returns the MiB blobs that went in and the
 * refusal's code.
 */
function fill(db: Store, toTheByte = false): { blobs: number; full: boolean } {
  db.exec('CREATE TABLE ballast (b BLOB)');
  const insert = db.prepare('INSERT INTO ballast (b) VALUES (?)');
  const insertUntilRefused = (blob: Buffer, max: number): { count: number; full: boolean } => {
    for (let count = 0; count < max; count++) {
      try {
        insert.run(blob);
      } catch (error) {
        return { count, full: isStorageFull(error) };
      }
    }
    return { count: max, full: false };
  };
  const { count, full } = insertUntilRefused(MIB, 2 * (MEMORY_DATABASE_LIMIT_BYTES / MIB.length));
  if (toTheByte) for (let size = MIB.length / 4; size >= 64; size /= 4) insertUntilRefused(MIB.subarray(0, size), Infinity);
  return { blobs: count, full };
}

describe('in-memory database', () => {
  it('is a memdb file with a bounded page cache, not a plain :memory: database', () => {
    const db = openStore(':memory:', migrations);
    expect(db.memory).toBe(true);
    // Negative = KiB: a few MiB of cache whatever the database's size (a plain :memory: database caches every page).
    expect(db.pluck('PRAGMA cache_size').get()).toBeLessThan(0);
    expect(db.pluck('PRAGMA journal_mode').get()).toBe('memory');
    // The memdb VFS, not the default one of a plain :memory: database.
    expect(db.pluck('SELECT file FROM pragma_database_list WHERE name = ?').get('main')).toBe('');
    db.close();
  });

  it('holds up to the memdb ceiling, then refuses a write with SQLITE_FULL and keeps everything before it', () => {
    const db = openStore(':memory:', migrations);
    const { blobs, full } = fill(db);
    expect(full).toBe(true);
    // Almost the whole ceiling is usable (the schema and B-tree pages take the rest).
    expect(blobs).toBeGreaterThan(0.95 * (MEMORY_DATABASE_LIMIT_BYTES / MIB.length));
    expect(blobs).toBeLessThanOrEqual(MEMORY_DATABASE_LIMIT_BYTES / MIB.length);
    expect(db.pluck('SELECT COUNT(*) FROM ballast').get()).toBe(blobs);
    db.close();
  });
});

describe('a full in-memory sandbox under the HTTP API', () => {
  let running: RunningSandbox;
  beforeAll(async () => {
    running = await startSandbox({ port: 0, host: '127.0.0.1', sandboxOptions: { onError: () => undefined } });
  });
  afterAll(async () => {
    await running?.close();
  });

  it('answers writes with 503 and how to make room once no page is left, half-writes nothing, and still serves reads', async () => {
    const headers = { authorization: `Bearer ${running.token!}`, 'content-type': 'application/json' };
    expect(fill(running.sandbox.db, true).full).toBe(true);

    // Small writes still fit in the free space of pages already in use; issue until one needs a new page.
    let accepted = 0;
    let refused: Response | undefined;
    for (let i = 0; i < 2000 && refused === undefined; i++) {
      const response = await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers: { ...headers, 'x-idempotency-key': `full-${i}` }, body: JSON.stringify(issueBody()) });
      if (response.status === 202) accepted++;
      else refused = response;
    }
    expect(refused?.status).toBe(503);
    const body = (await refused!.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: 'api.internal_error', message: DATABASE_FULL });
    expect(body.error.message).toContain('--db');

    // Every accepted issue is whole and the refused one left nothing: one card and one balanced hold per 202.
    expect(running.sandbox.admin.audit()).toEqual([]);
    const cards = (await (await fetch(`${running.baseUrl}/cards?per_page=100`, { headers })).json()) as { meta: { total: number } };
    expect(cards.meta.total).toBe(accepted);
    const holds = running.sandbox.ledger.list(1, { reason: 'card_issue_held', per_page: 1 });
    // Two legs (available -> held) per hold.
    expect(holds.meta.total).toBe(2 * accepted);
  });
});
