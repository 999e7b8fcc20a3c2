import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/**
 * Opens (and creates or upgrades) the sandbox database: a file path or `':memory:'`.
 * Files use WAL so that a reader (for example a second process inspecting the file) never
 * blocks the writer; foreign keys are on because the schema relies on them.
 */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path, { timeout: 5000 });
  if (path !== ':memory:' && path !== '') db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

export type { Database };
