/**
 * `gen-card-api sandbox [options]`: runs the command line of @card-api/sandbox (`card-api-sandbox`), which owns the
 * options, their help and the process's life (signals, parent exit, `--env-out`). The sandbox is a package of its
 * own (Fastify, native SQLite); when it is not installed this command says how to get it in one line and exits 2,
 * while `--help` still answers (exit 0) and names that install.
 */
import type { Command } from 'commander';
import { importSandbox, SandboxMissingError, sandboxMissingMessage } from '../sandbox-package.js';
import { UsageError } from '../errors.js';
import { startParentPid } from '../parent.js';

type SandboxCli = typeof import('@card-api/sandbox/cli');

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('run the stateful sandbox API on loopback (needs @card-api/sandbox); prints CARD_API_BASE_URL=... and CARD_API_TOKEN=..., runs until Ctrl-C')
    .usage('[options]   (the options are those of card-api-sandbox: gen-card-api sandbox --help lists them)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[options...]')
    .action(async (_args: string[], _opts: unknown, command: Command) => {
      const argv = command.args;
      let cli: SandboxCli;
      try {
        cli = await importSandbox<SandboxCli>('/cli');
      } catch (error) {
        if (!(error instanceof SandboxMissingError)) throw error;
        if (argv.includes('--help') || argv.includes('-h')) {
          process.stdout.write(`Usage: gen-card-api sandbox [options]\n\n${command.description()}\n\ngen-card-api sandbox ${sandboxMissingMessage()}; its --help then lists the options.\n`);
          return;
        }
        throw new UsageError(sandboxMissingMessage(), { hint: false });
      }
      process.exitCode = await cli.runSandboxCli(argv.map((a) => (a === '-h' ? '--help' : a)), { name: 'gen-card-api sandbox', parentPid: startParentPid() });
    });
}
