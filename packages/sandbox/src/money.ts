import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The sandbox's own Decimal constructor: 40 significant digits (far beyond any balance) and
 * half-up rounding, the rule D21 sets for percentage fees. A private clone keeps other code
 * in the process from changing our rounding through the global `Decimal.set`.
 */
export const Money = DecimalJs.clone({ precision: 40, rounding: DecimalJs.ROUND_HALF_UP });
export type Money = InstanceType<typeof Money>;

/** Request amounts (D28): non-negative, no sign, no exponent, at most the currency's 2 decimals (the spec's `AmountInput`). */
const REQUEST_AMOUNT = /^(0|[1-9][0-9]*)(\.[0-9]{1,2})?$/;

/** Money as stored in SQLite (TEXT) and returned by the API: exactly 2 decimals. */
export function fmt(value: Money): string {
  return value.toFixed(2, Money.ROUND_HALF_UP);
}

/** Parses a stored TEXT decimal. Stored values are always written by `fmt`, so this cannot fail on our own data. */
export function money(value: string | number): Money {
  return new Money(value);
}

/** A stored amount as `fmt` writes it: an optional minus, digits, exactly 2 decimals. */
const STORED_AMOUNT = /^-?[0-9]+\.[0-9]{2}$/;

/**
 * `a - b` for two stored amounts, exactly, in integer cents (BigInt): the card read computes
 * `available_balance` on every request, and Decimal's parse and format were a visible share of it.
 * Anything not in the stored form goes through Decimal, so the result never depends on the fast path.
 */
export function minusStored(a: string, b: string): string {
  if (!STORED_AMOUNT.test(a) || !STORED_AMOUNT.test(b)) return fmt(money(a).minus(b));
  const cents = BigInt(a.replace('.', '')) - BigInt(b.replace('.', ''));
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Sums stored decimal strings exactly. */
export function sum(values: Iterable<string>): Money {
  let total = new Money(0);
  for (const v of values) total = total.plus(v);
  return total;
}

/**
 * Checks a request amount: a string of the D28 form (the spec's `AmountInput`), so `"10.5"` and `"10.50"`
 * pass and `"10.505"` or `"10.5000"` do not. Returns an error message, or the parsed amount.
 */
export function parseRequestAmount(value: unknown): { ok: true; value: Money } | { ok: false; message: string } {
  if (typeof value !== 'string') return { ok: false, message: 'must be a decimal string such as "100.00"' };
  if (value.length > 32 || !REQUEST_AMOUNT.test(value)) return { ok: false, message: 'must be a non-negative decimal string with at most 2 decimals, such as "100.00"' };
  return { ok: true, value: new Money(value) };
}

/** Percentage fee of D21: `amount` x `rate`, half-up to 2 decimals. */
export function percentFee(amount: Money, rate: string): Money {
  return amount.times(rate).toDecimalPlaces(2, Money.ROUND_HALF_UP);
}
