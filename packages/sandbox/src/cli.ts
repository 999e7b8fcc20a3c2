/**
 * The sandbox's command line: `card-api-sandbox` (this package's bin, so `npx @card-api/sandbox` runs it) and
 * `gen-card-api sandbox`, which runs this module when @card-api/sandbox is installed. One definition of the
 * options for both. It prints the base URL and token as shell assignments on stdout (and with `--env-out <path>`
 * writes them to that file once the server listens, so a script can wait for the file); everything else goes to
 * stderr. It stops on SIGINT, SIGTERM or SIGHUP, and when its parent process exits (`kill $!` on
 * `npx @card-api/sandbox &` stops npx, not the sandbox below it).
 *
 * Exit codes follow the toolkit's CLI contract: 0 after a clean stop, 2 for a usage error or anything that keeps
 * it from running (port taken, `--env-out` unwritable, the native SQLite module missing), never a server left
 * listening after it reported a failure.
 *
 * Only `node:` modules load up front: Fastify and SQLite load once the options are valid, so `--help` answers at once.
 */
import { lstatSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RunningSandbox } from './http/server.js';
import { describeStorageError, isPostgresUrl, redactPostgresUrl } from './store/index.js';

/** `--db` as messages show it: a PostgreSQL URL without its password. */
function shownDb(db: string): string {
  return isPostgresUrl(db) ? redactPostgresUrl(db) : db;
}

/** Where the command writes; `name` is how it is invoked (`card-api-sandbox`, `gen-card-api sandbox`), for messages. */
export interface SandboxCliIo {
  name: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** Resolves to stop the running sandbox (tests); signals and the parent's exit stop it too. */
  stop?: Promise<unknown>;
  /** Called once the sandbox listens, with what it printed (tests). */
  onListening?: (running: RunningSandbox) => void;
  /**
   * The process whose exit stops the sandbox, as the bin saw it first thing (default: the parent when the command
   * starts). Read before the slow imports, so that a parent gone during startup is noticed once the sandbox listens.
   */
  parentPid?: number;
}

/** A problem with the command line or with what it asks for: printed as the error and one hint line, exit 2. */
class CliProblem extends Error {
  constructor(
    message: string,
    readonly hint: boolean = true,
  ) {
    super(message);
  }
}

interface Options {
  port: number;
  host: string;
  db?: string;
  latency?: number;
  rateLimit?: number;
  ipRateLimit?: number;
  webhookUrl?: string;
  rsaPublicKey?: string;
  envOut?: string;
}

type OptionName = keyof Options | 'help' | 'version';

interface OptionSpec {
  name: OptionName;
  flag: string;
  value?: string;
  help: string;
  parse?: (value: string) => Options[keyof Options];
}

function integer(flag: string, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) > max) throw new CliProblem(`${flag} must be an integer from 0 to ${max}, got ${JSON.stringify(value)}`);
    return Number(value);
  };
}

function httpUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new CliProblem(`--webhook-url must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  return url.href;
}

/** Every option, in the order `--help` lists them. */
export const SANDBOX_OPTIONS: readonly OptionSpec[] = [
  { name: 'port', flag: '--port', value: '<port>', help: 'port to listen on (0 = any free port; default 4010)', parse: integer('--port', 65_535) },
  { name: 'host', flag: '--host', value: '<host>', help: 'address to listen on (default 127.0.0.1)' },
  {
    name: 'db',
    flag: '--db',
    value: '<file|url>',
    help: 'SQLite file, or postgres://user@host:port/db shared by replicas (default $CARD_API_SANDBOX_DB, else in memory): state, the clock and the default token survive a restart',
  },
  { name: 'latency', flag: '--latency', value: '<ms>', help: 'delay of each order step in milliseconds (default 50)', parse: integer('--latency', 3_600_000) },
  { name: 'rateLimit', flag: '--rate-limit', value: '<n>', help: 'requests per minute of a token without its own limit (default 120; 0 = no limit)', parse: integer('--rate-limit', 1_000_000_000) },
  { name: 'ipRateLimit', flag: '--ip-rate-limit', value: '<n>', help: 'requests per minute of one caller IP over all tokens (default 600; 0 = no limit)', parse: integer('--ip-rate-limit', 1_000_000_000) },
  { name: 'webhookUrl', flag: '--webhook-url', value: '<url>', help: 'send every event to <url> (a restart on the same --db reuses its endpoint and secret); prints CARD_API_WEBHOOK_SECRET=...', parse: httpUrl },
  { name: 'rsaPublicKey', flag: '--rsa-public-key', value: '<pem>', help: 'upload an RSA public key (a PEM file, or the PEM text) so that card.issued.secrets is sent' },
  // Not `--env-file`: Node 20 reads that flag anywhere on its command line, the script's arguments included.
  { name: 'envOut', flag: '--env-out', value: '<path>', help: 'also write the printed lines to <path> once the server listens (removed at start)' },
  { name: 'version', flag: '--version', help: 'print the version' },
  { name: 'help', flag: '--help', help: 'print this help' },
];

/** The `--help` text. */
export function sandboxHelp(name: string): string {
  const width = Math.max(...SANDBOX_OPTIONS.map((o) => `${o.flag}${o.value ? ` ${o.value}` : ''}`.length));
  const lines = SANDBOX_OPTIONS.map((o) => `  ${`${o.flag}${o.value ? ` ${o.value}` : ''}`.padEnd(width)}  ${o.help}`);
  return [
    `Usage: ${name} [options]`,
    '',
    'Runs the stateful Card Issuing API sandbox on loopback until Ctrl-C. stdout carries CARD_API_BASE_URL=...,',
    'CARD_API_TOKEN=... (and CARD_API_WEBHOOK_SECRET=... with --webhook-url); the control API is under /sandbox.',
    '',
    'Options:',
    ...lines,
    '',
  ].join('\n');
}

/**
 * `--flag value` as `--flag=value` for the options that take one, so that a value starting with a dash (a PEM
 * given as text: `-----BEGIN PUBLIC KEY-----...`) is taken as the value, as the option's help promises.
 */
function joinValues(argv: readonly string[]): string[] {
  const valued = new Set(SANDBOX_OPTIONS.filter((o) => o.value).map((o) => o.flag));
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (valued.has(arg) && i + 1 < argv.length) joined.push(`${arg}=${argv[++i]!}`);
    else joined.push(arg);
  }
  return joined;
}

function parse(argv: readonly string[]): Options | 'help' | 'version' {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinValues(argv),
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(SANDBOX_OPTIONS.map((o) => [o.flag.slice(2), { type: o.value ? ('string' as const) : ('boolean' as const) }])),
    });
  } catch (error) {
    // node:util's messages name the flag and the fix (`Unknown option '--prot'`, `Option '--port <value>' argument missing`).
    throw new CliProblem((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values['help'] === true) return 'help';
  if (values['version'] === true) return 'version';
  const options: Options = { port: 4010, host: '127.0.0.1' };
  for (const spec of SANDBOX_OPTIONS) {
    const raw = values[spec.flag.slice(2)];
    if (typeof raw !== 'string') continue;
    (options as unknown as Record<string, unknown>)[spec.name] = spec.parse ? spec.parse(raw) : raw;
  }
  // The environment's database when the command line names none: how replicas in containers get their URL.
  const fromEnv = process.env.CARD_API_SANDBOX_DB;
  if (options.db === undefined && fromEnv !== undefined && fromEnv !== '') options.db = fromEnv;
  return options;
}

/** The PEM text of `--rsa-public-key`: a file path, or the PEM itself. */
function readPem(value: string): string {
  if (value.includes('-----BEGIN')) return value;
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new CliProblem(`--rsa-public-key: cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, false);
  }
}

/**
 * Proves `--env-out` writable before anything starts: a sandbox that cannot tell its token must not run. The file
 * is replaced by a rename, so only a regular file (or nothing) may be there: never a directory or a device.
 */
