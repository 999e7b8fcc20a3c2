/**
 * `gen-card-api sandbox`: runs the stateful sandbox as a local HTTP service and prints its base URL and token
 * as shell assignments on stdout (`gen-card-api sandbox > sandbox.env &`, then `eval "$(cat sandbox.env)"`);
 * everything else goes to stderr.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { startSandbox, type RunningSandbox } from '@card-api/sandbox';

/** Options of the command, as commander parses them. */
interface SandboxCommandOptions {
  port: number;
  host: string;
  db?: string;
  latency?: number;
}

function nonNegativeInt(name: string, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) > max) throw new InvalidArgumentError(`${name} must be an integer from 0 to ${max}.`);
    return Number(value);
  };
}

/**
 * Starts the sandbox and resolves when it has stopped after SIGINT or SIGTERM. stdout carries exactly the two
 * lines `CARD_API_BASE_URL=<url>` and `CARD_API_TOKEN=<token>`.
 */
export async function runSandboxCommand(options: SandboxCommandOptions): Promise<void> {
  const running: RunningSandbox = await startSandbox({
    port: options.port,
    host: options.host,
    ...(options.db !== undefined ? { db: options.db } : {}),
    ...(options.latency !== undefined ? { orderLatencyMs: options.latency } : {}),
    sandboxOptions: { onError: (error) => console.error('[sandbox]', error) },
  });
  process.stdout.write(`CARD_API_BASE_URL=${running.baseUrl}\nCARD_API_TOKEN=${running.token ?? ''}\n`);
  const where = options.db === undefined ? 'in memory (state is lost on exit)' : `in ${options.db}`;
  const token = running.tokenMinted ? (options.db === undefined ? 'a new token' : 'a new token (stored in the file; printed again on restart)') : 'the stored token from the file';
  console.error(`sandbox: listening on ${running.baseUrl} (docs ${running.baseUrl}/docs), state ${where}, ${token}; Ctrl-C to stop`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      console.error(`sandbox: ${signal}, closing`);
      running.close().then(resolve, (error: unknown) => {
        console.error('sandbox: error while closing', error);
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * Adds `sandbox [--port 4010] [--host 127.0.0.1] [--db <file>] [--latency <ms>]` to the program.
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
    .action((opts: SandboxCommandOptions) => runSandboxCommand(opts));
}
