import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/**/*.test.ts',
      'generators/**/*.test.ts',
      'templates/**/*.test.ts',
      'packages/*/src/**/*.test.ts',
      'spec/**/*.test.ts',
    ],
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
