/**
 * `gen-card-api trigger <event>` and `gen-card-api trigger --fixture <file>`: make the sandbox produce a webhook
 * event (or a scenario) the real way, through the API and the control API. The work is in ../sandbox-tools/,
 * loaded when it runs.
 */
import { Option, type Command } from 'commander';
import { CliError, consoleOutput, runCommand } from '../sandbox-tools/errors.js';

interface TriggerCommandOptions {
  baseUrl?: string;
  token?: string;
  card?: string;
  fixture?: string;
  origin?: string;
  list?: boolean;
}

/**
 * Adds `trigger` to the program.
 *
 * @example
 * // shell: gen-card-api trigger card.transaction.declined --card 0197...
 * registerTriggerCommand(program);
 */
export function registerTriggerCommand(program: Command): void {
  program
    .command('trigger')
    .argument('[event]', 'the webhook event to produce, such as card.transaction.declined (every event of the spec has a recipe)')
    .description('produce a webhook event the real way, through the API and the sandbox control API, and print each call and the event id')
    .addOption(new Option('--base-url <url>', 'the sandbox\'s API root, ending in /api/v1').env('CARD_API_BASE_URL'))
    .addOption(new Option('--token <token>', 'a token of the workspace (prefer the environment variable: arguments show in ps)').env('CARD_API_TOKEN'))
    .option('--card <uuid>', 'act on this card instead of issuing a new one')
    .option('--origin <actor>', 'card.frozen only: who freezes the card, workspace (a freeze order, the default), platform_risk or issuer')
    .option('--fixture <file>', 'run a scenario instead: a JSON file of API and control calls, or the name of a bundled one (--list shows them)')
    .option('--list', 'list the bundled fixtures, one line each')
    .addHelpText(
      'after',
      '\nA fixture is {"steps": [{"id", "call": "<operationId>", "path"?, "query"?, "body"?, "wait"?}]}; a string "${<step id>.data...}"\nuses an earlier step\'s answer. The whole file is checked against the spec and the control document before anything runs.',
    )
    .action((event: string | undefined, opts: TriggerCommandOptions) =>
      runCommand('trigger', async () => {
        if (opts.list === true) {
          if (event !== undefined || opts.fixture !== undefined) throw new CliError('--list takes no event and no --fixture', 'gen-card-api trigger --list');
          const { bundledFixtures } = await import('../sandbox-tools/fixtures.js');
          for (const { name, summary } of bundledFixtures()) consoleOutput.out(`${name.padEnd(20)} ${summary}`);
          return;
        }
        if (opts.origin !== undefined && opts.fixture !== undefined) throw new CliError('--origin applies to an event, not to a fixture', 'gen-card-api trigger card.frozen --origin platform_risk');
        if (event !== undefined && opts.fixture !== undefined) throw new CliError('give an event or --fixture, not both', 'gen-card-api trigger <event>, or gen-card-api trigger --fixture <file>');
        if (opts.card !== undefined && opts.fixture !== undefined) throw new CliError('--card applies to an event, not to a fixture', 'a fixture names its cards in its steps');
        if (opts.fixture !== undefined) {
          const { runFixture } = await import('../sandbox-tools/fixtures.js');
          await runFixture({ fixture: opts.fixture, baseUrl: opts.baseUrl, token: opts.token }, consoleOutput);
          return;
        }
        if (event === undefined) throw new CliError('which event? give one, or --fixture <file>', 'gen-card-api trigger card.transaction.declined (gen-card-api trigger --help lists the options)');
        const { runTrigger } = await import('../sandbox-tools/trigger.js');
        await runTrigger({ event, card: opts.card, origin: opts.origin, baseUrl: opts.baseUrl, token: opts.token }, consoleOutput);
      }),
    );
}
