import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/** Distinct SQL texts kept prepared; past this the cache starts over (dynamic list filters make a few dozen at most). */
const STATEMENT_CACHE_LIMIT = 2000;

/**
 * Opens (and creates or upgrades) the sandbox database: a file path or `':memory:'`.
 * Files use WAL so that a reader (for example a second process inspecting the file) never
 * blocks the writer; foreign keys are on because the schema relies on them.
 *
 * `db.prepare` is cached per SQL text on this connection: every service keeps writing
 * `ctx.db.prepare('...').get(...)` at the point of use, and gets the statement compiled the
 * first time (SQLite's prepare was the top entry of the request profile when it ran per call).
 * A cached statement is shared, so callers must not switch its mode (`pluck`, `raw`, `expand`,
 * `safeIntegers`) and must not nest two `iterate()` over the same SQL; nothing in the sandbox does.
 */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path, { timeout: 5000 });
  if (path !== ':memory:' && path !== '') db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // WAL with NORMAL sync is still durable across a process crash (what the sandbox promises); only an OS crash
  // can lose the last transactions. FULL would fsync every commit, the cost of each POST.
  if (path !== ':memory:' && path !== '') db.pragma('synchronous = NORMAL');
  cacheStatements(db);
  migrate(db);
  return db;
}

/** Replaces `db.prepare` with a per-SQL cache of prepared statements (see `openDatabase`). */
export function cacheStatements(db: Database.Database): Database.Database {
  const prepare = db.prepare.bind(db);
  let cache = new Map<string, Database.Statement>();
  const cached = ((source: string) => {
    let statement = cache.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      if (cache.size >= STATEMENT_CACHE_LIMIT) cache = new Map();
      cache.set(source, statement);
    }
    return statement;
  }) as Database.Database['prepare'];
  Object.defineProperty(db, 'prepare', { value: cached, configurable: true, writable: true });
  return db;
}

export type { Database };
