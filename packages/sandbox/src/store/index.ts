/**
 * The storage seam (see store.ts): the store the sandbox opens, and the two questions about a storage error that
 * the HTTP layer and the CLI ask.
 */
import { openSqliteStore } from './sqlite.js';
import { nodeSqliteDriver } from './node-sqlite.js';
import { isPostgresUrl, openPostgresStore, PostgresError } from './postgres.js';
import type { Migration, Store } from './store.js';

export type { Migration, RunResult, SqlValue, Statement, Store } from './store.js';
export { MEMORY_DATABASE_LIMIT_BYTES } from './sqlite.js';

export { isPostgresUrl, redactPostgresUrl } from './postgres.js';

/**
 * Opens (and creates or upgrades to `migrations`) the sandbox's database: a file path, `':memory:'`, or a
 * `postgres://` / `postgresql://` URL (PostgreSQL, shared by several sandbox processes: postgres.ts).
 */
export function openStore(path: string, migrations: readonly Migration[]): Store {
  const store = isPostgresUrl(path) ? openPostgresStore(path) : openSqliteStore(path, nodeSqliteDriver);
  try {
    store.migrate(migrations);
  } catch (error) {
    store.close();
    throw error;
  }
  return store;
}

/** SQLite's primary result code of a node:sqlite error (`errcode` holds the extended code). */
function sqliteCode(error: unknown): number | undefined {
  const e = error as { code?: unknown; errcode?: unknown } | null;
  return e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' ? e.errcode & 0xff : undefined;
}

/** SQLITE_FULL: a write refused because the database cannot grow (the in-memory ceiling, a full disk). */
export function isStorageFull(error: unknown): boolean {
  // PostgreSQL: disk_full, out_of_memory.
  if (error instanceof PostgresError) return error.code === '53100' || error.code === '53200';
  return sqliteCode(error) === 13;
}

/** The reason to print when the database cannot be opened or used, or null when `error` is not the engine's. */
export function describeStorageError(error: unknown): string | null {
  if (error instanceof PostgresError) return `PostgreSQL cannot use it (${error.code === undefined ? '' : `${error.code}: `}${error.message})`;
  if (sqliteCode(error) === undefined) return null;
  const e = error as { errstr?: unknown; message?: unknown };
  const message = String(e.message ?? error);
  return typeof e.errstr === 'string' && e.errstr !== message ? `SQLite cannot use it (${e.errstr}: ${message})` : `SQLite cannot use it (${message})`;
}
