/**
 * `gen-card-api`: generate the typed client, types and the other targets from the Card Issuing API spec,
 * check generated output for drift, lint and bundle the spec, run the sandbox. A thin front end over generators/.
 *
 * Only commander is loaded up front: each action imports what it needs (the generators load ts-morph and
 * openapi-typescript, the sandbox loads Fastify and SQLite), so `--help` and `--version` answer at once.
 */
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { SpecError, SpecErrors } from '../../../generators/model/errors.js';
import { applyInputFlags, withInputFlags, type InputFlags } from './input-flags.js';
import type { Timings, WriteResult } from '../../../generators/index.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerDiffCommand } from './commands/diff.js';
import { registerVerifyCommand } from './commands/verify.js';
import { registerListenCommand } from './commands/listen.js';
import { registerTriggerCommand } from './commands/trigger.js';
import { registerEventsCommand } from './commands/events.js';
import { EXIT, UsageError, usageHint } from './errors.js';
import { setParentPid } from './parent.js';
import { createProgress, type Progress } from './progress.js';

/** Progress of the running command on a terminal's stderr (nothing in CI or a pipe). */
const progress: Progress = createProgress();

/** The generators, loaded on first use, with their phases shown as progress. */
const generators = async (): Promise<typeof import('../../../generators/index.js')> => {
  const gen = await import('../../../generators/index.js');
  gen.onPhase((phase) => progress.phase(phase));
  return gen;
};

/** This package's version (`../package.json` from both `src/` and the built `dist/`). */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

export { UsageError };

interface CommonOptions extends InputFlags {
  spec?: string;
  out?: string;
  force?: boolean;
  timings?: boolean;
}

function printTimings(timings: Timings | undefined): void {
  if (!timings) return;
  const total = Object.values(timings).reduce((a, b) => a + b, 0);
  for (const [phase, ms] of Object.entries(timings)) console.error(`  ${phase.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms`);
  console.error(`  ${'total'.padEnd(24)} ${total.toFixed(1).padStart(8)} ms`);
}

