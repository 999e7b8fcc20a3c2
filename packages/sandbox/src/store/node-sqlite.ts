import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Statement } from './store.js';
import type { SqliteConnection, SqliteDriver } from './sqlite.js';

/** The part of `node:sqlite` the store uses (typed here: the project's @types/node may predate the module). */
interface StatementSync extends Statement<unknown[], unknown> {
  setReturnArrays?(enabled: boolean): void;
}
interface DatabaseSync {
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  function(name: string, options: { deterministic: boolean; varargs?: boolean }, fn: (...args: unknown[]) => unknown): void;
  /** Node 22.16+ and 24+. */
  readonly isTransaction?: boolean;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: new (path: string) => DatabaseSync;
}

/**
 * `node:sqlite`, loaded without its ExperimentalWarning: Node 22 prints one when the module loads (24 and 26 do
 * not), which would reach every user of the sandbox's CLI. Only that warning is dropped, and only while the module
 * loads; every other warning goes through.
 */
function loadNodeSqlite(): NodeSqlite {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]): void {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: unknown } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && text.startsWith('SQLite is an experimental feature')) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    const sqlite = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
    if (sqlite === undefined) throw new Error(`the sandbox stores its state with node:sqlite, which needs Node.js 22.13 or later (this is ${process.version})`);
    return sqlite;
  } finally {
    process.emitWarning = emit;
  }
}

let nodeSqlite: NodeSqlite | undefined;

function connect(path: string): SqliteConnection {
  nodeSqlite ??= loadNodeSqlite();
  const db = new nodeSqlite.DatabaseSync(path);
  const native = 'isTransaction' in db;
  return {
    prepare(sql, arrays) {
      const statement = db.prepare(sql);
      if (!arrays) return statement;
      if (statement.setReturnArrays !== undefined) {
        statement.setReturnArrays(true);
        return statement;
      }
      // Node before 22.16: objects turned into arrays (the column names of one statement are distinct).
      return {
        get: (...params) => {
          const row = statement.get(...params);
          return row === undefined ? undefined : Object.values(row as object);
        },
        all: (...params) => statement.all(...params).map((row) => Object.values(row as object)),
        run: (...params) => statement.run(...params),
      };
    },
    exec: (sql) => db.exec(sql),
    function: (name, fn) => db.function(name, { deterministic: false }, (arg) => (fn(arg), null)),
    // Before 22.16 the store's own account is all there is: it alone opens transactions.
    isTransaction: native ? () => db.isTransaction! : () => true,
    close: () => db.close(),
  };
}

let memoryDatabases = 0;

/**
 * A `memdb` file opened by URI. Its name starts with a slash, which SQLite's memdb VFS reads as shared within the
 * process, so it is unique (pid, counter, random): no other connection opens it, and it is freed when this one closes.
 * An early Node 22 (22.13.0; 22.23.3 does open them) opens no URI: the same string is then a relative path under a
 * folder `file:` that does not exist, the open fails without creating anything, and the database is a plain
 * `:memory:` one (without the bounded page cache, see `openSqliteStore`).
 */
function openMemory(): SqliteConnection {
  if (!existsSync('file:')) {
    try {
      return connect(`file:/card-api-sandbox-${process.pid}-${++memoryDatabases}-${randomUUID()}?vfs=memdb`);
    } catch {
      // No URI filenames on this Node: below.
    }
  }
  return connect(':memory:');
}

/** SQLite through Node's built-in `node:sqlite` (Node 22.13+): no native module to build or download. */
export const nodeSqliteDriver: SqliteDriver = { openFile: connect, openMemory };
