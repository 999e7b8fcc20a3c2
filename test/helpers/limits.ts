/**
 * The suite's only time limits. Neither judges speed: each exists to turn a hang into a failure, so each is minutes,
 * and a loaded machine makes the suite slower, not red (`make test` passes beside two busy loops holding both CPUs).
 * Nothing in a test waits a fixed time for something to happen: it waits for the event, bounded by these.
 */

/** How long a wait for an event (a line printed, a port freed, a delivery recorded, an order done) may take. */
export const WAIT_MS = 5 * 60_000;

/** How long one test or hook may take (vitest's testTimeout and hookTimeout): above WAIT_MS, so a wait's own message wins. */
export const HANG_MS = 10 * 60_000;

/** The registry phase's limit for one command or test: an `npm install` of the sandbox with its build on a loaded machine took 13 min. */
export const REGISTRY_HANG_MS = 30 * 60_000;
