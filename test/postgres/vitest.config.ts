import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * The sandbox on PostgreSQL (issue 35): one PostgreSQL server for the run (test/helpers/postgres-global.ts), and
 * the sandbox's domain and contract test files run again with every sandbox they open on it (a schema each), next
 * to this folder's own PostgreSQL tests. `npm run test:postgres`.
 */
// Spread, not mergeConfig: merging would add these files to the base config's include instead of replacing it.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/postgres/**/*.test.ts',
      // The domain suites that open their sandboxes through packages/sandbox/src/test-support.ts.
      'packages/sandbox/src/cards.test.ts',
      'packages/sandbox/src/transactions.test.ts',
      'packages/sandbox/src/webhooks.test.ts',
      'packages/sandbox/src/auth.test.ts',
      'packages/sandbox/src/pagination.test.ts',
      'packages/sandbox/src/states.test.ts',
      // The HTTP contract suites that open theirs through test/contract/support.ts.
      'test/contract/operations.test.ts',
      'test/contract/idempotency.test.ts',
      'test/contract/auth-matrix.test.ts',
      'test/contract/control.test.ts',
    ],
    globalSetup: ['test/helpers/postgres-global.ts'],
    typecheck: { enabled: false },
  },
});
