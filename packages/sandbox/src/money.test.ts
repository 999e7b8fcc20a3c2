import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmt, minusStored, money } from './money.js';

/** A stored amount as `fmt` writes it, positive or negative, up to 18 integer digits. */
const stored = fc.tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n })).map(([cents]) => fmt(money(cents.toString()).dividedBy(100)));

describe('minusStored', () => {
  it('is Decimal subtraction for every pair of stored amounts', () => {
    fc.assert(
      fc.property(stored, stored, (a, b) => {
        expect(minusStored(a, b)).toBe(fmt(money(a).minus(b)));
      }),
    );
  });

  it('formats the edges: zero, sub-unit results and negative results', () => {
    expect(minusStored('0.00', '0.00')).toBe('0.00');
    expect(minusStored('10.00', '9.99')).toBe('0.01');
    expect(minusStored('0.05', '0.10')).toBe('-0.05');
    expect(minusStored('-1.50', '2.25')).toBe('-3.75');
    expect(minusStored('100000000000000000000.00', '0.01')).toBe('99999999999999999999.99');
  });

  it('falls back to Decimal for anything not in the stored form', () => {
    expect(minusStored('10', '2.5')).toBe('7.50');
    expect(minusStored('1e2', '0.001')).toBe('100.00');
  });
});
