import { closeSync, constants, openSync } from 'node:fs';
import type { Migration, RunResult, Statement, Store } from './store.js';

/** Distinct SQL texts kept prepared per row form; past this the cache starts over (dynamic list filters make a few dozen at most). */
const STATEMENT_CACHE_LIMIT = 2000;

/** How long a statement waits for another connection's write lock before it fails with SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/** Page cache of an in-memory database: the pages a transaction works on, not the whole database (see `openSqliteStore`). */
const MEMORY_CACHE_KIB = 2 * 1024;

/** The most an in-memory database can hold: SQLite's default limit for its `memdb` files (SQLITE_MEMDB_DEFAULT_MAXSIZE). */
export const MEMORY_DATABASE_LIMIT_BYTES = 1024 ** 3;

/** What the SQLite store needs of a driver: a connection whose statements already have the {@link Statement} shape. */
export interface SqliteConnection {
  /** A new statement; rows as objects, or as arrays in column order. */
  prepare(sql: string, arrays: boolean): Statement<unknown[], unknown>;
  exec(sql: string): void;
  /** Registers a non-deterministic SQL function of one argument, returning NULL. */
  function(name: string, fn: (arg: unknown) => void): void;
  /** Whether SQLite itself has a transaction open (after some errors it rolls back on its own). */
  isTransaction(): boolean;
  close(): void;
}

export interface SqliteDriver {
  /** A connection to the file at `path` (created if missing; the store has already created it with its mode). */
  openFile(path: string): SqliteConnection;
  /** A connection to a new private database on SQLite's `memdb` VFS. */
  openMemory(): SqliteConnection;
}

/**
 * The SQLite store over `driver`: `path` is a file or `':memory:'`.
 *
 * Files use WAL, so that a reader (for example a second process inspecting the file) never blocks the writer,
 * with `synchronous = NORMAL`: still durable across a process crash (what the sandbox promises); only an OS crash
 * can lose the last transactions, and FULL would fsync every commit, the cost of each POST. The file is created
 * 0600 (it holds the default token and the webhook signing secrets), and SQLite gives its `-wal` and `-shm` files
 * the database file's mode. `secure_delete` zeroes freed pages, so that a purged PAN does not linger in the file.
 *
 * The in-memory database is a SQLite `memdb` file rather than a plain `:memory:` one. A plain `:memory:` database
 * keeps every page in the page cache, and each commit after a B-tree split that renumbered pages (frequent with
 * random UUID keys) scans the cache's whole hash table: commits grew linearly with the database (a 1-row commit
 * took 4.6 µs at 1,500 pages and 15.8 µs at 12,600; the sandbox reaches 20,000 pages after 30,000 issues). A
 * `memdb` file is a byte buffer behind a bounded page cache, so a commit costs the same at any size. The price is
 * SQLite's ceiling of {@link MEMORY_DATABASE_LIMIT_BYTES} for such a file (about 300,000 issued cards); past it
 * writes fail with `SQLITE_FULL`, which the API reports as a 503 that names `--db`, since a file database has no
 * such ceiling. (An early Node 22, such as 22.13.0, cannot open a `memdb` file: there it is a plain `:memory:` database.)
 *
 * Statements are cached per SQL text and row form: every service keeps writing `ctx.db.prepare('...').get(...)`
 * at the point of use and gets the statement compiled the first time (SQLite's prepare was the top entry of the
 * request profile when it ran per call).
 */
export function openSqliteStore(path: string, driver: SqliteDriver): Store {
  const memory = path === ':memory:';
  if (!memory) createPrivately(path);
  // A path that starts with `file:` is a file of that name, as it always was, not a URI.
  const connection = memory ? driver.openMemory() : driver.openFile(path.startsWith('file:') ? `./${path}` : path);
  try {
    return new SqliteStore(connection, memory);
  } catch (error) {
    connection.close();
    throw error;
  }
}

/**
 * Creates the database file with mode 0600 when it does not exist yet (the umask can only clear bits of it). Any
 * other failure is left to SQLite's open, which reports it as it always did.
 */
function createPrivately(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  } catch {
    return;
  }
  closeSync(fd);
}

class SqliteStore implements Store {
  readonly memory: boolean;
  #open = true;
  #active = false;
  readonly #connection: SqliteConnection;
  #objects = new Map<string, Statement>();
  #arrays = new Map<string, Statement>();
  #plucked = new Map<string, Statement>();
  readonly #begin: Record<'write' | 'read', Statement>;
  readonly #commit: Statement;
  readonly #rollback: Statement;
  readonly #dataVersion: Statement<[], number>;
  readonly #watchers = new Map<string, Array<() => void>>();

