import { defineConfig } from 'vitest/config';
import { REGISTRY_HANG_MS } from '../helpers/limits.js';

// The registry test (`make test-registry`): slow (it installs from a real registry), so it runs on its own, after
// `make build`, and never in parallel with itself. Its limit only turns a hang into a failure (test/helpers/limits.ts).
export default defineConfig({
  test: {
    include: ['test/registry/**/*.registry.ts'],
    testTimeout: REGISTRY_HANG_MS,
    hookTimeout: REGISTRY_HANG_MS,
    fileParallelism: false,
    typecheck: { enabled: false },
  },
});
