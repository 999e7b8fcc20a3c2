/**
 * The `listen` command around a session (listen.ts): the sandbox to attach to (or one started in this process with
 * `--start`), the banner with the signing secret, `--env-out`, and the stop on Ctrl-C, SIGTERM, SIGHUP or when the
 * parent process (npx, a shell) goes away.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { RunningSandbox } from '@card-api/sandbox';
import { resolveTarget, type Target } from './api.js';
import { loadDocs } from './docs.js';
import { importSandbox, SandboxMissingError, sandboxMissingMessage } from '../sandbox-package.js';
import { CliError, type Output } from './errors.js';
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

/** Writes `KEY=value` lines whole (a reader polling for the file never sees half of it), readable by the owner only. */
export function writeEnvFile(file: string, lines: string[]): void {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${lines.join('\n')}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/** Resolves with the reason once the process is asked to stop: a signal, or its parent exiting (re-parented). */
export function untilStopRequested(): Promise<string> {
  return new Promise((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const parentAtStart = process.ppid;
    const orphanCheck = setInterval(() => {
      if (process.ppid !== parentAtStart) stop('parent exited');
    }, 250);
    orphanCheck.unref();
    function stop(reason: string): void {
      clearInterval(orphanCheck);
      for (const signal of signals) process.off(signal, stop);
      resolve(reason);
    }
    for (const signal of signals) process.on(signal, stop);
  });
}

/** Runs `listen` until it is stopped; see the module comment. */
export async function runListen(options: ListenCommandOptions, output: Output, stopRequested?: Promise<string>): Promise<void> {
  const forwardTo = options.forwardTo;
  if (forwardTo === undefined) throw new CliError('--forward-to <url> is required: where your app receives webhooks', 'gen-card-api listen --forward-to http://127.0.0.1:3000/webhooks');
  const docs = await loadDocs();
  // A file left by an earlier run must not be read as this run's: it is written again once the session is ready.
  if (options.envOut !== undefined) rmSync(options.envOut, { force: true });
  let running: RunningSandbox | undefined;
  let target: Target;
  if (options.start) {
    const { startSandbox } = await loadSandboxPackage();
    running = await startSandbox({ port: options.sandboxPort, ...(options.db !== undefined ? { db: options.db } : {}), sandboxOptions: { onError: (error) => output.log(`[sandbox] ${error instanceof Error ? error.message : String(error)}`) } });
    target = resolveTarget({ baseUrl: running.baseUrl, token: running.token ?? undefined }, docs);
    output.log(`listen: started a sandbox at ${running.baseUrl}, state ${options.db === undefined ? 'in memory' : `in ${options.db}`}${options.envOut === undefined ? '' : `; its token is in ${options.envOut}`}`);
  } else {
    target = resolveTarget(options, docs);
  }
  let session: ListenSession;
  try {
    session = await startListen({ target, docs, forwardTo, events: options.events, format: options.format, host: options.host, port: options.port, output });
  } catch (error) {
    await running?.close();
    throw error;
  }
  // From here a signal stops the session cleanly (before, the process just ends: the endpoint, if claimed, is
  // reused by the next listen, which finds its receiver gone).
  const stop = stopRequested ?? untilStopRequested();
  output.log(`> Ready! Your webhook signing secret is ${session.secret} (^C to quit)`);
  output.log(
    `listen: forwarding ${options.events ?? 'every event'} to ${forwardTo}, through endpoint ${session.endpointId} (${session.reused ? 'reused: same secret as the last listen' : 'new'}) at ${session.receiverUrl}`,
  );
  if (options.envOut !== undefined) {
    writeEnvFile(options.envOut, [...(running ? [`CARD_API_BASE_URL=${target.baseUrl}`, `CARD_API_TOKEN=${target.token}`] : []), `CARD_API_WEBHOOK_SECRET=${session.secret}`]);
  }
  try {
    const reason = await Promise.race([stop, session.done.then(() => 'session ended')]);
    output.log(`listen: ${reason}, stopping`);
    await session.stop();
    await session.done;
  } finally {
    await running?.close();
  }
}