  constructor(connection: SqliteConnection, memory: boolean) {
    this.#connection = connection;
    this.memory = memory;
    // PRAGMAs take no bound parameters; every value here is our own constant.
    this.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (memory) {
      this.exec(`PRAGMA cache_size = -${MEMORY_CACHE_KIB}`);
    } else {
      this.exec('PRAGMA journal_mode = WAL');
      this.exec('PRAGMA synchronous = NORMAL');
    }
    this.exec('PRAGMA foreign_keys = ON');
    this.exec('PRAGMA secure_delete = ON');
    // IMMEDIATE takes the write lock up front: a lookup-then-insert (idempotency keys, balance checks) cannot
    // interleave with another connection's write.
    this.#begin = { write: this.prepare('BEGIN IMMEDIATE'), read: this.prepare('BEGIN DEFERRED') };
    this.#commit = this.prepare('COMMIT');
    this.#rollback = this.prepare('ROLLBACK');
    this.#dataVersion = this.pluck<[], number>('PRAGMA data_version');
  }

  get open(): boolean {
    return this.#open;
  }

  get inTransaction(): boolean {
    return this.#active && this.#connection.isTransaction();
  }

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    let statement = this.#objects.get(sql);
    if (statement === undefined) {
      statement = this.#connection.prepare(sql, false);
      if (this.#objects.size >= STATEMENT_CACHE_LIMIT) this.#objects = new Map();
      this.#objects.set(sql, statement);
    }
    return statement as Statement<P, R>;
  }

  arrays<P extends unknown[] = unknown[], R extends unknown[] = unknown[]>(sql: string): Statement<P, R> {
    let statement = this.#arrays.get(sql);
    if (statement === undefined) {
      statement = this.#connection.prepare(sql, true);
      if (this.#arrays.size >= STATEMENT_CACHE_LIMIT) this.#arrays = new Map();
      this.#arrays.set(sql, statement);
    }
    return statement as Statement<P, R>;
  }

  pluck<P extends unknown[] = unknown[], V = unknown>(sql: string): Statement<P, V> {
    let statement = this.#plucked.get(sql);
    if (statement === undefined) {
      const rows = this.#connection.prepare(sql, true) as Statement<unknown[], unknown[]>;
      statement = {
        get: (...params) => rows.get(...params)?.[0],
        all: (...params) => rows.all(...params).map((row) => row[0]),
        run: (...params): RunResult => rows.run(...params),
      };
      if (this.#plucked.size >= STATEMENT_CACHE_LIMIT) this.#plucked = new Map();
      this.#plucked.set(sql, statement);
    }
    return statement as Statement<P, V>;
  }

  exec(sql: string): void {
    this.#connection.exec(sql);
  }

  transaction<T>(kind: 'write' | 'read', fn: () => T): T {
    if (this.#active) throw new Error('transaction inside a transaction: the context joins nested writes to the outer one');
    this.#begin[kind].run();
    this.#active = true;
    try {
      const result = fn();
      this.#commit.run();
      return result;
    } catch (error) {
      // SQLite may already have rolled back (SQLITE_FULL, an I/O error); a failed COMMIT leaves it open.
      if (this.#connection.isTransaction()) {
        try {
          this.#rollback.run();
        } catch {
          // Already over after all: the error that matters is the one being thrown.
        }
      }
      throw error;
    } finally {
      this.#active = false;
    }
  }

  watch(tables: readonly string[], onWrite: () => void): void {
    if (this.#watchers.size === 0) {
      this.#connection.function('card_api_table_written', (table) => {
        for (const listener of this.#watchers.get(String(table)) ?? []) listener();
      });
    }
    for (const table of tables) {
      if (!/^[a-z_]+$/.test(table)) throw new Error(`watch: not a table name: ${table}`);
      let listeners = this.#watchers.get(table);
      if (listeners === undefined) {
        listeners = [];
        this.#watchers.set(table, listeners);
        // Temporary triggers: this connection's own, never stored in the file.
        for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
          this.exec(`CREATE TEMP TRIGGER IF NOT EXISTS ${table}_${op.toLowerCase()}_watched AFTER ${op} ON main.${table} BEGIN SELECT card_api_table_written('${table}'); END`);
        }
      }
      listeners.push(onWrite);
    }
  }

  externalVersion(): number {
    return this.#dataVersion.get() ?? 0;
  }

  /** Nothing to forget: `PRAGMA data_version` is read at every call. */
  refreshExternalVersion(): void {}

  migrate(migrations: readonly Migration[]): void {
    const version = this.pluck<[], number>('PRAGMA user_version');
    for (const m of migrations) {
      if (m.version <= (version.get() ?? 0)) continue;
      this.transaction('write', () => {
        // Read again under the write lock: another process starting on the same file may have applied it meanwhile.
        if (m.version <= (version.get() ?? 0)) return;
        this.exec(m.sql);
        this.exec(`PRAGMA user_version = ${m.version}`);
      });
    }
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#objects.clear();
    this.#arrays.clear();
    this.#plucked.clear();
    this.#connection.close();
  }
}