/** `, N unchanged, N removed` after the files written, when there are any. */
function summary(result: WriteResult): string {
  const parts = [...(result.unchanged.length > 0 ? [`${result.unchanged.length} unchanged`] : []), ...(result.removed.length > 0 ? [`${result.removed.length} removed`] : [])];
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** The files the previous run wrote that this one no longer produces but left in place (someone changed them). */
function printKept(result: WriteResult): void {
  for (const file of result.kept) console.log(`  kept ${file} (no longer generated, but changed since the last run wrote it; remove it yourself if it is not yours)`);
}

/** `--force`, on every command that writes generated output. */
const FORCE_HELP = 'replace files in the output that gen-card-api did not write (no generated header); symlinks are refused even so';

/**
 * `--spec <file>` and the optional positional `[spec]` (as openapi-typescript takes it) are one setting: a file,
 * an http(s) URL or `-` for stdin; with the flags that widen what the loader may read for it.
 */
function withSpec(command: Command): Command {
  return withInputFlags(
    command
      .argument('[spec]', 'OpenAPI 3.1 spec to read: a file, an http(s) URL or - for stdin (same as --spec; default: the bundled spec)')
      .option('--spec <file|url|->', 'OpenAPI 3.1 spec to read (default: the bundled spec/openapi.yaml)'),
  );
}

/** The spec a command reads; also sets what the loader may read for it (input-flags.ts). */
function resolveSpec(positional: string | undefined, opts: CommonOptions): string | undefined {
  if (positional !== undefined && opts.spec !== undefined && path.resolve(positional) !== path.resolve(opts.spec)) {
    throw new UsageError(`two specs given: ${positional} (argument) and ${opts.spec} (--spec); pass one`);
  }
  applyInputFlags(opts);
  return positional ?? opts.spec;
}

/**
 * Where a command that regenerates the workspace writes: `--out`, else the card-api-kit checkout it runs from.
 * A spec other than the bundled one never overwrites the repository's packages unless `--out` says where.
 */
async function workspaceOut(spec: string | undefined, out: string | undefined): Promise<string> {
  if (out !== undefined) return path.resolve(out);
  const { DEFAULT_SPEC, WORKSPACE_ROOT } = await generators();
  if (WORKSPACE_ROOT === null) {
    throw new UsageError(`needs -o, --out <dir> here: without it, it regenerates the packages of a card-api-kit checkout`);
  }
  if (spec !== undefined && path.resolve(spec) !== DEFAULT_SPEC) {
    throw new UsageError(
      `${spec} is not the bundled spec, so its output would overwrite ${path.relative(process.cwd(), path.join(WORKSPACE_ROOT, 'packages')) || 'packages'}/; pass -o, --out <dir> to write it elsewhere`,
    );
  }
  return WORKSPACE_ROOT;
}

/** `client` and `types`: a self-contained, vendorable copy with `--out` (or outside the checkout), else the workspace package. */
async function generateVendorable(name: 'client' | 'types', specArg: string | undefined, opts: CommonOptions): Promise<void> {
  const gen = await generators();
  const spec = resolveSpec(specArg, opts);
  const timings: Timings | undefined = opts.timings ? {} : undefined;
  const out = opts.out ?? (gen.WORKSPACE_ROOT === null ? (name === 'client' ? 'card-api' : 'card-api-types') : undefined);
  if (out === undefined) return generateIntoWorkspace(name, spec, opts);
  const target = gen.findTarget(name);
  const { model } = await gen.renderTargets([], { ...(spec === undefined ? {} : { spec }), ...(timings ? { timings } : {}) });
  const files = await gen.timed(timings, `render ${name}`, async () => {
    if (name === 'client') return (await gen.renderClient(model, { typesImport: 'local' }, '.')).map((f) => ({ path: path.posix.normalize(f.path), contents: f.contents }));
    // The target's two files (types.gen.ts and index.ts), printed once, at the root of the output.
    return (await target.render(model, { typesImport: 'local' })).map((f) => ({ path: path.posix.basename(f.path), contents: f.contents }));
  });
  const result = await gen.timed(timings, 'write', () => gen.writeFiles(path.resolve(out), files, [{ dir: '.', spec: model.specName }], { force: opts.force === true }));
  progress.done();
  console.log(`wrote ${result.written.length} files to ${out}${summary(result)}`);
  printKept(result);
  if (name === 'client') {
    const from = path.relative(process.cwd(), path.resolve(out, 'index.js')).split(path.sep).join('/');
    const specifier = from.startsWith('../') || path.isAbsolute(from) ? from : `./${from}`;
    console.log(`import { CardApiClient } from '${specifier}';   // needs: npm install openapi-fetch`);
  }
  printTimings(timings);
}

async function generateIntoWorkspace(name: string, spec: string | undefined, opts: CommonOptions): Promise<void> {
  const gen = await generators();
  const root = await workspaceOut(spec, opts.out);
  const timings: Timings | undefined = opts.timings ? {} : undefined;
  const targets = name === 'all' ? gen.TARGETS : [gen.findTarget(name)];
  const { files, outputs } = await gen.renderTargets(targets, { ...(spec === undefined ? {} : { spec }), ...(timings ? { timings } : {}) });
  const result = await gen.timed(timings, 'write', () => gen.writeFiles(root, files, outputs, { force: opts.force === true }));
  progress.done();
  console.log(`${name}: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed${opts.out === undefined ? '' : ` (under ${opts.out})`}`);
  if (name === 'all') for (const f of [...result.written, ...result.removed]) console.log(`  ${result.removed.includes(f) ? 'removed' : 'wrote'} ${f}`);
  printKept(result);
  printTimings(timings);
}

export function buildProgram(): Command {
  const program = new Command('gen-card-api')
    .description('Generate the typed client, types and server/webhook targets of the Card Issuing API from its OpenAPI 3.1 spec; lint and bundle the spec; run a local sandbox.')
    .version(VERSION, '-v, --version', 'print the version of gen-card-api');

  for (const [name, description, defaultOut] of [
    ['client', 'generate a self-contained typed client into -o, --out <dir> (outside a card-api-kit checkout the default is ./card-api)', 'card-api'],
    ['types', 'generate the TypeScript types into -o, --out <dir> (outside a card-api-kit checkout the default is ./card-api-types)', 'card-api-types'],
  ] as const) {
    withSpec(program.command(name).description(description))
      .option('-o, --out <dir>', `write a self-contained, vendorable copy into <dir> (imports nothing from @card-api/*; default ./${defaultOut} outside a checkout, packages/${name} inside one)`)
      .option('--force', FORCE_HELP)
      .option('--timings', 'print the time of each phase')
      .action((spec: string | undefined, opts: CommonOptions) => generateVendorable(name, spec, opts));
  }

  for (const [name, description] of [
    ['webhooks', 'generate @card-api/webhooks: event types, guards and fixtures over the verification runtime (packages/webhooks, or under --out)'],
    ['all', 'generate every target into packages/ (or under --out)'],
  ] as const) {
    withSpec(program.command(name).description(description))
      .option('-o, --out <dir>', 'write the generated package files under <dir> instead of the checkout')
      .option('--force', FORCE_HELP)
      .option('--timings', 'print the time of each phase')
      .action((spec: string | undefined, opts: CommonOptions) => generateIntoWorkspace(name, resolveSpec(spec, opts), opts));
  }

  withSpec(program.command('server').description('generate @card-api/server (packages/server, or under --out); --scaffold <dir> writes one handler file per operation, never overwriting'))
    .option('-o, --out <dir>', 'write the generated package files under <dir> instead of the checkout')
    .option('--scaffold <dir>', 'write handler stubs into <dir>; existing files are left untouched')
    .option('--force', FORCE_HELP)
    .option('--timings', 'print the time of each phase')
    .action(async (specArg: string | undefined, opts: CommonOptions & { scaffold?: string }) => {
      const spec = resolveSpec(specArg, opts);
      if (!opts.scaffold) return generateIntoWorkspace('server', spec, opts);
      const gen = await generators();
      const { model } = await gen.renderTargets([], spec === undefined ? {} : { spec });
      const result = await gen.writeScaffold(opts.scaffold, gen.scaffoldHandlers(model, opts.scaffold));
      for (const file of result.written) console.log(`wrote   ${file}`);
      for (const file of result.skipped) console.log(`kept    ${file} (exists; never overwritten)`);
    });

  withSpec(program.command('check').description('render every target in memory and report changed, missing and orphaned files (exit 1 on drift)'))
    .option('--timings', 'print the time of each phase')
    .action(async (specArg: string | undefined, opts: CommonOptions) => {
      const gen = await generators();
      const spec = resolveSpec(specArg, opts);
      if (gen.WORKSPACE_ROOT === null) throw new UsageError('check compares generated files with a card-api-kit checkout; run it inside one');
      const timings: Timings | undefined = opts.timings ? {} : undefined;
      const { files, outputs } = await gen.renderTargets(gen.TARGETS, { ...(spec === undefined ? {} : { spec }), ...(timings ? { timings } : {}) });
      const result = await gen.timed(timings, 'compare', () => gen.checkFiles(gen.WORKSPACE_ROOT!, files, outputs));
      progress.done();
      for (const change of result.changed) console.log(`changed: ${change.path}\n${change.diff}\n`);
      for (const file of result.missing) console.log(`missing: ${file}`);
      for (const file of result.orphaned) console.log(`orphaned: ${file} (generated, but no target produces it any more)`);
      if (result.ok) console.log(`check: ${files.length} generated files match the spec`);
      else {
        console.log(`check: ${result.changed.length} changed, ${result.missing.length} missing, ${result.orphaned.length} orphaned; run \`npm run generate\``);
        process.exitCode = EXIT.found;
      }
      printTimings(timings);
    });

  withSpec(
    program
      .command('lint')
      .description("strict lint of the spec: Redocly recommended-strict plus this API's rules, then the OpenAPI 3.1 schema, local $refs and what the generators would refuse (without a spec, the sandbox control API's document too)"),
  ).action(async (specArg: string | undefined, opts: CommonOptions) => {
    // Not through generators(): lint prints nothing, so it loads no target (nor ts-morph, nor openapi-typescript).
    const [lint, { CONTROL_SPEC, DEFAULT_SPEC, REPO_ROOT }] = await Promise.all([import('../../../generators/lint/lint-spec.js'), import('../../../generators/core/assets.js')]);
    const spec = resolveSpec(specArg, opts);
    const runs: Array<[string, string | undefined]> = [[spec ?? DEFAULT_SPEC, undefined]];
    if (spec === undefined) runs.push([path.join(REPO_ROOT, CONTROL_SPEC), path.join(REPO_ROOT, path.dirname(CONTROL_SPEC), 'redocly.yaml')]);
    for (const [file, config] of runs) {
      progress.phase(`lint ${path.relative(process.cwd(), file) || file}`);
      const report = await lint.lintSpec(file, config);
      progress.done();
      console.log(lint.formatLintReport(report));
      if (report.errors + report.warnings > 0) process.exitCode = EXIT.found;
    }
  });

  withSpec(program.command('bundle').description('print the spec bundled into one document'))
    .option('-o, --out <file>', 'write to a file instead of stdout')
    .addOption(new Option('--output <file>').hideHelp())
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action(async (specArg: string | undefined, opts: CommonOptions & { output?: string; format: 'yaml' | 'json' }) => {
      // Not through generators(): a bundle needs the loader alone.
      const [{ loadSpec }, { DEFAULT_SPEC }, { stringify }] = await Promise.all([
        import('../../../generators/model/load.js'),
        import('../../../generators/core/assets.js'),
        import('yaml'),
      ]);
      const { document } = await loadSpec(resolveSpec(specArg, opts) ?? DEFAULT_SPEC);
      const text = opts.format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 });
      const out = opts.out ?? opts.output;
      if (out) await writeFile(out, text);
      else process.stdout.write(text);
    });

  registerSandboxCommand(program);
  registerDiffCommand(program);
  registerVerifyCommand(program);
  registerListenCommand(program);
  registerTriggerCommand(program);
  registerEventsCommand(program);
  registerCompletionCommand(program);
  applyContract(program, 'gen-card-api');
  return program;
}

