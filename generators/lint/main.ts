/**
 * Strict lint of a spec without the CLI (`node --import tsx generators/lint/main.ts [spec]`): exits 1 on any
 * lint error or warning, 2 (with file, pointer and reason) on a spec that cannot be linted, as `gen-card-api lint`.
 */
import { SpecError, SpecErrors } from '../model/errors.js';
import { formatLintReport, lintSpec } from './lint-spec.js';

try {
  const report = await lintSpec(process.argv[2]);
  console.log(formatLintReport(report));
  process.exitCode = report.errors + report.warnings === 0 ? 0 : 1;
} catch (error) {
  if (!(error instanceof SpecError) && !(error instanceof SpecErrors)) throw error;
  const errors = error instanceof SpecErrors ? error.errors : [error];
  console.error(`${errors.map((e) => `error ${e.message}`).join('\n')}\n${errors.length} problem(s) in the spec`);
  process.exitCode = 2;
}
