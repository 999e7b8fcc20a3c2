/**
 * Where an issue's lifecycle spends its SQLite time: `node --import tsx scripts/sandbox-statements.ts [orders]`.
 *
 * Runs card issues through the sandbox's services in this process (no HTTP, a manual clock, 10 ms order latency),
 * in rounds of 100 issues followed by the two order steps that complete them, and prints:
 * - the time per order of the issue (`cards.create`) and of its completion (the scheduler's steps), at growing
 *   database sizes, which shows whether a cost grows with the database;
 * - every SQL statement the last rounds ran, with its calls and time per order and its time per call.
 *
 * Statements are timed by wrapping the methods of the driver's statement prototype (node:sqlite's `StatementSync`),
 * which adds a little to each.
 * A diagnostic, not a benchmark (no peer, no ratios); absolute times move with the machine's load. The sandbox runs
 * from its TypeScript sources (the `@card-api/source` condition), as the tests and benches do.
 */
import { spawnSync } from 'node:child_process';

const ROUND = 100;

async function main(): Promise<void> {
  const total = Number(process.argv[2] ?? 30_000);
  if (!Number.isSafeInteger(total) || total < 5 * ROUND) throw new Error(`orders must be an integer of at least ${5 * ROUND}, not ${process.argv[2]}`);
  const { createSandbox, createManualClock } = await import('../packages/sandbox/src/index.js');

  const sandbox = createSandbox({ clock: createManualClock('2026-03-01T12:00:00.000Z'), orderLatencyMs: 10 });
  // Statement timing, switched on for the last fifth of the run.
  const timings = new Map<string, { calls: number; ms: number }>();
  let timing = false;
  const proto = Object.getPrototypeOf(sandbox.db.prepare('SELECT 1')) as Record<'run' | 'get' | 'all', (...args: unknown[]) => unknown>;
  for (const method of ['run', 'get', 'all'] as const) {
    const original = proto[method];
    proto[method] = function (this: { sourceSQL: string }, ...args: unknown[]) {
      if (!timing) return original.apply(this, args);
      const start = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const key = `${method} ${this.sourceSQL.replace(/\s+/g, ' ').trim()}`;
        const entry = timings.get(key) ?? { calls: 0, ms: 0 };
        entry.calls++;
        entry.ms += performance.now() - start;
        timings.set(key, entry);
      }
    };
  }

  const ws = sandbox.seedDefaultWorkspace().workspace.id;
  sandbox.admin.deposit(ws, { amount: '1000000000.00', description: 'statements script' });
  const body = { card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };

  const rounds = Math.floor(total / ROUND);
  const timedFrom = rounds - Math.max(1, Math.floor(rounds / 5));
  const checkpoints = new Set([Math.floor(rounds / 6), Math.floor(rounds / 2), rounds].map((r) => Math.max(1, r)));
  let sinceCheckpoint = { create: 0, steps: 0, orders: 0 };
  let key = 0;
  console.log(`${total} issues in rounds of ${ROUND}; µs per order over the rounds before each checkpoint`);
  for (let round = 1; round <= rounds; round++) {
    timing = round > timedFrom;
    const start = performance.now();
    for (let i = 0; i < ROUND; i++) sandbox.cards.create(ws, body, `statements-${key++}`);
    const created = performance.now();
    sandbox.advance(10);
    sandbox.advance(10);
    const stepped = performance.now();
    sinceCheckpoint = { create: sinceCheckpoint.create + (created - start), steps: sinceCheckpoint.steps + (stepped - created), orders: sinceCheckpoint.orders + ROUND };
    if (checkpoints.has(round)) {
      const pages = sandbox.db.pluck<[], number>('PRAGMA page_count').get();
      const per = (ms: number): string => ((ms * 1000) / sinceCheckpoint.orders).toFixed(1).padStart(6);
      console.log(`after ${String(round * ROUND).padStart(7)} orders (${pages} pages): issue ${per(sinceCheckpoint.create)} µs, completion ${per(sinceCheckpoint.steps)} µs`);
      sinceCheckpoint = { create: 0, steps: 0, orders: 0 };
    }
  }
  timing = false;
  const timedOrders = (rounds - timedFrom) * ROUND;
  // The run is only worth reading if the ledger it wrote is consistent.
  const problems = sandbox.admin.audit();
  if (problems.length > 0) throw new Error(`ledger audit failed: ${problems.slice(0, 3).join('; ')}`);

  console.log(`\nstatements of the last ${timedOrders} orders (per order: calls, µs; then µs per call)`);
  let calls = 0;
  let ms = 0;
  for (const [sql, t] of [...timings].sort((a, b) => b[1].ms - a[1].ms)) {
    calls += t.calls;
    ms += t.ms;
    console.log(`${(t.calls / timedOrders).toFixed(1).padStart(5)} ${((t.ms * 1000) / timedOrders).toFixed(1).padStart(6)} µs ${((t.ms * 1000) / t.calls).toFixed(1).padStart(6)} µs/call  ${sql.slice(0, 110)}`);
  }
  console.log(`${(calls / timedOrders).toFixed(1).padStart(5)} ${((ms * 1000) / timedOrders).toFixed(1).padStart(6)} µs in all`);
  sandbox.close();
}

// Re-run under the source condition when the caller did not give it (see profile-sandbox.ts).
if (!process.execArgv.some((a) => a.includes('@card-api/source')) && process.env.SANDBOX_STATEMENTS_CHILD === undefined) {
  const child = spawnSync(process.execPath, ['--conditions=@card-api/source', '--import', 'tsx', import.meta.filename, ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, SANDBOX_STATEMENTS_CHILD: '1' },
  });
  process.exit(child.status ?? 1);
} else {
  await main();
}
