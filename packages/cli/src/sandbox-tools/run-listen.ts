/**
 * The `listen` command around a session (listen.ts): the sandbox to attach to (or one started in this process with
 * `--start`), the banner with the signing secret, `--env-out`, and the stop on Ctrl-C, SIGTERM, SIGHUP or when the
 * parent process (npx, a shell) goes away.
 */
import { lstatSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { RunningSandbox } from '@card-api/sandbox';
import { resolveTarget, type Target } from './api.js';
import { loadDocs } from './docs.js';
import { importSandbox, SandboxMissingError, sandboxMissingMessage } from '../sandbox-package.js';
import { CliError, type Output } from './errors.js';
import { startParentPid } from '../parent.js';
import { startListen, type ListenSession } from './listen.js';

/** Options of the command, as commander parses them. */
export interface ListenCommandOptions {
  forwardTo?: string;
  baseUrl?: string;
  token?: string;
  events?: string;
  format: 'text' | 'json';
  host: string;
  port: number;
  start?: boolean;
  db?: string;
  sandboxPort: number;
  envOut?: string;
}

/**
 * The one place listen loads `@card-api/sandbox`, an optional package installed on its own: only `listen --start`
 * needs it, and only once it runs. Missing, it is named with the one install that brings it (exit 2).
 */
export async function loadSandboxPackage(): Promise<typeof import('@card-api/sandbox')> {
  try {
    return await importSandbox<typeof import('@card-api/sandbox')>('');
  } catch (error) {
    if (error instanceof SandboxMissingError) throw new CliError(`--start ${sandboxMissingMessage()}`, 'or attach to a running sandbox: leave out --start and set CARD_API_BASE_URL and CARD_API_TOKEN');
    throw error;
  }
}

/**
 * Proves `--env-out` writable before anything starts (a listen that cannot hand over its secret must not run):
 * writes an empty partial file next to it and returns that file's path. The file is replaced by a rename, so only a
 * regular file (or nothing) may be there, never a directory or a device; one left by an earlier run is removed, so
 * that it is not read as this run's.
 */
export function claimEnvFile(file: string): string {
  const cannot = (reason: string): CliError => new CliError(`--env-out: cannot write ${file} (${reason})`, 'give a file in a folder you can write to');
  let existing: Stats | undefined;
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
    rmSync(file, { force: true });
  } catch (error) {
    rmSync(partial, { force: true });
    throw cannot((error as NodeJS.ErrnoException).code ?? String(error));
  }
  return partial;
}

/** Writes `KEY=value` lines whole into the claimed partial file, then renames it: a reader polling for the file never sees half of it. */
export function writeEnvFile(partial: string, file: string, lines: string[]): void {
  writeFileSync(partial, `${lines.join('\n')}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/**
 * A stop request: `reason` resolves on a signal or when the parent process is gone; `dispose` stops listening for
 * them. Signals after the first are ignored until `dispose`: one Ctrl-C under npx arrives twice (the terminal's and
 * npm's forwarded copy), and a second signal with no handler would kill listen before it disabled its endpoint.
 */
export interface StopRequest {
  reason: Promise<string>;
  dispose(): void;
}

/**
 * Resolves with the reason once the process is asked to stop: a signal, or its parent exiting (re-parented; the
 * parent is the one the bin saw at start, so one gone during startup counts).
 */
export function untilStopRequested(parentAtStart: number = startParentPid()): StopRequest {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let resolveReason!: (reason: string) => void;
  const reason = new Promise<string>((resolve) => (resolveReason = resolve));
  const orphanCheck = setInterval(() => {
    if (process.ppid !== parentAtStart) stop('parent exited');
  }, 250);
  orphanCheck.unref();
  function dispose(): void {
    clearInterval(orphanCheck);
    for (const signal of signals) process.off(signal, stop);
  }
  function stop(why: string): void {
    clearInterval(orphanCheck);
    resolveReason(why);
  }
  for (const signal of signals) process.on(signal, stop);
  if (process.ppid !== parentAtStart) stop('parent exited');
  return { reason, dispose };
}

/** The reason and the fix when the sandbox of `--start` cannot listen. */
function sandboxStartProblem(error: unknown, port: number): CliError | null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new CliError(`--start: port ${port} on 127.0.0.1 is already in use (another sandbox?)`, 'pick another with --sandbox-port, or --sandbox-port 0 for any free port');
  if (code === 'EACCES') return new CliError(`--start: not allowed to listen on port ${port} (EACCES)`, 'use a --sandbox-port above 1023');
  return null;
}

/**
 * Runs `listen` until it is stopped; see the module comment. Whatever fails once something is started (the sandbox,
 * the receiver, the endpoint) stops all of it before the error is reported: listen never stays up after an error.
 */
export async function runListen(options: ListenCommandOptions, output: Output, stopRequested?: Promise<string>): Promise<void> {
  const forwardTo = options.forwardTo;
  if (forwardTo === undefined) throw new CliError('--forward-to <url> is required: where your app receives webhooks', 'gen-card-api listen --forward-to http://127.0.0.1:3000/webhooks');
  const docs = await loadDocs();
  let partial = options.envOut === undefined ? undefined : claimEnvFile(options.envOut);
  let running: RunningSandbox | undefined;
  let session: ListenSession | undefined;
  let stop: StopRequest | undefined;
  try {
    let target: Target;
    if (options.start) {
      const { startSandbox } = await loadSandboxPackage();
      try {
        running = await startSandbox({ port: options.sandboxPort, ...(options.db !== undefined ? { db: options.db } : {}), sandboxOptions: { onError: (error) => output.log(`[sandbox] ${error instanceof Error ? error.message : String(error)}`) } });
      } catch (error) {
        throw sandboxStartProblem(error, options.sandboxPort) ?? error;
      }
      target = resolveTarget({ baseUrl: running.baseUrl, token: running.token ?? undefined }, docs);
      output.log(`listen: started a sandbox at ${running.baseUrl}, state ${options.db === undefined ? 'in memory' : `in ${options.db}`}${options.envOut === undefined ? '' : `; its token is in ${options.envOut}`}`);
    } else {
      target = resolveTarget(options, docs);
    }
    session = await startListen({ target, docs, forwardTo, events: options.events, format: options.format, host: options.host, port: options.port, output });
    stop = stopRequested === undefined ? untilStopRequested() : { reason: stopRequested, dispose: () => {} };
    if (options.envOut !== undefined && partial !== undefined) {
      writeEnvFile(partial, options.envOut, [...(running ? [`CARD_API_BASE_URL=${target.baseUrl}`, `CARD_API_TOKEN=${target.token}`] : []), `CARD_API_WEBHOOK_SECRET=${session.secret}`]);
      partial = undefined;
    }
    output.log(`> Ready! Your webhook signing secret is ${session.secret} (^C to quit)`);
    output.log(
      `listen: forwarding ${options.events ?? 'every event'} to ${forwardTo}, through endpoint ${session.endpointId} (${session.reused ? 'reused: same secret as the last listen' : 'new'}) at ${session.receiverUrl}`,
    );
    const reason = await Promise.race([stop.reason, session.done.then(() => 'session ended')]);
    output.log(`listen: ${reason}, stopping`);
  } finally {
    if (partial !== undefined) rmSync(partial, { force: true });
    try {
      if (session !== undefined) {
        await session.stop();
        await session.done;
      }
    } finally {
      try {
        await running?.close();
      } finally {
        stop?.dispose();
      }
    }
  }
}