function claimEnvOut(file: string): string {
  const cannot = (reason: string): CliProblem => new CliProblem(`--env-out: cannot write ${file} (${reason})`, false);
  let existing: ReturnType<typeof lstatSync> | undefined;
  try {
    existing = lstatSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw cannot(code ?? String(error));
  }
  if (existing !== undefined && !existing.isFile() && !existing.isSymbolicLink()) throw cannot(existing.isDirectory() ? 'it is a directory' : 'it is not a regular file');
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(partial, '', { mode: 0o600 });
    // A file left by an earlier run must not be read as this run's token.
    rmSync(file, { force: true });
  } catch (error) {
    rmSync(partial, { force: true });
    throw cannot((error as NodeJS.ErrnoException).code ?? String(error));
  }
  return partial;
}

/** The reason and the fix for an error of `startSandbox`, when it is one a user can act on. */
function startProblem(error: unknown, options: Options): CliProblem | null {
  const err = error as NodeJS.ErrnoException;
  if (err.code === 'EADDRINUSE') return new CliProblem(`port ${options.port} on ${options.host} is already in use (another sandbox?): pick another with --port, or --port 0 for any free port`, false);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return new CliProblem(`cannot listen on ${options.host} (${err.code}): give a local address with --host`, false);
  if (err.code === 'EACCES') return new CliProblem(`not allowed to listen on ${options.host}:${options.port} (EACCES): use a port above 1023`, false);
  const storage = describeStorageError(error);
  if (storage !== null) return new CliProblem(`--db ${shownDb(options.db ?? ':memory:')}: ${storage}`, false);
  return null;
}

/**
 * Runs the command: resolves with its exit code once the sandbox has stopped (signal, parent gone, `io.stop`),
 * or at once for `--help`, `--version` and a problem.
 */
