/**
 * `gen-card-api diff <base> <head>`: the breaking-change check between two versions of an OpenAPI 3.0 or 3.1
 * document, requests, responses and webhooks. Each side is a file or `<git revision>:<path>`. Exit 0 when nothing reaches the
 * failing level, 1 when something does, 2 on a usage or spec error (file, pointer, reason). The engine
 * (generators/diff) is loaded only when the command runs, like the other commands' generators.
 */
import { Option, type Command } from 'commander';
import { docPath } from '../../../../generators/core/assets.js';
// The catalogue alone (no engine): the help names the policy rules.
import { POLICY_RULES } from '../../../../generators/diff/catalogue.js';
import type { FailOn, Format, Level } from '../../../../generators/diff/index.js';
import { applyInputFlags, withInputFlags, type InputFlags } from '../input-flags.js';

const FORMATS: readonly Format[] = ['text', 'markdown', 'json', 'github', 'changelog'];

interface DiffOptions extends InputFlags {
  format: Format;
  failOn: FailOn;
  overrides?: string;
  level: Level;
  policy?: string[];
  date?: string;
}

export function registerDiffCommand(program: Command): void {
  withInputFlags(program.command('diff'), 'a side')
    .description('report the changes from <base> to <head> (OpenAPI 3.0 or 3.1: files, <git revision>:<path>, URLs or stdin), breaking ones first, each with why it matters; exit 1 when a change reaches --fail-on, 2 on a usage or spec error')
    .argument('<base>', 'the spec as released: a file, <revision>:<path> such as origin/main:spec/openapi.yaml, an http(s) URL or - for stdin')
    .argument('<head>', 'the proposed spec: a file, <revision>:<path>, an http(s) URL or -')
    .addOption(new Option('--format <format>', 'output: text for people, markdown for a PR comment, json, github workflow annotations, changelog (the release notes, by operation and event); each names the semver bump the generated packages need').choices([...FORMATS]).default('text'))
    .addOption(new Option('--fail-on <level>', 'the lowest level that fails the check (exit 1)').choices(['breaking', 'warning']).default('breaking'))
    .option('--overrides <file>', `YAML file of the team's policy and acknowledged changes: { policy: { <rule>: <level> }, overrides: [{ id, at?, level: breaking|warning|info|ignore, reason }] } (see ${docPath('docs/diff-checks.md')})`)
    .option('--policy <rule=level>', `set a policy rule to breaking, warning or info (repeatable; wins over the override file's \`policy:\`): ${POLICY_RULES.join(', ')}`, (v: string, all: string[] = []) => [...all, v])
    .addOption(new Option('--level <level>', 'the lowest level printed (counts always cover every change)').choices(['breaking', 'warning', 'info']).default('info'))
    .option('--date <yyyy-mm-dd>', 'the day sunset dates (x-sunset, Sunset headers) are judged against (default: today, UTC)')
    .exitOverride((error) => {
      // A usage error exits 2: exit 1 means "a change reached --fail-on". Help and version exit 0 as usual.
      if (error.exitCode !== 0) process.exit(2);
      throw error;
    })
    .action(async (base: string, head: string, opts: DiffOptions) => {
      if (base === '-' && head === '-') {
        console.error("gen-card-api diff: only one side can be read from stdin (-)\n(give the other side as a file, <revision>:<path> or URL; see 'gen-card-api diff --help')");
        process.exitCode = 2;
        return;
      }
      applyInputFlags(opts);
      const engine = await import('../../../../generators/diff/index.js');
      let policy;
      try {
        policy = engine.parsePolicyFlags(opts.policy ?? []);
        if (opts.date !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(opts.date) || Number.isNaN(Date.parse(opts.date)))) throw new Error(`--date ${opts.date}: expected a day as YYYY-MM-DD`);
      } catch (error) {
        console.error(`gen-card-api diff: ${(error as Error).message}\n(see 'gen-card-api diff --help')`);
        process.exitCode = 2;
        return;
      }
      const overrides = opts.overrides ? await engine.loadOverrides(opts.overrides) : null;
      const baseSide = await engine.loadSide(base);
      const headSide = await engine.loadSide(head);
      const result = engine.runDiff(baseSide, headSide, { overrides, failOn: opts.failOn, policy, ...(opts.date ? { today: opts.date } : {}) });
      process.stdout.write(engine.formatResult(result, opts.format, { headFile: headSide.file, level: opts.level }));
      if (result.summary.failing > 0) process.exitCode = 1;
    });
}
