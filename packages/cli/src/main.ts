/**
 * `gen-card-api`: generate the typed client, types and the other targets from the Card Issuing API spec,
 * check generated output for drift, lint and bundle the spec. A thin front end over generators/.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { stringify } from 'yaml';
import {
  CONTROL_SPEC,
  DEFAULT_SPEC,
  REPO_ROOT,
  SpecError,
  SpecErrors,
  TARGETS,
  checkFiles,
  findTarget,
  formatLintReport,
  lintSpec,
  loadSpec,
  renderClient,
  renderTargets,
  renderTypesFile,
  scaffoldHandlers,
  writeScaffold,
  targetDirs,
  timed,
  writeFiles,
  type GeneratedFile,
  type Timings,
} from '../../../generators/index.js';
import { registerSandboxCommand } from './commands/sandbox.js';

interface CommonOptions {
  spec?: string;
  timings?: boolean;
}

function printTimings(timings: Timings | undefined): void {
  if (!timings) return;
  const total = Object.values(timings).reduce((a, b) => a + b, 0);
  for (const [phase, ms] of Object.entries(timings)) console.error(`  ${phase.padEnd(24)} ${ms.toFixed(1).padStart(8)} ms`);
  console.error(`  ${'total'.padEnd(24)} ${total.toFixed(1).padStart(8)} ms`);
}

/** Writes files under an output directory given by the user (paths in `files` are relative to it). */
async function writeOut(outDir: string, files: GeneratedFile[]): Promise<void> {
  for (const file of files) {
    const full = path.resolve(outDir, file.path);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, file.contents);
  }
}

function specOption(): Option {
  return new Option('--spec <file>', 'OpenAPI 3.1 spec to read').default(DEFAULT_SPEC, 'the embedded spec/openapi.yaml');
}

async function generateTarget(name: string, opts: CommonOptions & { out?: string }): Promise<void> {
  const timings: Timings | undefined = opts.timings ? {} : undefined;
  const target = findTarget(name);
  if (opts.out) {
    const { model } = await renderTargets([], { spec: opts.spec, timings });
    const files = await timed(timings, `render ${name}`, async () => {
      if (name === 'client') return renderClient(model, { typesImport: 'local' }, '.');
      if (name === 'types') {
        return [
          { path: 'types.gen.ts', contents: await renderTypesFile(model) },
          { path: 'index.ts', contents: (await target.render(model, { typesImport: 'local' })).find((f) => f.path.endsWith('/index.ts'))!.contents },
        ];
      }
      throw new Error(`--out is not supported for the ${name} target`);
    });
    await timed(timings, 'write', () => writeOut(opts.out!, files));
    console.log(`wrote ${files.length} files to ${opts.out}`);
    if (name === 'client') console.log(`import { CardApiClient } from '${path.relative(process.cwd(), path.resolve(opts.out, 'index.js')).replace(/^(?!\.)/, './')}'; (needs openapi-fetch)`);
  } else {
    const { files } = await renderTargets([target], { spec: opts.spec, timings });
    const result = await timed(timings, 'write', () => writeFiles(REPO_ROOT, files, targetDirs([target])));
    console.log(`${name}: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed`);
  }
  printTimings(timings);
}

