import { describe, expect, it } from 'vitest';
import { catchError, issueActiveCard, issueBody, setup } from './test-support.js';

describe('card secrets and token values never leave through the services', () => {
  it('keeps PAN, CVV, expiry and the token out of every output but secrets.forCard', () => {
    const { sandbox, ws, token } = setup();
    const outputs: unknown[] = [];
    const keep = <T>(value: T): T => (outputs.push(value), value);
    sandbox.events.onEvent((e) => outputs.push(e));

    const cards = [issueActiveCard(sandbox, ws), issueActiveCard(sandbox, ws, { card_product_id: 2, initial_topup_amount: '60.00' })];
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
    for (const uuid of cards) {
      const secrets = sandbox.secrets.forCard(uuid);
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
});
