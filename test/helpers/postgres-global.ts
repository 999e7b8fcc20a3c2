/**
 * vitest globalSetup of the PostgreSQL run (test/postgres/vitest.config.ts): one PostgreSQL server for the run, its
 * URL given to the test files as CARD_API_SANDBOX_TEST_DB. The fixtures that open sandboxes
 * (packages/sandbox/src/test-support.ts, test/contract/support.ts) then put each sandbox in a schema of its own on
 * it instead of in memory, so the same tests run on both engines.
 */
import { startPostgres, type TestPostgres } from './postgres.js';

let server: TestPostgres | undefined;

export async function setup(): Promise<void> {
  server = await startPostgres();
  process.env.CARD_API_SANDBOX_TEST_DB = await server.createDatabase('sandbox_tests');
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
