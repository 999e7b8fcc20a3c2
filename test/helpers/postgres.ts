/**
 * A real PostgreSQL server for the tests of the sandbox's PostgreSQL engine (issue 35): a fresh cluster in a
 * temporary folder, on 127.0.0.1 and a free port, trust authentication, no fsync (a test's data need not survive a
 * power cut), torn down by `stop`. initdb refuses to run as root, so when the tests run as root the server's
 * processes run as the `postgres` user (the owner of the folder), which the distribution's package creates.
 *
 * `.ci/run` installs the distribution's `postgresql` package where no `/usr/lib/postgresql/<n>/bin/initdb` exists;
 * outside CI a machine without it fails these tests with a message that says so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './processes.js';

export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the maintenance database. */
  readonly url: string;
  readonly port: number;
  /** Creates an empty database and returns its URL: one per test (or per suite), so that tests share no rows. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: open connections are closed) and removes its folder. */
  stop(): Promise<void>;
}

/** The newest PostgreSQL's binaries folder (Debian's layout), or null. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : path.join(root, versions[0]!, 'bin');
}

/** The user the server runs as: ourselves, or `postgres` when we are root (initdb refuses root). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root and there is no postgres user to run PostgreSQL as (install the postgresql package)');
  return { uid, gid };
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  if (bin === null) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/<version>/bin/initdb): apt-get install postgresql');
  const user = serverUser();
  const dir = mkdtempSync(path.join(tmpdir(), 'card-api-pg-'));
  const data = path.join(dir, 'data');
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const asUser = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const init = spawnSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'], {
    ...asUser,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status}): ${init.stderr}`);
  }
  const port = await freePort();
  const server: ChildProcess = spawn(
    path.join(bin, 'postgres'),
    // The socket directory is the temporary folder (the default, /var/run/postgresql, may not exist or be ours).
    ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    { ...asUser, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' } },
  );
  let log = '';
  server.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (log.length < 64 * 1024) log += chunk;
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  const { default: pg } = await import('pg');
  const query = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  // Ready once it accepts a query (bounded: a server that never comes up fails the suite with its log).
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited (${server.exitCode}): ${log}`);
    try {
      await query('SELECT 1');
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        server.kill('SIGKILL');
        throw new Error(`postgres did not accept connections within 30 s: ${String(error)}\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  return {
    url,
    port,
    async createDatabase(name) {
      if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`);
      await query(`CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      // SIGINT: fast shutdown, which does not wait for clients to disconnect.
      if (server.exitCode === null) server.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
