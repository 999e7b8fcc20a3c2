/**
 * The PostgreSQL engine of the storage seam (packages/sandbox/src/store/postgres.ts) against a real PostgreSQL
 * started for this file (test/helpers/postgres.ts): the schema both engines build, the statement translation, and
 * the seam's promises (transactions, watch, external version, migrations from two processes at once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../packages/sandbox/src/store/index.js';
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
