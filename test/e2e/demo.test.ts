/**
 * The newcomer demo (`node --import tsx scripts/demo.ts`) runs as a child process, exactly as `make demo`
 * runs it: it exits 0, stays short, and never prints a card number, a CVV value or a signing secret.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WAIT_MS } from '../helpers/limits.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('scripts/demo.ts', () => {
  it('runs the whole flow, exits 0 and prints secrets only masked', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], { cwd: root, encoding: 'utf8', timeout: WAIT_MS });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(60);
    expect(lines.at(-1)).toMatch(/^Done in [\d.]+ s: \d+ webhooks received/);
    // The masked card line is there; no PAN-long digit run, secret or key material anywhere.
    expect(run.stdout).toMatch(/PAN •••• \d{4}, CVV •••, expires (0[1-9]|1[0-2])\/\d{2}/);
    expect(run.stdout).not.toMatch(/\d{12,}/);
    expect(run.stdout).not.toMatch(/whsec_|BEGIN|_sk_/);
    for (const step of ['order.completed', 'card.issued.secrets', 'card.transaction.captured', 'card.frozen', 'card.unfrozen', 'card.close_initiated', 'card.closed', 'card_close_refund'])
      expect(run.stdout).toContain(step);
  });
});
