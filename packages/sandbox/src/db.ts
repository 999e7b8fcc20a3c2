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
  const db = path === ':memory:' ? openMemoryDatabase() : new Database(path, { timeout: 5000 });
  if (!db.memory) db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // WAL with NORMAL sync is still durable across a process crash (what the sandbox promises); only an OS crash
  // can lose the last transactions. FULL would fsync every commit, the cost of each POST.
  if (!db.memory) db.pragma('synchronous = NORMAL');
  cacheStatements(db);
  migrate(db);
  return db;
}

/** Page cache of an in-memory database: the pages a transaction works on, not the whole database (see `openMemoryDatabase`). */
const MEMORY_CACHE_KIB = 2 * 1024;

/** The most an in-memory database can hold: SQLite's default limit for its `memdb` files (SQLITE_MEMDB_DEFAULT_MAXSIZE). */
export const MEMORY_DATABASE_LIMIT_BYTES = 1024 ** 3;

/**
 * An in-memory database on SQLite's `memdb` file (a deserialized empty image) rather than a plain `:memory:` one.
 *
 * A plain `:memory:` database keeps every page in the page cache, and each commit after a B-tree split that
 * renumbered pages (frequent with random UUID keys) scans the cache's whole hash table: commits grew linearly
 * with the database (a 1-row commit took 4.6 µs at 1,500 pages and 15.8 µs at 12,600; the sandbox reaches 20,000
 * pages after 30,000 issues). A `memdb` file is a byte buffer behind a bounded page cache, so a commit costs the
 * same at any size. The price is SQLite's ceiling of {@link MEMORY_DATABASE_LIMIT_BYTES} for such a file (about
 * 300,000 issued cards); past it writes fail with `SQLITE_FULL`, which the API reports as a 503 that names
 * `--db`, since a file database has no such ceiling.
 */
function openMemoryDatabase(): Database.Database {
  const empty = new Database(':memory:');
  const image = empty.serialize();
  empty.close();
  const db = new Database(image, { timeout: 5000 });
  db.pragma(`cache_size = -${MEMORY_CACHE_KIB}`);
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
