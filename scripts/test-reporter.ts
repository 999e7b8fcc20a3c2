/**
 * A vitest reporter for `make test` (scripts/test.ts): counts every test by its result and records each test
 * file's time, then writes both as JSON to the file named by CARD_API_TEST_REPORT. It prints nothing; the
 * default reporter still does the talking. Used as `--reporter=default --reporter=./scripts/test-reporter.ts`.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export interface FileReport {
  file: string;
  /** Import of the file and its setup, plus every test and hook in it, in ms (the file's own time, not queueing). */
  ms: number;
  /** The part of `ms` spent importing the file and what it imports (vitest's collect time). */
  importMs: number;
  passed: number;
  failed: number;
  skipped: number;
  /** An error outside any test: the file failed to import, or a hook threw. */
  fileError: boolean;
}

export interface RunReport {
  passed: number;
  failed: number;
  skipped: number;
  /** Errors vitest caught outside every test (an unhandled rejection, a worker that died). */
  unhandledErrors: number;
  reason: string;
  files: FileReport[];
}

function fileReport(module: TestModule): FileReport {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of module.children.allTests()) {
    const state = test.result().state;
    // A test still pending when the run ends never ran (the run was cut short): it did not pass.
    if (state === 'passed') counts.passed++;
    else if (state === 'skipped') counts.skipped++;
    else counts.failed++;
  }
  const d = module.diagnostic();
  const ms = d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
  const fileError = module.state() === 'failed' && counts.failed === 0;
  return { file: module.relativeModuleId, ms: Math.round(ms), importMs: Math.round(d.collectDuration), ...counts, fileError };
}

export default class MakeTestReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: string): void {
    const target = process.env['CARD_API_TEST_REPORT'];
    if (!target) return;
    const files = modules.map(fileReport);
    const sum = (key: 'passed' | 'failed' | 'skipped'): number => files.reduce((n, f) => n + f[key], 0);
    const report: RunReport = {
      passed: sum('passed'),
      // A file that failed outside its tests counts once, so that the totals never say 0 failed on a failed run.
      failed: sum('failed') + files.filter((f) => f.fileError).length + unhandledErrors.length,
      skipped: sum('skipped'),
      unhandledErrors: unhandledErrors.length,
      reason,
      files,
    };
    writeFileSync(target, `${JSON.stringify(report, null, 2)}\n`);
  }
}