/**
 * The one CLI contract on every command, nested ones included: commander's own errors (unknown option or command,
 * bad or missing value) print as `gen-card-api <command>: <message>` plus one hint line and exit 2, never the whole
 * help; `--help` and `--version` exit 0. Commander exits through `exitOverride`, so `main` decides every exit code.
 */
function applyContract(command: Command, fullName: string): void {
  command
    .exitOverride()
    .showHelpAfterError(usageHint(fullName))
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, `${fullName}: `)) });
  for (const sub of command.commands) applyContract(sub, `${fullName} ${sub.name()}`);
}

/** `gen-card-api <command>` for the command being run, for messages. */
function commandName(program: Command, argv: readonly string[]): string {
  const names: string[] = [];
  let current = program;
  for (const arg of argv.slice(2)) {
    const sub = current.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!sub) break;
    names.push(sub.name());
    current = sub;
  }
  return ['gen-card-api', ...names].join(' ');
}

/**
 * Runs the CLI and sets the exit code (packages/cli/README.md, "Exit codes"): 0 success, 1 when a check found
 * something (drift, lint problems, a breaking change, a failed verify check; set by the command), 2 for a usage
 * mistake, a spec that cannot be used (`file[:line:col] pointer: reason`) or anything that kept the command from running.
 */
export async function main(argv: string[] = process.argv, context: { parentPid?: number } = {}): Promise<void> {
  if (context.parentPid !== undefined) setParentPid(context.parentPid);
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    progress.done();
    // Commander has printed its message (and the hint) already.
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    process.exitCode = EXIT.usage;
    if (error instanceof SpecErrors || error instanceof SpecError) {
      const errors = error instanceof SpecErrors ? error.errors : [error];
      for (const e of errors) console.error(`error ${e.message}`);
      console.error(`${errors.length} problem(s) in the spec`);
      return;
    }
    const name = commandName(program, argv);
    console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof UsageError) {
      if (error.hint) console.error(usageHint(name));
    } else if (process.env['GEN_CARD_API_DEBUG'] && error instanceof Error && error.stack) {
      console.error(error.stack);
    }
  } finally {
    progress.done();
  }
}