export function buildProgram(): Command {
  const program = new Command('gen-card-api')
    .description('Generate the typed client, types and server/webhook targets of the Card Issuing API from its OpenAPI 3.1 spec.')
    .showHelpAfterError();

  for (const [name, description] of [
    ['client', 'generate the typed client (default: packages/client; --out writes a self-contained copy)'],
    ['types', 'generate the TypeScript types (default: packages/types; --out writes a self-contained copy)'],
  ] as const) {
    program
      .command(name)
      .description(description)
      .addOption(specOption())
      .option('--out <dir>', 'write a self-contained, vendorable copy into <dir> (imports nothing from @card-api/*)')
      .option('--timings', 'print the time of each phase')
      .action((opts: CommonOptions & { out?: string }) => generateTarget(name, opts));
  }

  program
    .command('webhooks')
    .description('generate @card-api/webhooks: event types, guards and fixtures over the verification runtime (packages/webhooks)')
    .addOption(specOption())
    .option('--timings', 'print the time of each phase')
    .action((opts: CommonOptions) => generateTarget('webhooks', opts));

  program
    .command('server')
    .description('generate @card-api/server (packages/server); --scaffold <dir> writes one handler file per operation, never overwriting')
    .addOption(specOption())
    .option('--scaffold <dir>', 'write handler stubs into <dir>; existing files are left untouched')
    .option('--timings', 'print the time of each phase')
    .action(async (opts: CommonOptions & { scaffold?: string }) => {
      if (!opts.scaffold) return generateTarget('server', opts);
      const { model } = await renderTargets([], { spec: opts.spec });
      const result = await writeScaffold(opts.scaffold, scaffoldHandlers(model, opts.scaffold));
      for (const file of result.written) console.log(`wrote   ${file}`);
      for (const file of result.skipped) console.log(`kept    ${file} (exists; never overwritten)`);
    });

  program
    .command('all')
    .description('generate every target into packages/')
    .addOption(specOption())
    .option('--timings', 'print the time of each phase')
    .action(async (opts: CommonOptions) => {
      const timings: Timings | undefined = opts.timings ? {} : undefined;
      const { files } = await renderTargets(TARGETS, { spec: opts.spec, timings });
      const result = await timed(timings, 'write', () => writeFiles(REPO_ROOT, files, targetDirs(TARGETS)));
      console.log(`all: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed`);
      for (const f of [...result.written, ...result.removed]) console.log(`  ${result.removed.includes(f) ? 'removed' : 'wrote'} ${f}`);
      printTimings(timings);
    });

  program
    .command('check')
    .description('render every target in memory and report changed, missing and orphaned files (exit 1 on drift)')
    .addOption(specOption())
    .option('--timings', 'print the time of each phase')
    .action(async (opts: CommonOptions) => {
      const timings: Timings | undefined = opts.timings ? {} : undefined;
      const { files } = await renderTargets(TARGETS, { spec: opts.spec, timings });
      const result = await timed(timings, 'compare', () => checkFiles(REPO_ROOT, files, targetDirs(TARGETS)));
      for (const change of result.changed) console.log(`changed: ${change.path}\n${change.diff}\n`);
      for (const file of result.missing) console.log(`missing: ${file}`);
      for (const file of result.orphaned) console.log(`orphaned: ${file} (generated, but no target produces it any more)`);
      if (result.ok) console.log(`check: ${files.length} generated files match the spec`);
      else {
        console.log(`check: ${result.changed.length} changed, ${result.missing.length} missing, ${result.orphaned.length} orphaned; run \`npm run generate\``);
        process.exitCode = 1;
      }
      printTimings(timings);
    });

  program
    .command('lint')
    .description('strict lint of the spec: Redocly recommended-strict plus this API\'s rules, then two OpenAPI 3.1 validators (without --spec, the sandbox control API\'s document too)')
    .addOption(specOption())
    .action(async (opts: CommonOptions, command: Command) => {
      const runs: Array<[string, string | undefined]> = [[opts.spec ?? DEFAULT_SPEC, undefined]];
      if (command.getOptionValueSource('spec') === 'default') runs.push([path.join(REPO_ROOT, CONTROL_SPEC), path.join(REPO_ROOT, path.dirname(CONTROL_SPEC), 'redocly.yaml')]);
      for (const [spec, config] of runs) {
        const report = await lintSpec(spec, config);
        console.log(formatLintReport(report));
        if (report.errors + report.warnings > 0) process.exitCode = 1;
      }
    });

  program
    .command('bundle')
    .description('print the spec bundled into one document')
    .addOption(specOption())
    .option('-o, --output <file>', 'write to a file instead of stdout')
    .addOption(new Option('--format <format>', 'output format').choices(['yaml', 'json']).default('yaml'))
    .action(async (opts: CommonOptions & { output?: string; format: 'yaml' | 'json' }) => {
      const { document } = await loadSpec(opts.spec ?? DEFAULT_SPEC);
      const text = opts.format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 });
      if (opts.output) await writeFile(opts.output, text);
      else process.stdout.write(text);
    });

  registerSandboxCommand(program);
  return program;
}

/** Runs the CLI; spec problems print as `file:line pointer: reason` and exit 2. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof SpecErrors || error instanceof SpecError) {
      const errors = error instanceof SpecErrors ? error.errors : [error];
      for (const e of errors) console.error(`error ${e.message}`);
      console.error(`${errors.length} problem(s) in the spec`);
      process.exitCode = 2;
      return;
    }
    console.error(`gen-card-api: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

await main();
