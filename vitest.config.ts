import { availableParallelism } from 'node:os';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { HANG_MS, WAIT_MS } from './test/helpers/limits.js';

// In-repo tests run the sources: @card-api/* resolve through their "@card-api/source" export condition (to src/),
// as tsconfig.json's customConditions and .npmrc's node-options do for tsc and child processes.
const SOURCE = '@card-api/source';

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions], externalConditions: [SOURCE] } },
  test: {
    include: [
      'test/**/*.test.ts',
      'generators/**/*.test.ts',
      'templates/**/*.test.ts',
      'packages/*/src/**/*.test.ts',
      'spec/**/*.test.ts',
    ],
    // The registry test has its own config (test/registry/vitest.config.ts) and runs after `make build`.
    exclude: ['**/node_modules/**', 'test/registry/**'],
    // fast-check runs from a fixed seed (FC_SEED overrides it): no test depends on chance.
    setupFiles: ['test/helpers/fast-check-seed.ts'],
    // tsc -p tsconfig.json over the whole repository (not only the *.test-d.ts files), failing the run on any type
    // error: `make test` counts on it and runs no separate `npm run typecheck` (scripts/test.ts).
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts', 'templates/**/*.test-d.ts', 'packages/*/src/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    // At least two files at once: vitest's default (one fewer than the CPUs) runs a 2-CPU machine's files one by
    // one, and a file mostly runs one thing at a time (the CLI, tsc, a sandbox), so one CPU sat idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Limits that only turn a hang into a failure (test/helpers/limits.ts): a slow machine is not a failing one.
    // No test or describe sets its own, which could only be lower; expect.poll waits for its value as long.
    testTimeout: HANG_MS,
    hookTimeout: HANG_MS,
    expect: { poll: { timeout: WAIT_MS } },
  },
});
