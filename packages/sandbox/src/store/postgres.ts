/**
 * The PostgreSQL engine of the storage seam (issue 35): several sandbox processes ("replicas") on one database.
 *
 * The domain modules are synchronous (store.ts says why), and every maintained PostgreSQL driver for Node is
 * asynchronous. So the driver (`pg`, pure JavaScript: `pg-native` is never loaded) runs in a worker thread with one
 * connection, and each statement is a message to it: the calling thread posts the request and blocks on
 * `Atomics.wait` over a SharedArrayBuffer until the worker has posted the answer and notified, then takes the answer
 * with `receiveMessageOnPort`. The caller waits as it does for a synchronous SQLite call; the cost is the round trip
 * (measured by the lead at about 200 µs for a trivial query on loopback against 135 µs for `pg` used
 * asynchronously).
 *
 * How the seam's promises hold across replicas:
 * - a write transaction takes one transaction-level advisory lock first, so that write transactions of every
 *   replica run one at a time, as SQLite's `BEGIN IMMEDIATE` makes them: a lookup-then-insert (an idempotency key,
 *   a balance check, a claim of due work) cannot interleave with another replica's write. A write statement outside
 *   any transaction runs as a write transaction of its own, for the same reason;
 * - every write transaction bumps a counter row (`card_api_generation`) in the same round trip as its COMMIT;
 *   `externalVersion` reads it, less this store's own commits, at most once per turn of the event loop and again
 *   for each request as it arrives (`refreshExternalVersion`), so that caches keyed on it see other replicas'
 *   commits;
 * - `watch` reports a write to a watched table from the statement itself (its target table and its row count):
 *   PostgreSQL's triggers cannot call into the process;
 * - `migrate` holds a session-level advisory lock while it reads and advances the schema version, so two replicas
 *   starting at once apply each migration once.
 */
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { Migration, RunResult, Statement, Store } from './store.js';
import { toPostgresMigration, toPostgresStatement, writtenTable } from './postgres-sql.js';

/** Namespace of the sandbox's advisory locks (ASCII "CARD"); the second key tells them apart. */
const LOCK_NAMESPACE = 0x43415244;
const WRITE_LOCK = 1;
const MIGRATION_LOCK = 2;

/** How long one statement may take, including waits for another replica's write transaction, before it fails. */
const STATEMENT_TIMEOUT_MS = 60_000;

/** Distinct SQL texts kept translated and prepared; past this the cache starts over (as the SQLite store does). */
const STATEMENT_CACHE_LIMIT = 2000;

/** Whether `db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The URL without its password: what messages may show. */
export function redactPostgresUrl(db: string): string {
  try {
    const url = new URL(db);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return db.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** An error PostgreSQL (or the connection to it) reported, with its SQLSTATE when there is one. */
export class PostgresError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'PostgresError';
  }
}

/** The worker: one `pg` client, one request at a time, each answer followed by a notify on the shared flag. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const pg = require(workerData.pgPath);
const { port, flag: sab, url, statementTimeoutMs } = workerData;
const flag = new Int32Array(sab);
// bigint (int8) columns and COUNT(*) come back as numbers, as SQLite returns them: ids, epoch milliseconds and
// counts all stay far below 2^53. numeric is not used (money is TEXT), so no other parser changes.
const types = { getTypeParser: (oid, format) => (oid === 20 ? (v) => (v === null ? null : Number(v)) : pg.types.getTypeParser(oid, format)) };
const client = new pg.Client({ connectionString: url, types, statement_timeout: statementTimeoutMs, application_name: 'card-api-sandbox' });
let broken = null;
client.on('error', (error) => { broken = error; });
const ready = client.connect();
ready.catch(() => {});
const answer = (reply) => { port.postMessage(reply); Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); };
const fail = (error) => ({ error: { message: String(error && error.message || error), code: error && typeof error.code === 'string' ? error.code : undefined } });
port.on('message', async (request) => {
  if (request.close) {
    try { await client.end(); } catch {}
    answer({ closed: true });
    port.close();
    return;
  }
  try {
    await ready;
    if (broken !== null) throw broken;
    const values = request.values && request.values.map((v) => (v instanceof Uint8Array ? Buffer.from(v) : typeof v === 'bigint' ? v.toString() : v));
    const result = await client.query(request.name ? { name: request.name, text: request.text, values, rowMode: request.rowMode } : { text: request.text, values, rowMode: request.rowMode });
    const last = Array.isArray(result) ? result[result.length - 1] : result;
    answer({ rows: last ? last.rows : [], rowCount: last ? last.rowCount : 0 });
  } catch (error) {
    answer(fail(error));
  }
});
`;

interface Reply {
  rows: unknown[];
  rowCount: number | null;
}

/** The connection: a worker running `pg`, spoken to synchronously. */
class Connection {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #flag: Int32Array;
  #closed = false;

