/**
 * `gen-card-api events list` and `gen-card-api events resend <event_id>`: the sandbox's webhook delivery log, and a
 * resend of an event's stored bytes with a fresh signature. The work is in ../sandbox-tools/, loaded when it runs.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { consoleOutput, runCommand } from '../sandbox-tools/errors.js';

function positiveInt(name: string, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}.`);
    return Number(value);
  };
}

const connection = (command: Command): Command =>
  command
    .addOption(new Option('--base-url <url>', 'the sandbox\'s API root, ending in /api/v1').env('CARD_API_BASE_URL'))
    .addOption(new Option('--token <token>', 'a token of the workspace (prefer the environment variable: arguments show in ps)').env('CARD_API_TOKEN'));

/**
 * Adds `events list` and `events resend` to the program.
 *
 * @example
 * // shell: gen-card-api events list --event 'card.transaction.*' && gen-card-api events resend 42
 * registerEventsCommand(program);
 */
export function registerEventsCommand(program: Command): void {
  const events = program.command('events').description('the sandbox\'s webhook deliveries: list them, resend one');
  connection(events.command('list').description('list the newest deliveries, oldest first: event id, event, status, attempts, last answer, endpoint'))
    .option('--event <globs>', 'only these events: codes or globs, comma-separated')
    .option('--status <status>', 'only deliveries in this status (pending, sending, succeeded, failed, cancelled)')
    .option('--endpoint <id>', 'only deliveries to this endpoint', positiveInt('--endpoint', Number.MAX_SAFE_INTEGER))
    .option('--limit <n>', 'how many of the newest', positiveInt('--limit', 1000), 20)
    .addOption(new Option('--format <format>', 'a table, or one JSON object per delivery (with its exact body)').choices(['text', 'json']).default('text'))
    .action((opts: { baseUrl?: string; token?: string; event?: string; status?: string; endpoint?: number; limit: number; format: 'text' | 'json' }) =>
      runCommand('events list', async () => {
        const { runEventsList } = await import('../sandbox-tools/events.js');
        await runEventsList(opts, consoleOutput);
      }),
    );
  connection(events.command('resend').description('send an event again to the endpoints that received it: the same body bytes, a fresh signature timestamp'))
    .argument('<event_id>', 'the event id (events list shows it; so does listen)', positiveInt('<event_id>', Number.MAX_SAFE_INTEGER))
    .option('--endpoint <id>', 'only to this endpoint', positiveInt('--endpoint', Number.MAX_SAFE_INTEGER))
    .action((eventId: number, opts: { baseUrl?: string; token?: string; endpoint?: number }) =>
      runCommand('events resend', async () => {
        const { runEventsResend } = await import('../sandbox-tools/events.js');
        await runEventsResend({ ...opts, eventId }, consoleOutput);
      }),
    );
}
