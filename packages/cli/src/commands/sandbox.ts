/**
 * `gen-card-api sandbox`: runs the stateful sandbox as a local HTTP service and prints its base URL and token
 * as shell assignments on stdout, and with `--env-out <path>` writes them to that file once the server
 * listens (so a script can wait for the file); everything else goes to stderr. It stops on SIGINT, SIGTERM
 * or SIGHUP, and when its parent process exits (`kill $!` on `npx gen-card-api sandbox &` stops npx, not
 * the sandbox below it).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import type { RunningSandbox } from '@card-api/sandbox';

/** Options of the command, as commander parses them. */
interface SandboxCommandOptions {
  port: number;
  host: string;
  db?: string;
  latency?: number;
  webhookUrl?: string;
  rsaPublicKey?: string;
  rateLimit?: number;
  ipRateLimit?: number;
  envOut?: string;
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('--webhook-url must be an http:// or https:// URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('--webhook-url must be an http:// or https:// URL.');
  return url.href;
}

/** The PEM text of `--rsa-public-key`: a file path, or the PEM itself. */
function readPem(value: string): string {
  if (value.includes('-----BEGIN')) return value;
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new Error(`--rsa-public-key: cannot read ${value}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/**
 * Applies `--rsa-public-key` to the default workspace and reports the `--webhook-url` endpoint (set up by
 * `startSandbox`: on a reopened `--db` file the endpoint of the last run is reused, same secret, same pending
 * deliveries); returns the stdout lines to add.
 */
function configureWebhooks(running: RunningSandbox, options: SandboxCommandOptions): string[] {
  const lines: string[] = [];
  if (options.rsaPublicKey !== undefined) {
    const resolved = running.token === null ? null : running.sandbox.auth.resolveToken(running.token);
    if (resolved === null) throw new Error('sandbox: no default workspace to configure');
    const key = running.sandbox.webhooks.setPublicKey(resolved.workspace.id, readPem(options.rsaPublicKey));
    console.error(`sandbox: RSA public key uploaded, fingerprint ${key.key_fingerprint}; card.issued.secrets is on`);
  }
  if (running.webhook !== null) {
    lines.push(`CARD_API_WEBHOOK_SECRET=${running.webhook.secret}`);
    const how = running.webhook.reused ? 'the endpoint of the last run, same secret, pending deliveries kept' : 'a new endpoint';
    console.error(`sandbox: every event is signed and POSTed to ${running.webhook.url} (endpoint ${running.webhook.endpointId}, ${how})`);
  }
  return lines;
}

function nonNegativeInt(name: string, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) > max) throw new InvalidArgumentError(`${name} must be an integer from 0 to ${max}.`);
    return Number(value);
  };
}

/**
 * Starts the sandbox and resolves when it has stopped after SIGINT or SIGTERM. stdout carries exactly the lines
 * `CARD_API_BASE_URL=<url>` and `CARD_API_TOKEN=<token>`, plus `CARD_API_WEBHOOK_SECRET=<whsec_...>` with
 * `--webhook-url`.
 */
export async function runSandboxCommand(options: SandboxCommandOptions): Promise<void> {
  // Loaded here, not at the top, so that `gen-card-api --help` and the generators never load Fastify and SQLite.
  const { SandboxError, startSandbox } = await import('@card-api/sandbox');
  // A file left by an earlier run must not be read as this run's: it is replaced only once the server listens.
  if (options.envOut !== undefined) rmSync(options.envOut, { force: true });
  const parentAtStart = process.ppid;
  const running: RunningSandbox = await startSandbox({
    port: options.port,
    host: options.host,
    ...(options.db !== undefined ? { db: options.db } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.ipRateLimit !== undefined ? { ipRateLimit: options.ipRateLimit } : {}),
    ...(options.webhookUrl !== undefined ? { webhookUrl: options.webhookUrl } : {}),
    ...(options.latency !== undefined ? { orderLatencyMs: options.latency } : {}),
    sandboxOptions: { onError: (error) => console.error('[sandbox]', error) },
  });
  let extra: string[];
  try {
    extra = configureWebhooks(running, options);
  } catch (error) {
    await running.close();
    if (error instanceof SandboxError) {
      const fields = Object.entries(error.fieldErrors ?? {}).map(([field, messages]) => `${field} ${messages.join(', ')}`);
      throw new Error(`sandbox: ${error.message}${fields.length > 0 ? ` (${fields.join('; ')})` : ''}`);
    }
    throw error;
  }
  const envLines = [`CARD_API_BASE_URL=${running.baseUrl}`, `CARD_API_TOKEN=${running.token ?? ''}`, ...extra, ''].join('\n');
  if (options.envOut !== undefined) {
    // Written whole, then renamed: a reader polling for the file never sees half of it.
    const partial = `${options.envOut}.${process.pid}.tmp`;
    writeFileSync(partial, envLines, { mode: 0o600 });
    renameSync(partial, options.envOut);
  }
  process.stdout.write(envLines);
  const where = options.db === undefined ? 'in memory (state is lost on exit)' : `in ${options.db}`;
  const token = running.tokenMinted ? (options.db === undefined ? 'a new token' : 'a new token (stored in the file; printed again on restart)') : 'the stored token from the file';
  console.error(`sandbox: listening on ${running.baseUrl} (docs ${running.baseUrl}/docs; control API ${running.origin}/sandbox/docs), state ${where}, ${token}; Ctrl-C to stop`);

  await new Promise<void>((resolve) => {
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    // The parent (npx, a shell) is gone when this process is re-parented: stop rather than hold the port.
    const orphanCheck = setInterval(() => {
      if (process.ppid !== parentAtStart) stop('parent exited');
    }, 250);
    orphanCheck.unref();
    let stopping = false;
    function stop(reason: NodeJS.Signals | 'parent exited'): void {
      if (stopping) return;
      stopping = true;
      clearInterval(orphanCheck);
      for (const signal of signals) process.off(signal, stop);
      console.error(`sandbox: ${reason}, closing`);
      running.close().then(resolve, (error: unknown) => {
        console.error('sandbox: error while closing', error);
        process.exitCode = 1;
        resolve();
      });
    }
    for (const signal of signals) process.on(signal, stop);
  });
}

/**
 * Adds `sandbox [--port 4010] [--host 127.0.0.1] [--db <file>] [--latency <ms>] [--rate-limit <n>] [--ip-rate-limit <n>] [--webhook-url <url>] [--rsa-public-key <pem>] [--env-out <path>]`
 * to the program.
 *
 * @example
 * // shell: gen-card-api sandbox --db sandbox.db > sandbox.env &  then  eval "$(cat sandbox.env)"
 * registerSandboxCommand(program);
 */
export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run the stateful sandbox API on loopback; prints CARD_API_BASE_URL=... and CARD_API_TOKEN=... on stdout, runs until Ctrl-C')
    .option('--port <port>', 'port to listen on (0 = any free port)', nonNegativeInt('--port', 65_535), 4010)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--db <file>', 'SQLite file: state and the default token survive a restart (default: in memory)')
    .option('--latency <ms>', 'delay of each order step in milliseconds (default 50)', nonNegativeInt('--latency', 3_600_000))
    .option('--rate-limit <n>', 'requests per minute of a token without its own limit (default 120; 0 = no limit)', nonNegativeInt('--rate-limit', 1_000_000_000))
    .option('--ip-rate-limit <n>', 'requests per minute of one caller IP over all tokens (default 600; 0 = no limit)', nonNegativeInt('--ip-rate-limit', 1_000_000_000))
    .option('--webhook-url <url>', 'send every event to <url> (a restart on the same --db reuses its endpoint and secret); prints CARD_API_WEBHOOK_SECRET=... on stdout', httpUrl)
    .option('--rsa-public-key <pem>', 'upload an RSA public key (a PEM file, or the PEM text) so that card.issued.secrets is sent')
    // Not `--env-file`: Node 20 reads that flag anywhere on its command line, the script's arguments included.
    .option('--env-out <path>', 'also write the printed lines to <path> once the server listens (removed at start)')
    .action((opts: SandboxCommandOptions) => runSandboxCommand(opts));
}
