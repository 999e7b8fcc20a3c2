import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The sandbox's own Decimal constructor: 40 significant digits (far beyond any balance) and
 * half-up rounding, the rule D21 sets for percentage fees. A private clone keeps other code
 * in the process from changing our rounding through the global `Decimal.set`.
 */
export const Money = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP });
export type Money = InstanceType<typeof Money>;

/** Request amounts (D12): non-negative, no sign, no exponent, at most 8 decimals. */
const REQUEST_AMOUNT = /^(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/;

/** Money as stored in SQLite (TEXT) and returned by the API: exactly 2 decimals. */
export function fmt(value: Money): string {
  return value.toFixed(2, Money.ROUND_HALF_UP);
}

/** Parses a stored TEXT decimal. Stored values are always written by `fmt`, so this cannot fail on our own data. */
export function money(value: string | number): Money {
  return new Money(value);
}

/** Sums stored decimal strings exactly. */
export function sum(values: Iterable<string>): Money {
  let total = new Money(0);
  for (const v of values) total = total.plus(v);
  return total;
}

/**
 * Checks a request amount: a string of the D12 form, with no more than the currency's
 * 2 decimals of value (so `"10.50"` and `"10.5000"` pass, `"10.505"` does not).
 * Returns an error message, or the parsed amount.
 */
export function parseRequestAmount(value: unknown): { ok: true; value: Money } | { ok: false; message: string } {
  if (typeof value !== 'string') return { ok: false, message: 'must be a decimal string such as "100.00"' };
  if (!REQUEST_AMOUNT.test(value)) return { ok: false, message: 'must be a non-negative decimal string such as "100.00"' };
  const parsed = new Money(value);
  if (!parsed.equals(parsed.toDecimalPlaces(2))) return { ok: false, message: 'must not have more than 2 decimal places of value' };
  return { ok: true, value: parsed };
}

/** Percentage fee of D21: `amount` x `rate`, half-up to 2 decimals. */
export function percentFee(amount: Money, rate: string): Money {
  return amount.times(rate).toDecimalPlaces(2, Money.ROUND_HALF_UP);
}
