/**
 * Strict lint of an OpenAPI document: Redocly (`recommended-strict` plus this project's rules, from
 * `redocly.yaml`), then two independent validators of the bundled document (swagger-parser and
 * @seriousme/openapi-schema-validator). Every problem carries the file, the JSON pointer and the reason.
 * The two validators are imported when a lint reaches them: nothing else in the toolkit uses them.
 */
import type { NormalizedProblem } from '@redocly/openapi-core';
import { SpecErrors } from '../model/errors.js';
import { assertOpenApi31, bundleSpec, displayPath, inputProblems, refProblemReason, SpecResolver } from '../model/load.js';
import { getLineColLocation, lint, loadConfig } from '../model/redocly.js';
import { DEFAULT_LINT_CONFIG, DEFAULT_SPEC } from '../core/assets.js';
import { runtimeSchemaProblems } from './runtime-schemas.js';
import { generatorProblems } from './spec-text.js';

export { DEFAULT_LINT_CONFIG, DEFAULT_SPEC, REPO_ROOT } from '../core/assets.js';

/** `gen-card-api`: what the generators would refuse, and spec text that has no business in generated code (spec-text.ts). */
export type LintSource = 'redocly' | 'swagger-parser' | 'openapi-schema-validator' | 'gen-card-api';

export interface LintProblem {
  source: LintSource;
  severity: 'error' | 'warn';
  /** Path of the file that holds the problem, relative to the working directory when possible. */
  file: string;
  /** JSON pointer into that file, `#/paths/~1cards/post`. */
  pointer: string;
  line?: number;
  column?: number;
  rule?: string;
  message: string;
}

export interface LintReport {
  specPath: string;
  problems: LintProblem[];
  errors: number;
  warnings: number;
}

const relative = displayPath;

function fromRedocly(problem: NormalizedProblem): LintProblem {
  const location = problem.location[0];
  const file = location?.source.absoluteRef ?? '';
  const pointer = location?.pointer ?? '#/';
  const message = /^Can't resolve \$ref/.test(problem.message) && file !== '' ? refProblemReason(file, location?.source, pointer, problem.message) : problem.message;
  let line: number | undefined;
  let column: number | undefined;
  if (location) {
    try {
      const at = getLineColLocation(location);
      line = at.start.line;
      column = at.start.col;
    } catch {
      // A location without a source body (a resolve error) has no line; the pointer is enough.
    }
  }
  return {
    source: 'redocly',
    severity: problem.severity,
    file: relative(file),
    pointer,
    ...(line === undefined ? {} : { line, column }),
    rule: problem.ruleId,
    message,
  };
}

/**
 * Lints one spec (a path, an http(s) URL or `-` for stdin). Resolves with every lint problem; inspect `errors`. A
 * spec that cannot be linted at all (unreadable, past the input limits, not YAML or JSON, not OpenAPI 3.1, or with a
 * `$ref` the input policy refuses) rejects with the generators' `SpecError`/`SpecErrors` (file, pointer, reason),
 * which the CLI prints the same way and exits 2 on: every document is read through the generators' resolver.
 */
export async function lintSpec(specPath: string = DEFAULT_SPEC, configPath: string = DEFAULT_LINT_CONFIG): Promise<LintReport> {
  const resolver = new SpecResolver(specPath);
  const absolute = resolver.root;
  await resolver.rootBytes();
  const config = await loadConfig({ configPath });
  const bundled = await bundleSpec(specPath, config, resolver);
  const refused = inputProblems(absolute, bundled.problems);
  if (refused.length > 0) throw new SpecErrors(refused);
  const document = assertOpenApi31(absolute, bundled.bundle.parsed);
  // Bundling rewrote the parsed documents in place: lint reads them afresh (from the same bytes).
  const problems = (await lint({ ref: absolute, config, externalRefResolver: resolver.fork() })).map(fromRedocly);
  problems.push(...generatorProblems(absolute, relative(absolute), document));
  problems.push(...runtimeSchemaProblems(relative(absolute), document));

  // The independent validators only run on a document that Redocly could bundle without errors.
  if (!problems.some((p) => p.severity === 'error')) {
    try {
      // External refs are the loader's business: those Redocly leaves in place (under `default`, `const`) are data.
      const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
      await SwaggerParser.validate(structuredClone(document) as never, { resolve: { external: false } });
    } catch (error) {
      problems.push({
        source: 'swagger-parser',
        severity: 'error',
        file: relative(absolute),
        pointer: '#/',
        message: error instanceof Error ? error.message : String(error),
      });
    }
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    if (!result.valid) {
      const errors = Array.isArray(result.errors) ? result.errors : [{ message: String(result.errors) }];
      for (const e of errors as Array<{ instancePath?: string; message?: string }>) {
        problems.push({
          source: 'openapi-schema-validator',
          severity: 'error',
          file: relative(absolute),
          pointer: `#${e.instancePath ?? ''}`,
          message: e.message ?? JSON.stringify(e),
        });
      }
    }
  }
  return {
    specPath: absolute,
    problems,
    errors: problems.filter((p) => p.severity === 'error').length,
    warnings: problems.filter((p) => p.severity === 'warn').length,
  };
}

/** One line per problem: `file:line:col pointer [source/rule] message`. */
export function formatLintReport(report: LintReport): string {
  const lines = report.problems.map((p) => {
    const where = p.line === undefined ? p.file : `${p.file}:${p.line}:${p.column ?? 1}`;
    const by = p.rule ? `${p.source}/${p.rule}` : p.source;
    return `${p.severity === 'error' ? 'error' : 'warning'} ${where} ${p.pointer} [${by}] ${p.message.replace(/\s+/g, ' ').trim()}`;
  });
  lines.push(`${relative(report.specPath)}: ${report.errors} errors, ${report.warnings} warnings`);
  return lines.join('\n');
}
