import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

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
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts', 'templates/**/*.test-d.ts', 'packages/*/src/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