export async function runSandboxCli(argv: readonly string[], io: SandboxCliIo = { name: 'card-api-sandbox' }): Promise<number> {
  const parentAtStart = io.parentPid ?? process.ppid;
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  const fail = (problem: CliProblem): number => {
    err(`${io.name}: ${problem.message}\n`);
    if (problem.hint) err(`run '${io.name} --help' for usage\n`);
    return 2;
  };

  let options: Options;
  let pem: string | undefined;
  let partial: string | undefined;
  try {
    const parsed = parse(argv);
    if (parsed === 'help') {
      out(sandboxHelp(io.name));
      return 0;
    }
    if (parsed === 'version') {
      const { createRequire } = await import('node:module');
      out(`${(createRequire(import.meta.url)('../package.json') as { version: string }).version}\n`);
      return 0;
    }
    options = parsed;
    pem = options.rsaPublicKey === undefined ? undefined : readPem(options.rsaPublicKey);
    if (options.envOut !== undefined) partial = claimEnvOut(options.envOut);
  } catch (error) {
    if (error instanceof CliProblem) return fail(error);
    throw error;
  }

  const removePartial = (): void => {
    if (partial !== undefined) rmSync(partial, { force: true });
  };
  let running: RunningSandbox;
  try {
    const { startSandbox } = await import('./http/server.js');
    running = await startSandbox({
      port: options.port,
      host: options.host,
      ...(options.db !== undefined ? { db: options.db } : {}),
      ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
      ...(options.ipRateLimit !== undefined ? { ipRateLimit: options.ipRateLimit } : {}),
      ...(options.webhookUrl !== undefined ? { webhookUrl: options.webhookUrl } : {}),
      ...(options.latency !== undefined ? { orderLatencyMs: options.latency } : {}),
      sandboxOptions: { onError: (error) => err(`[sandbox] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`) },
    });
  } catch (error) {
    removePartial();
    const problem = startProblem(error, options);
    if (problem) return fail(problem);
    throw error;
  }

  // From here a signal or the parent's exit closes the sandbox cleanly. Set up before anything says the sandbox is
  // ready (the --env-out file, the printed token): a script that signals it as soon as it reads the token must not
  // find the default action, which kills the process on the spot. The handlers stay until the sandbox has closed:
  // one Ctrl-C under npx arrives twice (the terminal signals the whole foreground group, and npm forwards its own
  // copy to its child), and a second signal with no handler would kill it in the middle of closing.
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let stopping = false;
  let resolveStopped!: (code: number) => void;
  const stopped = new Promise<number>((resolve) => (resolveStopped = resolve));
  // The parent (npx, a shell) is gone when this process is re-parented: stop rather than hold the port.
  const orphanCheck = setInterval(() => {
    if (process.ppid !== parentAtStart) stop('parent exited');
  }, 250);
  orphanCheck.unref();
  const release = (): void => {
    clearInterval(orphanCheck);
    for (const signal of signals) process.off(signal, stop);
  };
  function stop(reason: string): void {
    if (stopping) return;
    stopping = true;
    clearInterval(orphanCheck);
    err(`${io.name}: ${reason}, closing\n`);
    running.close().then(
      () => {
        release();
        resolveStopped(0);
      },
      (error: unknown) => {
        err(`${io.name}: error while closing: ${error instanceof Error ? error.message : String(error)}\n`);
        release();
        resolveStopped(2);
      },
    );
  }
  for (const signal of signals) process.on(signal, stop);

  let envLines: string;
  try {
    const extra: string[] = [];
    if (pem !== undefined) {
      const resolved = running.token === null ? null : running.sandbox.auth.resolveToken(running.token);
      if (resolved === null) throw new CliProblem('no default workspace to upload the RSA public key to', false);
      const { SandboxError } = await import('./errors.js');
      try {
        const key = running.sandbox.webhooks.setPublicKey(resolved.workspace.id, pem);
        err(`${io.name}: RSA public key uploaded, fingerprint ${key.key_fingerprint}; card.issued.secrets is on\n`);
      } catch (error) {
        if (!(error instanceof SandboxError)) throw error;
        const fields = Object.entries(error.fieldErrors ?? {}).map(([field, messages]) => `${field} ${messages.join(', ')}`);
        throw new CliProblem(`--rsa-public-key: ${error.message}${fields.length > 0 ? ` (${fields.join('; ')})` : ''}`, false);
      }
    }
    if (running.webhook !== null) {
      extra.push(`CARD_API_WEBHOOK_SECRET=${running.webhook.secret}`);
      const how = running.webhook.reused ? 'the endpoint of the last run, same secret, pending deliveries kept' : 'a new endpoint';
      err(`${io.name}: every event is signed and POSTed to ${running.webhook.url} (endpoint ${running.webhook.endpointId}, ${how})\n`);
    }
    envLines = [`CARD_API_BASE_URL=${running.baseUrl}`, `CARD_API_TOKEN=${running.token ?? ''}`, ...extra, ''].join('\n');
    // Stopped while it was getting ready (a signal at the await above): it never says it is ready.
    if (!stopping && options.envOut !== undefined && partial !== undefined) {
      // Written whole, then renamed: a reader polling for the file never sees half of it.
      writeFileSync(partial, envLines, { mode: 0o600 });
      renameSync(partial, options.envOut);
      partial = undefined;
    }
  } catch (error) {
    removePartial();
    release();
    await running.close();
    if (error instanceof CliProblem) return fail(error);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && options.envOut !== undefined) return fail(new CliProblem(`--env-out: cannot write ${options.envOut} (${code})`, false));
    throw error;
  }
  if (stopping) {
    removePartial();
    return stopped;
  }
  out(envLines);
  const where = options.db === undefined ? 'in memory (state is lost on exit)' : `in ${shownDb(options.db)}`;
  const store = options.db !== undefined && isPostgresUrl(options.db) ? 'database' : 'file';
  const token = running.tokenMinted ? (options.db === undefined ? 'a new token' : `a new token (stored in the ${store}; printed again on restart)`) : `the stored token from the ${store}`;
  err(`${io.name}: listening on ${running.baseUrl} (docs ${running.baseUrl}/docs; control API ${running.origin}/sandbox/docs), state ${where}, ${token}; Ctrl-C to stop\n`);
  io.onListening?.(running);
  io.stop?.then(() => stop('stopped'));
  // The parent may have gone while the sandbox was starting.
  if (process.ppid !== parentAtStart) stop('parent exited');
  return stopped;
}
