import { defineConfig } from 'vitest/config';

// The registry test (`make test-registry`): slow (it installs from a real registry),
// so it runs on its own, after `make build`, and never in parallel with itself.
export default defineConfig({
  test: {
    include: ['test/registry/**/*.registry.ts'],
    testTimeout: 900_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    typecheck: { enabled: false },
  },
});
