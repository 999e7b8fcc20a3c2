/**
 * The sandbox's storage seam: the one interface the domain modules (orders, cards, ledger, delivery, ...) see.
 * Everything about the engine lives behind it: the driver, opening, pragmas, the statement cache, transactions,
 * migrations' execution, how a change to a watched table is noticed, and the file's mode.
 *
 * It is synchronous on purpose. Every service is a plain synchronous function of its context, and a write
 * transaction (a lookup, a balance check, then the inserts) must not yield to another request in the middle: the
 * sandbox's idempotency, money and delivery rules rest on that. An engine whose drivers are asynchronous keeps
 * this interface by running its driver in a worker thread and blocking the caller until the answer is there
 * (`Atomics.wait` on a SharedArrayBuffer that the worker notifies): the calling thread waits, which is what a
 * synchronous SQLite call does too.
 *
 * What a second engine (PostgreSQL, issue 35) must implement, beyond SQL of its own dialect for the schema:
 * - `prepare` / `pluck` / `arrays`: a statement run by `get`, `all` and `run` with positional `?` parameters (a
 *   PostgreSQL engine rewrites them to `$1..$n` once per SQL text, in its statement cache). Parameters are `null`,
 *   numbers, bigints, strings and byte arrays; rows come back as objects keyed by column name (`prepare`), as
 *   arrays in column order (`arrays`), or as their first column (`pluck`). `run` reports only `changes`: an
 *   inserted row's id comes from `RETURNING`, which both engines have, never from a last-insert-rowid.
 * - `transaction('write', fn)`: one transaction holding the write lock from its first statement, so that a
 *   lookup-then-insert cannot interleave with another connection's write (SQLite: `BEGIN IMMEDIATE`;
 *   PostgreSQL: a transaction that first takes a transaction-level advisory lock, or SERIALIZABLE with a retry).
 *   `transaction('read', fn)`: one snapshot for a count and its page (PostgreSQL: REPEATABLE READ READ ONLY).
 *   Neither nests: the context joins nested calls to the outer one.
 * - `watch(tables, onWrite)`: `onWrite` runs after any INSERT, UPDATE or DELETE on those tables through this
 *   connection, whatever statement made it (SQLite: temporary triggers calling a function of this process). A
 *   PostgreSQL engine cannot call into the process from a trigger; it bumps a counter row per table in the same
 *   transaction and reports the change from the statements' results, or treats every write transaction as one.
 * - `externalVersion()`: a number that changes when another connection (another process on the same database)
 *   has committed since the last call (SQLite: `PRAGMA data_version`; PostgreSQL: a counter row bumped by every
 *   write transaction, or LISTEN/NOTIFY).
 * - `migrate(migrations)`: applies, in order and each in its own transaction, the ones newer than the recorded
 *   schema version, safely when two processes start at once (SQLite: the write lock of `BEGIN IMMEDIATE` and
 *   `PRAGMA user_version`; PostgreSQL: an advisory lock and a version table).
 * - `isFull(error)`: whether a write failed because the database cannot grow (answered 503).
 * - `describeOpenError(error)`: the user-facing reason when the database cannot be opened or used.
 */

/** A value a statement binds: the types both engines carry without loss. */
export type SqlValue = null | number | bigint | string | Uint8Array;

export interface RunResult {
  /** Rows changed by the statement. */
  readonly changes: number | bigint;
}

/** A prepared statement, cached per SQL text by the store: callers prepare at the point of use. */
export interface Statement<P extends unknown[] = unknown[], R = unknown> {
  /** The first row, or `undefined` when there is none. */
  get(...params: P): R | undefined;
  all(...params: P): R[];
  run(...params: P): RunResult;
}

/** One schema step in the engine's dialect; appended, never edited once applied. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export interface Store {
  /** An in-memory database: no other connection can see or change it. */
  readonly memory: boolean;
  /**
   * Other processes write this database at any time as a matter of course (PostgreSQL replicas): work another one
   * scheduled must be looked for, and the sandbox clock's offset re-read. Absent: SQLite.
   */
  readonly shared?: boolean;
  /** False once `close` ran. */
  readonly open: boolean;
  /** Inside a transaction opened by `transaction`. */
  readonly inTransaction: boolean;
  /** Rows as objects keyed by column name (with no prototype: read them, spread them, do not call methods on them). */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R>;
  /** Rows as arrays in the column order of the SQL: the cheap form for wide rows read on hot paths. */
  arrays<P extends unknown[] = unknown[], R extends unknown[] = unknown[]>(sql: string): Statement<P, R>;
  /** Each row's first column only. */
  pluck<P extends unknown[] = unknown[], V = unknown>(sql: string): Statement<P, V>;
  /** Runs SQL without parameters or results (DDL, several statements). */
  exec(sql: string): void;
  /** Runs `fn` in one transaction (see the module comment); commits when it returns, rolls back when it throws. */
  transaction<T>(kind: 'write' | 'read', fn: () => T): T;
  /** Calls `onWrite` after every write to one of `tables` made through this store (see the module comment). */
  watch(tables: readonly string[], onWrite: () => void): void;
  /** Changes when another connection has committed (see the module comment). */
  externalVersion(): number;
  /**
   * Forgets a cached {@link externalVersion}, so that the next call reads it again. The HTTP server calls it as each
   * request arrives: a request sent after another replica's commit was answered must see that commit.
   */
  refreshExternalVersion(): void;
  /** Applies the migrations newer than the database's schema version. */
  migrate(migrations: readonly Migration[]): void;
  close(): void;
}
