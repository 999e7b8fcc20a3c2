/**
 * Vitest setup: every fast-check property runs from one fixed seed, so `make test` is deterministic (a
 * property that passes once passes every time, and a failure reproduces exactly). To explore other inputs
 * locally, run with `FC_SEED=<integer>`; fast-check prints the seed and path of any counterexample.
 */
import fc from 'fast-check';

const raw = process.env['FC_SEED'];
const seed = raw === undefined || raw === '' ? 20_261_123 : Number(raw);
if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${JSON.stringify(raw)}`);
fc.configureGlobal({ seed });