  constructor(url: string) {
    const sab = new SharedArrayBuffer(4);
    this.#flag = new Int32Array(sab);
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    const pgPath = createRequire(import.meta.url).resolve('pg');
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { port: port2, flag: sab, url, pgPath, statementTimeoutMs: STATEMENT_TIMEOUT_MS },
      transferList: [port2],
      // The worker's own stdout/stderr are not the process's: nothing of it reaches the terminal.
      stdout: true,
      stderr: true,
    });
    this.#worker.unref();
    this.#port.unref();
  }

  query(text: string, values?: readonly unknown[], options: { name?: string; rowMode?: 'array' } = {}): Reply {
    if (this.#closed) throw new PostgresError('the database connection is closed', undefined);
    Atomics.store(this.#flag, 0, 0);
    this.#port.postMessage({ text, values, ...options });
    const deadline = Date.now() + STATEMENT_TIMEOUT_MS + 10_000;
    for (;;) {
      const waited = Atomics.wait(this.#flag, 0, 0, 1000);
      const message = receiveMessageOnPort(this.#port);
      if (message !== undefined) {
        const reply = message.message as Reply & { error?: { message: string; code?: string } };
        if (reply.error !== undefined) throw new PostgresError(reply.error.message, reply.error.code);
        return reply;
      }
      if (waited === 'timed-out' && Date.now() > deadline) throw new PostgresError('no answer from the database connection', undefined);
    }
  }

  close(): void {
    if (this.#closed) return;
    try {
      Atomics.store(this.#flag, 0, 0);
      this.#port.postMessage({ close: true });
      const deadline = Date.now() + 5000;
      while (receiveMessageOnPort(this.#port) === undefined && Date.now() < deadline) Atomics.wait(this.#flag, 0, 0, 100);
    } finally {
      this.#closed = true;
      this.#port.close();
      void this.#worker.terminate();
    }
  }
}

type Mode = 'objects' | 'arrays' | 'pluck';

/** Opens the store on the database at `url`; the caller runs `migrate`. */
export function openPostgresStore(url: string): Store {
  return new PostgresStore(new Connection(url));
}

class PostgresStore implements Store {
  readonly memory = false;
  readonly shared = true;
  #open = true;
  #active = false;
  readonly #connection: Connection;
  #statements = new Map<string, Statement>();
  #names = 0;
  readonly #watchers = new Map<string, Array<() => void>>();
  #version: number | undefined;
  /** Write transactions this store committed, each of which bumped the generation counter once. */
  #ownCommits = 0;

  constructor(connection: Connection) {
    this.#connection = connection;
    // The first query: a database that cannot be reached fails here, where the caller reports it.
    connection.query('SELECT 1');
  }

  get open(): boolean {
    return this.#open;
  }

  get inTransaction(): boolean {
    return this.#active;
  }

  #statement(sql: string, mode: Mode): Statement {
    const cacheKey = `${mode}:${sql}`;
    let statement = this.#statements.get(cacheKey);
    if (statement !== undefined) return statement;
    const text = toPostgresStatement(sql);
    const table = writtenTable(sql);
    const name = `card_api_${++this.#names}`;
    const options = mode === 'objects' ? { name } : { name, rowMode: 'array' as const };
    const execute = (params: unknown[]): Reply => {
      // A write outside a transaction is a write transaction of its own (the write lock, the generation bump).
      if (table !== null && !this.#active) return this.transaction('write', () => execute(params));
      const reply = this.#connection.query(text, params, options);
      if (table !== null && (reply.rowCount ?? 0) > 0) for (const listener of this.#watchers.get(table) ?? []) listener();
      return reply;
    };
    const first = mode === 'pluck' ? (row: unknown) => (row as unknown[] | undefined)?.[0] : (row: unknown) => row;
    statement = {
      get: (...params) => first(execute(params).rows[0]),
      all: (...params) => (mode === 'pluck' ? execute(params).rows.map(first) : execute(params).rows),
      run: (...params): RunResult => ({ changes: execute(params).rowCount ?? 0 }),
    };
    if (this.#statements.size >= STATEMENT_CACHE_LIMIT) this.#statements = new Map();
    this.#statements.set(cacheKey, statement);
    return statement;
  }

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): Statement<P, R> {
    return this.#statement(sql, 'objects') as Statement<P, R>;
  }

  arrays<P extends unknown[] = unknown[], R extends unknown[] = unknown[]>(sql: string): Statement<P, R> {
    return this.#statement(sql, 'arrays') as Statement<P, R>;
  }

  pluck<P extends unknown[] = unknown[], V = unknown>(sql: string): Statement<P, V> {
    return this.#statement(sql, 'pluck') as Statement<P, V>;
  }

  exec(sql: string): void {
    // DDL of the sandbox's own side tables (the HTTP layer's default-token table): SQLite's dialect, translated.
    this.#connection.query(toPostgresMigration(sql));
  }

  transaction<T>(kind: 'write' | 'read', fn: () => T): T {
    if (this.#active) throw new Error('transaction inside a transaction: the context joins nested writes to the outer one');
    // One round trip each way: BEGIN with the lock, and the generation bump with COMMIT.
    this.#connection.query(kind === 'write' ? `BEGIN; SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}, ${WRITE_LOCK})` : 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    this.#active = true;
    try {
      const result = fn();
      this.#connection.query(kind === 'write' ? 'UPDATE card_api_generation SET value = value + 1; COMMIT' : 'COMMIT');
      if (kind === 'write') this.#ownCommits++;
      return result;
    } catch (error) {
      try {
        this.#connection.query('ROLLBACK');
      } catch {
        // The connection is gone or the transaction already over: the error that matters is the one being thrown.
      }
      throw error;
    } finally {
      this.#active = false;
    }
  }

  watch(tables: readonly string[], onWrite: () => void): void {
    for (const table of tables) {
      if (!/^[a-z_]+$/.test(table)) throw new Error(`watch: not a table name: ${table}`);
      const listeners = this.#watchers.get(table) ?? [];
      listeners.push(onWrite);
      this.#watchers.set(table, listeners);
    }
  }

  externalVersion(): number {
    if (this.#version === undefined) {
      const row = this.#connection.query('SELECT value FROM card_api_generation WHERE id = 1', [], { rowMode: 'array' }).rows[0] as [number] | undefined;
      // Other connections' commits only, as SQLite's data_version counts them: this store's own are known to the
      // context already, and counting them here would empty the reference caches at every write.
      this.#version = (row?.[0] ?? 0) - this.#ownCommits;
      // Read once per turn of the event loop: what other replicas committed before a request arrived is seen by it.
      // A request that follows such a commit (its client saw the commit's answer) arrives after it; the read is
      // made after every request of this turn had arrived (they came in one batch from the poll), so it sees that
      // commit. A microtask would read it at each await of a handler.
      setImmediate(() => (this.#version = undefined));
    }
    return this.#version;
  }

  /**
   * The per-turn read above is not enough on its own: a read made in the check phase (a `setImmediate` job, such as
   * the scheduler's re-arm or the delivery pump, asking the clock for the time) schedules its own forgetting for the
   * next turn's check phase, after that turn's poll, so the requests arriving in that poll would see the version
   * from before another replica's commit (the likely cause of a failure test/postgres/replicas.test.ts showed once,
   * on Node 26: a clock advanced on one replica, unchanged on the other). Each request therefore reads it afresh.
   */
  refreshExternalVersion(): void {
    this.#version = undefined;
  }

  migrate(migrations: readonly Migration[]): void {
    const q = (sql: string): Reply => this.#connection.query(sql);
    q(`SELECT pg_advisory_lock(${LOCK_NAMESPACE}, ${MIGRATION_LOCK})`);
    try {
      q(`CREATE TABLE IF NOT EXISTS card_api_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
         INSERT INTO card_api_schema (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
         CREATE TABLE IF NOT EXISTS card_api_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value BIGINT NOT NULL);
         INSERT INTO card_api_generation (id, value) VALUES (1, 0) ON CONFLICT (id) DO NOTHING`);
      const version = (): number => (this.#connection.query('SELECT version FROM card_api_schema WHERE id = 1', [], { rowMode: 'array' }).rows[0] as [number])[0];
      for (const m of migrations) {
        if (m.version <= version()) continue;
        const sql = toPostgresMigration(m.sql);
        this.transaction('write', () => {
          q(sql);
          this.#connection.query('UPDATE card_api_schema SET version = $1 WHERE id = 1', [m.version]);
        });
      }
    } finally {
      q(`SELECT pg_advisory_unlock(${LOCK_NAMESPACE}, ${MIGRATION_LOCK})`);
    }
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#statements.clear();
    this.#connection.close();
  }
}
