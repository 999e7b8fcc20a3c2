import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from './clock.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { catchError, issueBody, newestCard, setup } from './test-support.js';
import type { CardSecrets, CreateCardBody } from './types.js';

/** Issues a card and reads its secrets while the sandbox still holds them (before the issue completes). */
function issueReadingSecrets(sandbox: Sandbox, ws: number, overrides: Partial<CreateCardBody> = {}): { uuid: string; secrets: CardSecrets } {
  sandbox.cards.create(ws, issueBody(overrides));
  const uuid = newestCard(sandbox, ws);
  const secrets = sandbox.secrets.forCard(uuid);
  sandbox.advance(1000);
  expect(sandbox.cards.get(ws, uuid).status).toBe('active');
  return { uuid, secrets };
}

describe('card secrets and token values never leave through the services', () => {
  it('keeps PAN, CVV, expiry and the token out of every output but secrets.forCard', () => {
    const { sandbox, ws, token } = setup();
    const outputs: unknown[] = [];
    const keep = <T>(value: T): T => (outputs.push(value), value);
    sandbox.events.onEvent((e) => outputs.push(e));

    const issued = [issueReadingSecrets(sandbox, ws), issueReadingSecrets(sandbox, ws, { card_product_id: 2, initial_topup_amount: '60.00' })];
    const cards = issued.map((c) => c.uuid);
    const [a, b] = cards as [string, string];
    keep(sandbox.cards.topup(ws, a, { amount: '12.34' }));
    keep(sandbox.cards.freeze(ws, a, { reason: 'check' }));
    sandbox.advance(200);
    keep(sandbox.cards.close(ws, b));
    sandbox.advance(5000);
    keep(sandbox.cards.create(ws, issueBody()));
    keep(sandbox.auth.authenticate(token, '10.0.0.1'));
    keep(sandbox.catalogue.list(ws));
    keep(sandbox.cards.list(ws));
    for (const c of cards) keep(sandbox.cards.get(ws, c));
    keep(sandbox.orders.list(ws));
    keep(sandbox.wallet.get(ws));
    keep(sandbox.ledger.list(ws, { per_page: 100 }));
    keep(sandbox.events.since(0));
    // A wrong token that differs from the real one whatever its last character is.
    const wrongToken = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
    for (const fail of [() => sandbox.cards.freeze(ws, a), () => sandbox.cards.topup(ws, b, { amount: '10.00' }), () => sandbox.auth.authenticate(wrongToken, '1.1.1.1')]) {
      const error = catchError(fail);
      keep({ message: error.message, code: error.code, fieldErrors: error.fieldErrors });
    }

    const json = JSON.stringify(outputs);
    expect(json).not.toMatch(/"(pan|cvv|expiry_month|expiry_year)"/);
    expect(json).not.toContain(token);
    expect(json).not.toContain(token.split('_sk_')[1]!);
    for (const { uuid, secrets } of issued) {
      expect(secrets.pan).toMatch(/^\d{16}$/);
      expect(secrets.cvv).toMatch(/^\d{3}$/);
      expect(secrets).toMatchObject({ expiry_month: '03', expiry_year: '2029' });
      expect(json).not.toContain(secrets.pan);
      // The hidden middle digits as a run of their own; inside a hex uuid or token they are chance, not a leak.
      expect(json).not.toMatch(new RegExp(`(?<![0-9a-f])${secrets.pan.slice(6, 12)}(?![0-9a-f])`, 'i'));
      expect(json).not.toContain(`"${secrets.cvv}"`);
      // The masked PAN shows BIN and last 4 only, and the full PAN passes the Luhn check.
      expect(sandbox.cards.get(ws, uuid).masked_pan).toBe(`${secrets.pan.slice(0, 6)}******${secrets.pan.slice(-4)}`);
      const digits = [...secrets.pan].reverse().map(Number);
      expect(digits.reduce((sum, d, i) => sum + (i % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0) % 10).toBe(0);
    }
  });

  it('answers 404 for secrets of an unknown card', () => {
    const { sandbox } = setup();
    expect(catchError(() => sandbox.secrets.forCard('00000000-0000-4000-8000-000000000000'))).toMatchObject({ status: 404, code: 'card.not_found' });
  });

  it('keeps PAN and CVV only until they are delivered or known undeliverable, and no plaintext stays in the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-secrets-'));
    try {
      const file = join(dir, 'secrets.db');
      const sandbox = createSandbox({ db: file, clock: createManualClock('2026-03-01T12:00:00.000Z'), orderLatencyMs: 50, closeDelayMs: 1000 });
      const { workspace } = sandbox.seedDefaultWorkspace();
      const ws = workspace.id;
      const held: CardSecrets[] = [];
      // Issued with no key to deliver to: purged when the issue completes.
      const active = issueReadingSecrets(sandbox, ws);
      held.push(active.secrets);
      expect(catchError(() => sandbox.secrets.forCard(active.uuid))).toMatchObject({ status: 404 });
      // Closed afterwards: nothing comes back.
      sandbox.cards.close(ws, active.uuid);
      sandbox.advance(5000);
      expect(sandbox.cards.get(ws, active.uuid).status).toBe('closed');
      // A failed issue: purged with the failure.
      sandbox.admin.failNextOrder('next-issue', 'business4xx');
      sandbox.cards.create(ws, issueBody());
      const failed = newestCard(sandbox, ws);
      held.push(sandbox.secrets.forCard(failed));
      sandbox.advance(1000);
      expect(sandbox.cards.get(ws, failed).status).toBe('issue_failed');
      // With a key and a subscriber: held until the delivery worker encrypted the event, then purged.
      const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
      sandbox.webhooks.setPublicKey(ws, keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
      sandbox.webhooks.registerEndpoint(ws, { url: 'http://127.0.0.1:9/hook', events: ['card.issued.secrets'] });
      const delivered = issueReadingSecrets(sandbox, ws);
      held.push(delivered.secrets);
      expect(sandbox.secrets.forCard(delivered.uuid)).toEqual(delivered.secrets);
      sandbox.db.prepare('DELETE FROM secrets_event_jobs').run();
      expect(catchError(() => sandbox.secrets.forCard(delivered.uuid))).toMatchObject({ status: 404 });

      expect(sandbox.db.prepare('SELECT COUNT(*) AS n FROM card_secrets').get()).toEqual({ n: 0 });
      sandbox.close();
      expect(existsSync(`${file}-wal`)).toBe(false);
      const bytes = readFileSync(file).toString('latin1');
      for (const secrets of held) {
        expect(bytes.includes(secrets.pan), 'a PAN is still in the database file').toBe(false);
        // The row as SQLite stored it (PAN, CVV, month, year in consecutive cells) is gone too.
        expect(bytes.includes(`${secrets.pan}${secrets.cvv}`)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
