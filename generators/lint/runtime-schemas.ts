/**
 * Lint's view of what the generated server's runtime makes of the schemas: the same check the server generator runs
 * (model/schema-runtime.ts), so a `pattern` the runtime cannot compile is reported here with the generator's words.
 */
import { schemaRuntimeReport } from '../model/schema-runtime.js';
import type { LintProblem } from './lint-spec.js';

/** A `pattern` (or `patternProperties` key) the generated server cannot compile: an error, rule `server-runtime`. */
export function runtimeSchemaProblems(displayFile: string, document: unknown): LintProblem[] {
  return schemaRuntimeReport(document).patternProblems.map((p) => ({ source: 'gen-card-api', severity: 'error', file: displayFile, pointer: p.pointer, rule: 'server-runtime', message: p.reason }));
}
