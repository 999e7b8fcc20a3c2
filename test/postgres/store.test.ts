/**
 * The PostgreSQL engine of the storage seam (packages/sandbox/src/store/postgres.ts) against a real PostgreSQL
 * started for this file (test/helpers/postgres.ts): the schema both engines build, the statement translation, and
 * the seam's promises (transactions, watch, external version, migrations from two processes at once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../packages/sandbox/src/store/index.js';
import { toPostgresMigration, toPostgresStatement, writtenTable } from '../../packages/sandbox/src/store/postgres-sql.js';
import { migrations } from '../../packages/sandbox/src/migrations.js';
import { tableColumns, tableNames } from '../../packages/sandbox/src/test-support.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

let server: TestPostgres;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await server?.stop();
});

describe('the PostgreSQL store', () => {
  it('builds the same tables and columns as SQLite, in the same order', async () => {
    const url = await server.createDatabase('schema_parity');
    const pg = openStore(url, migrations);
    const sqlite = openStore(':memory:', migrations);
    try {
      const tables = tableNames(sqlite).filter((name) => !name.startsWith('sqlite_'));
      expect(tables.length).toBeGreaterThan(10);
      // The engine's own bookkeeping (schema version, generation counter) besides the sandbox's tables.
      expect(tableNames(pg).filter((name) => !name.startsWith('card_api_'))).toEqual(tables);
      for (const table of tables) {
        // SQLite's implicit rowid, made explicit where the domain orders by it.
        const pgColumns = tableColumns(pg, table).filter((c) => c !== 'rowid');
        expect(pgColumns, table).toEqual(tableColumns(sqlite, table));
      }
    } finally {
      pg.close();
      sqlite.close();
    }
  });

  it('answers rows as SQLite does: numbers for integers, strings for money, null for NULL', async () => {
    const url = await server.createDatabase('row_shapes');
    const pg = openStore(url, migrations);
    try {
      const product = pg.prepare<[number], Record<string, unknown>>('SELECT id, code, card_issue_fixed, supports_freeze, required_subscription_product_code FROM card_products WHERE id = ?').get(1);
      expect(product).toEqual({ id: 1, code: 'visa_usd_standard', card_issue_fixed: '5.00', supports_freeze: 1, required_subscription_product_code: null });
      expect(pg.pluck<[], number>('SELECT COUNT(*) AS n FROM card_products').get()).toBe(4);
      expect(pg.arrays<[], unknown[]>('SELECT id, code FROM card_products ORDER BY id LIMIT 2').all()).toEqual([
        [1, 'visa_usd_standard'],
        [2, 'mc_usd_premium'],
      ]);
    } finally {
      pg.close();
    }
  });
});

describe("another replica's commits", () => {
  it('a read of externalVersion made in a setImmediate job is forgotten when a request arrives (refreshExternalVersion)', async () => {
    const url = await server.createDatabase('external_version');
    const a = openStore(url, migrations);
    const b = openStore(url, migrations);
    try {
      // B reads the version in the check phase, as the scheduler's and the delivery pump's jobs do: the forgetting
      // this read schedules runs only in the next turn's check phase, after that turn's poll (where requests arrive).
      const before = await new Promise<number>((resolve) => setImmediate(() => resolve(b.externalVersion())));
      a.transaction('write', () => a.exec("INSERT INTO sandbox_state (key, value) VALUES ('probe', '1') ON CONFLICT (key) DO UPDATE SET value = excluded.value"));
      b.refreshExternalVersion();
      expect(b.externalVersion()).not.toBe(before);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('the SQLite dialect, translated at the seam', () => {
  it('numbers placeholders, never inside quotes', () => {
    expect(toPostgresStatement(`SELECT * FROM t WHERE a = ? AND b = '?' AND c = ?`)).toBe(`SELECT * FROM t WHERE a = $1 AND b = '?' AND c = $2`);
  });

  it('turns INSERT OR IGNORE into ON CONFLICT DO NOTHING, before RETURNING', () => {
    expect(toPostgresStatement('INSERT OR IGNORE INTO t (a) VALUES (?)')).toBe('INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING');
    expect(toPostgresStatement('INSERT OR IGNORE INTO t (a) VALUES (?) RETURNING a')).toBe('INSERT INTO t (a) VALUES ($1) ON CONFLICT DO NOTHING RETURNING a');
  });

  it('reads a JSON array of ids, types a bare parameter tested for NULL, and names a subquery', () => {
    expect(toPostgresStatement('UPDATE t SET a = 1 WHERE id IN (SELECT value FROM json_each(?))')).toBe(
      'UPDATE t SET a = 1 WHERE id IN (SELECT CAST(j.value AS BIGINT) FROM jsonb_array_elements_text(CAST($1 AS JSONB)) AS j(value))',
    );
    expect(toPostgresStatement('SELECT 1 HAVING (? IS NULL OR x >= ?)')).toBe('SELECT 1 HAVING (CAST($1 AS TEXT) IS NULL OR x >= $2)');
    expect(toPostgresStatement('SELECT COUNT(*) AS n FROM (SELECT a FROM t WHERE b = ?)')).toBe('SELECT COUNT(*) AS n FROM (SELECT a FROM t WHERE b = $1) AS card_api_sub1');
    expect(toPostgresStatement('SELECT n FROM (SELECT a AS n FROM t) AS named')).toBe('SELECT n FROM (SELECT a AS n FROM t) AS named');
  });

  it('knows which table a statement writes', () => {
    expect(['INSERT OR IGNORE INTO accounts (a) VALUES (1)', 'UPDATE cards SET a = 1', 'DELETE FROM orders', 'SELECT * FROM cards'].map(writtenTable)).toEqual(['accounts', 'cards', 'orders', null]);
  });

  it('refuses a migration with a trigger it does not know rather than apply half of it', () => {
    expect(() => toPostgresMigration('CREATE TRIGGER other AFTER INSERT ON t BEGIN SELECT 1; END;')).toThrow(/trigger/);
  });
});
