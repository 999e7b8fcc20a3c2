import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { Statement } from './store.js';
import type { SqliteConnection, SqliteDriver } from './sqlite.js';

/** Where better-sqlite3 is loaded from: `CARD_API_BETTER_SQLITE3` (a build for another Node ABI, for the bench), else this package's. */
function load(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  return require(process.env.CARD_API_BETTER_SQLITE3 ?? 'better-sqlite3') as typeof BetterSqlite3;
}

function wrap(db: BetterSqlite3.Database): SqliteConnection {
  return {
    prepare: (sql, arrays) => (arrays ? db.prepare(sql).raw(true) : db.prepare(sql)) as unknown as Statement,
    exec: (sql) => void db.exec(sql),
    function: (name, fn) => void db.function(name, { deterministic: false }, (arg: unknown) => (fn(arg), null)),
    isTransaction: () => db.inTransaction,
    close: () => db.close(),
  };
}

/** The driver before node:sqlite, kept only until the bench has measured both side by side. */
export const betterSqlite3Driver: SqliteDriver = {
  openFile: (path) => wrap(new (load())(path)),
  openMemory: () => {
    const Database = load();
    const empty = new Database(':memory:');
    const image = empty.serialize();
    empty.close();
    return wrap(new Database(image));
  },
};
