/**
 * The SQLite dialect the domain modules and the migrations speak, translated to PostgreSQL's at the seam (issue
 * 35), once per SQL text. Only the constructs the sandbox uses are handled; each is listed here, and the PostgreSQL
 * store's tests run the domain code through them:
 *
 * Statements (`toPostgresStatement`):
 * - `?` placeholders become `$1..$n` (never inside a quoted literal or identifier);
 * - `INSERT OR IGNORE INTO t ...` becomes `INSERT INTO t ... ON CONFLICT DO NOTHING` (before any RETURNING);
 * - `json_each(?)`, which the domain uses for a JSON array of row ids, becomes `jsonb_array_elements_text`,
 *   its values cast to bigint;
 * - `? IS NULL` becomes `CAST(? AS TEXT) IS NULL`: PostgreSQL must know a parameter's type, and a bare `$n IS NULL`
 *   gives it none;
 * - a subquery in FROM without an alias gets one (PostgreSQL 15 requires it; 16 no longer does).
 *
 * Schema (`toPostgresMigration`):
 * - `INTEGER PRIMARY KEY [AUTOINCREMENT]` (SQLite's rowid alias) becomes an identity column, every other
 *   `INTEGER` a `BIGINT` (epoch milliseconds outgrow 32 bits); rows come back as JavaScript numbers (see
 *   postgres.ts: bigint columns are parsed as numbers, all of them far below 2^53);
 * - `TEXT` columns take the "C" collation: ORDER BY and comparisons of text are by byte as in SQLite, whatever the
 *   database's default locale; money stays TEXT decimal strings (never numeric), so the API returns the same bytes;
 * - SQLite's implicit rowid, which `ORDER BY rowid` reads (secrets_event_jobs), becomes an explicit identity column;
 * - the one trigger (`card_secrets_purge_after_job`) becomes a PL/pgSQL function and a trigger.
 */

/** `sql` with each `?` outside quotes replaced by `$1..$n`. */
function numberPlaceholders(sql: string): string {
  let n = 0;
  let out = '';
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    if (quote !== null) {
      out += ch;
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}

/** Gives every `FROM (SELECT ...)` without an alias one (`AS card_api_sub<n>`). */
function aliasSubqueries(sql: string): string {
  let out = sql;
  let count = 0;
  const opener = /\bFROM\s*\(\s*SELECT\b/gi;
  for (let match = opener.exec(out); match !== null; match = opener.exec(out)) {
    const open = out.indexOf('(', match.index);
    let depth = 0;
    let close = -1;
    let quote: string | null = null;
    for (let i = open; i < out.length; i++) {
      const ch = out[i]!;
      if (quote !== null) {
        if (ch === quote) quote = null;
      } else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '(') depth++;
      else if (ch === ')' && --depth === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    const rest = out.slice(close + 1);
    if (!/^\s*(AS\s+)?[A-Za-z_][A-Za-z0-9_]*/i.test(rest) || /^\s*(WHERE|GROUP|ORDER|LIMIT|OFFSET|HAVING|UNION|JOIN|LEFT|INNER|ON|RETURNING)\b/i.test(rest)) {
      out = `${out.slice(0, close + 1)} AS card_api_sub${++count}${rest}`;
    }
    opener.lastIndex = open + 1;
  }
  return out;
}

/** A statement of the domain modules, in PostgreSQL's dialect. */
export function toPostgresStatement(sql: string): string {
  let out = sql;
  if (/^\s*INSERT\s+OR\s+IGNORE\s+INTO\b/i.test(out)) {
    out = out.replace(/^\s*INSERT\s+OR\s+IGNORE\s+INTO\b/i, 'INSERT INTO');
    const returning = out.search(/\bRETURNING\b/i);
    out = returning < 0 ? `${out.trimEnd()} ON CONFLICT DO NOTHING` : `${out.slice(0, returning)}ON CONFLICT DO NOTHING ${out.slice(returning)}`;
  }
  out = out.replace(/SELECT\s+value\s+FROM\s+json_each\(\s*\?\s*\)/gi, 'SELECT CAST(j.value AS BIGINT) FROM jsonb_array_elements_text(CAST(? AS JSONB)) AS j(value)');
  out = out.replace(/(^|[^A-Za-z0-9_])\?\s+IS\s+(NOT\s+)?NULL\b/gi, (_m, before: string, not: string | undefined) => `${before}CAST(? AS TEXT) IS ${not ?? ''}NULL`);
  out = aliasSubqueries(out);
  return numberPlaceholders(out);
}

/** The table an INSERT, UPDATE or DELETE writes, or null for any other statement. */
export function writtenTable(sql: string): string | null {
  const match = /^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+"?([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql);
  return match === null ? null : match[1]!.toLowerCase();
}

const SQLITE_SECRETS_TRIGGER = /CREATE TRIGGER card_secrets_purge_after_job AFTER DELETE ON secrets_event_jobs\s+BEGIN\s+DELETE FROM card_secrets WHERE card_uuid = OLD\.card_uuid;\s+END;/;
const POSTGRES_SECRETS_TRIGGER = `CREATE FUNCTION card_secrets_purge_after_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM card_secrets WHERE card_uuid = OLD.card_uuid;
  RETURN OLD;
END
$$;
CREATE TRIGGER card_secrets_purge_after_job AFTER DELETE ON secrets_event_jobs FOR EACH ROW EXECUTE FUNCTION card_secrets_purge_after_job();`;

/** A migration's SQL (SQLite's dialect, as migrations.ts holds it) in PostgreSQL's. */
export function toPostgresMigration(sql: string): string {
  let out = sql.replace(/--[^\n]*/g, '');
  const translated = out.replace(SQLITE_SECRETS_TRIGGER, () => POSTGRES_SECRETS_TRIGGER);
  if (/CREATE\s+TRIGGER/i.test(translated === out ? out : out.replace(SQLITE_SECRETS_TRIGGER, ''))) throw new Error('a migration has a SQLite trigger the PostgreSQL translation does not know (store/postgres-sql.ts)');
  out = translated;
  out = out.replace(/\bINTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?/g, 'BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY');
  out = out.replace(/\bINTEGER\b/g, 'BIGINT');
  out = out.replace(/\bTEXT\b/g, 'TEXT COLLATE "C"');
  // SQLite's implicit rowid of a table whose key is not an integer, where the domain orders by it.
  out = out.replace(/(CREATE TABLE secrets_event_jobs \()/, '$1\n  rowid BIGINT GENERATED ALWAYS AS IDENTITY,');
  return out;
}
