/**
 * `gen-card-api listen --forward-to <url>`: forwards the sandbox's webhook deliveries to a local app, signed as the
 * sandbox signed them, and prints one line per delivery. The work is in ../sandbox-tools/, loaded when it runs.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { consoleOutput, runCommand } from '../sandbox-tools/errors.js';
import type { ListenCommandOptions } from '../sandbox-tools/run-listen.js';

function port(name: string): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) > 65_535) throw new InvalidArgumentError(`${name} must be an integer from 0 to 65535.`);
    return Number(value);
  };
}

/**
 * Adds `listen` to the program.
 *
 * @example
 * // shell: gen-card-api listen --forward-to http://127.0.0.1:3000/webhooks --events 'card.transaction.*'
 * registerListenCommand(program);
 */
export function registerListenCommand(program: Command): void {
  program
    .command('listen')
    .description('forward the sandbox\'s webhooks to a local URL, signed as the sandbox signs them (prints the signing secret, then one line per delivery; Ctrl-C to stop)')
    // Checked in the action, not as commander's required option: an unknown flag is reported first (the CLI contract).
    .option('--forward-to <url>', 'your app\'s webhook URL, such as http://127.0.0.1:3000/webhooks (required)')
    .addOption(new Option('--base-url <url>', 'the sandbox\'s API root, ending in /api/v1').env('CARD_API_BASE_URL'))
    .addOption(new Option('--token <token>', 'a token of the workspace (prefer the environment variable: arguments show in ps)').env('CARD_API_TOKEN'))
    .option('--events <globs>', 'only these events: codes or globs, comma-separated (card.transaction.*,order.failed); default every event')
    .addOption(new Option('--format <format>', 'one line per delivery as text, or one JSON object per line').choices(['text', 'json']).default('text'))
    .option('--host <host>', 'address of listen\'s own receiver, which the sandbox delivers to', '127.0.0.1')
    .option('--port <port>', 'port of listen\'s own receiver (0 = any free port)', port('--port'), 0)
    .option('--start', 'start a sandbox in this process instead of attaching to one (needs @card-api/sandbox)')
    .option('--db <file>', 'with --start: the sandbox\'s SQLite file (state survives a restart)')
    .option('--sandbox-port <port>', 'with --start: the sandbox\'s port (0 = any free port)', port('--sandbox-port'), 4010)
    .option('--env-out <file>', 'once ready, write CARD_API_WEBHOOK_SECRET=... to <file> (with --start also CARD_API_BASE_URL and CARD_API_TOKEN)')
    .action((opts: ListenCommandOptions) =>
      runCommand('listen', async () => {
        const { runListen } = await import('../sandbox-tools/run-listen.js');
        await runListen(opts, consoleOutput);
      }),
    );
}
