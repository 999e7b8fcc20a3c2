import { Decimal as DecimalJs } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMOUNT_PATTERN, DECIMAL_PATTERN, Decimal, meetsMinimum } from './decimal.js';

/** Any D12 decimal string: optional sign, no leading zeros, 0 to 8 fraction digits. */
const decimalString = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 20n })),
    fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 8 }), { nil: undefined }),
  )
  .map(([negative, whole, frac]) => `${negative ? '-' : ''}${whole}${frac === undefined ? '' : `.${frac}`}`);

// Enough significant digits that decimal.js itself never rounds these operands.
const Ref = DecimalJs.clone({ precision: 200, rounding: DecimalJs.ROUND_HALF_UP });

describe('Decimal against decimal.js', () => {
  it('generates only D12 strings', () => {
    fc.assert(fc.property(decimalString, (s) => DECIMAL_PATTERN.test(s)));
  });

  it('adds, subtracts and multiplies exactly', () => {
    fc.assert(
      fc.property(decimalString, decimalString, (a, b) => {
        const x = Decimal.parse(a);
        const y = Decimal.parse(b);
        expect(new Ref(x.add(y).toString()).eq(new Ref(a).add(b))).toBe(true);
        expect(new Ref(x.sub(y).toString()).eq(new Ref(a).sub(b))).toBe(true);
        expect(new Ref(x.mul(y).toString()).eq(new Ref(a).mul(b))).toBe(true);
      }),
    );
  });

  it('compares like decimal.js', () => {
    fc.assert(
      fc.property(decimalString, decimalString, (a, b) => {
        const want = new Ref(a).cmp(b);
        expect(Decimal.parse(a).cmp(Decimal.parse(b))).toBe(want);
        expect(meetsMinimum(a.replace('-', ''), b.replace('-', ''))).toBe(new Ref(a.replace('-', '')).gte(b.replace('-', '')));
      }),
    );
  });

  it('formats with a scale, rounding half away from zero or truncating', () => {
    fc.assert(
      fc.property(decimalString, fc.integer({ min: 0, max: 10 }), (a, scale) => {
        const x = Decimal.parse(a);
        // decimal.js keeps the sign of a negative value that rounds to zero ("-0.00"); money does not.
        const strip = (s: string): string => (/^-0(\.0+)?$/.test(s) ? s.slice(1) : s);
        expect(x.toFixed(scale)).toBe(strip(new Ref(a).toFixed(scale, DecimalJs.ROUND_HALF_UP)));
        expect(x.toFixed(scale, 'down')).toBe(strip(new Ref(a).toFixed(scale, DecimalJs.ROUND_DOWN)));
      }),
    );
  });

  it('round-trips a string at its own scale', () => {
    fc.assert(
      fc.property(decimalString, (a) => {
        const want = /^-0(\.0+)?$/.test(a) ? a.slice(1) : a;
        expect(Decimal.parse(a).toString()).toBe(want);
        expect(JSON.stringify({ amount: Decimal.parse(a) })).toBe(JSON.stringify({ amount: want }));
      }),
    );
  });
});

describe('Decimal examples', () => {
  it('is exact where floats are not', () => {
    expect(0.1 + 0.2 === 0.3).toBe(false);
    expect(Decimal.parse('0.1').add(Decimal.parse('0.2')).eq(Decimal.parse('0.3'))).toBe(true);
  });

  it.each([
    ['100.00', '0.0300', '3.00'],
    ['33.33', '0.0300', '1.00'], // 0.9999 -> 1.00
    ['10.50', '0.0250', '0.26'], // 0.2625 -> 0.26
    ['10.10', '0.0250', '0.25'], // 0.2525 -> 0.25
    ['10.20', '0.0250', '0.26'], // 0.2550 -> 0.26 (half up)
  ])('a top-up fee of %s at %s is %s (D21)', (amount, percent, fee) => {
    expect(Decimal.parse(amount).mul(Decimal.parse(percent)).toFixed(2)).toBe(fee);
  });

  it('checks the product minimum (min_initial_topup_amount)', () => {
    expect(meetsMinimum('50.00', '50')).toBe(true);
    expect(meetsMinimum('49.99999999', '50.00')).toBe(false);
    expect(meetsMinimum('100', '25.5')).toBe(true);
  });

  it.each(['', '1.', '.5', '01', '1e5', '1.123456789', ' 1', '+1', '1,00', 'NaN', '--1', '0x10'])('rejects %j', (s) => {
    expect(() => Decimal.parse(s)).toThrow(TypeError);
    expect(Decimal.isValid(s)).toBe(false);
  });

  it('tells request amounts from balances', () => {
    expect(Decimal.isValid('-5.00')).toBe(true);
    expect(Decimal.isValid('-5.00', { nonNegative: true })).toBe(false);
    expect(AMOUNT_PATTERN.test('0')).toBe(true);
    expect(Decimal.parse('-0.005').toFixed(2)).toBe('-0.01');
    expect(Decimal.parse('-12.345').isNegative()).toBe(true);
    expect(Decimal.fromUnits(12345n, 2).toString()).toBe('123.45');
    expect(Decimal.fromUnits(5n, 3).toString()).toBe('0.005');
    expect(() => Decimal.parse('1').toFixed(-1)).toThrow(RangeError);
  });
});
