// Copied by gen-card-api from templates/client/decimal.ts. Do not edit: change the template and run the generator.
/**
 * Exact decimal arithmetic on `bigint` for the API's money strings (D12). A JS number cannot hold
 * `0.1` exactly, so comparing `"0.30"` with `0.1 + 0.2` gives the wrong answer; this does not.
 *
 * @module
 */

/** D12: a decimal string, possibly negative (balances can go negative after a risk penalty). */
export const DECIMAL_PATTERN = /^-?(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/;
/** D12: a request amount, never negative. */
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]{1,8})?$/;

/** How {@link Decimal.toFixed} drops digits. */
export type Rounding = 'half-up' | 'down';

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/**
 * An immutable exact decimal: `units / 10^scale`.
 *
 * @example
 * ```ts
 * const min = Decimal.parse(product.min_initial_topup_amount);
 * if (Decimal.parse('25.5').lt(min)) throw new Error(`at least ${min.toFixed(2)}`);
 * Decimal.parse('100.00').mul(Decimal.parse('0.0300')).toFixed(2); // "3.00"
 * ```
 */
export class Decimal {
  /** The value times `10^scale`. */
  readonly units: bigint;
  /** Digits after the point. */
  readonly scale: number;

  private constructor(units: bigint, scale: number) {
    this.units = units;
    this.scale = scale;
  }

  /**
   * Parses a D12 decimal string.
   *
   * @throws TypeError when the string does not match {@link DECIMAL_PATTERN}.
   */
  static parse(value: string): Decimal {
    if (typeof value !== 'string' || !DECIMAL_PATTERN.test(value)) {
      throw new TypeError(`not a decimal string: ${JSON.stringify(value)}`);
    }
    const negative = value.startsWith('-');
    const body = negative ? value.slice(1) : value;
    const dot = body.indexOf('.');
    const whole = dot === -1 ? body : body.slice(0, dot);
    const frac = dot === -1 ? '' : body.slice(dot + 1);
    const units = BigInt(whole + frac);
    return new Decimal(negative ? -units : units, frac.length);
  }

  /** Whether a value is a D12 decimal string (`nonNegative` for request amounts). */
  static isValid(value: unknown, options?: { nonNegative?: boolean }): value is string {
    return typeof value === 'string' && (options?.nonNegative ? AMOUNT_PATTERN : DECIMAL_PATTERN).test(value);
  }

  /** Builds a value from its units and scale, such as `(12345n, 2)` for `123.45`. */
  static fromUnits(units: bigint, scale: number): Decimal {
    if (!Number.isInteger(scale) || scale < 0) throw new RangeError('scale must be an integer >= 0');
    return new Decimal(units, scale);
  }

  #align(other: Decimal): [bigint, bigint, number] {
    if (this.scale === other.scale) return [this.units, other.units, this.scale];
    if (this.scale > other.scale) return [this.units, other.units * pow10(this.scale - other.scale), this.scale];
    return [this.units * pow10(other.scale - this.scale), other.units, other.scale];
  }

  /** `this + other`, at the larger scale of the two. */
  add(other: Decimal): Decimal {
    const [a, b, s] = this.#align(other);
    return new Decimal(a + b, s);
  }

  /** `this - other`, at the larger scale of the two. */
  sub(other: Decimal): Decimal {
    const [a, b, s] = this.#align(other);
    return new Decimal(a - b, s);
  }

  /** `this * other`, exact (the scales add up). */
  mul(other: Decimal): Decimal {
    return new Decimal(this.units * other.units, this.scale + other.scale);
  }

  /** `-1`, `0` or `1` as `this` is less than, equal to or greater than `other`. */
  cmp(other: Decimal): -1 | 0 | 1 {
    const [a, b] = this.#align(other);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Numeric equality, whatever the scales (`1.0` equals `1.00`). */
  eq(other: Decimal): boolean {
    return this.cmp(other) === 0;
  }
  /** `this < other`. */
  lt(other: Decimal): boolean {
    return this.cmp(other) < 0;
  }
  /** `this <= other`. */
  lte(other: Decimal): boolean {
    return this.cmp(other) <= 0;
  }
  /** `this > other`. */
  gt(other: Decimal): boolean {
    return this.cmp(other) > 0;
  }
  /** `this >= other`. */
  gte(other: Decimal): boolean {
    return this.cmp(other) >= 0;
  }
  /** Whether the value is below zero. */
  isNegative(): boolean {
    return this.units < 0n;
  }
  /** Whether the value is zero. */
  isZero(): boolean {
    return this.units === 0n;
  }

  /**
   * Formats with exactly `scale` digits after the point. Dropped digits are rounded half away
   * from zero (`'half-up'`, the usual money rule, D21) or truncated toward zero (`'down'`).
   */
  toFixed(scale: number, rounding: Rounding = 'half-up'): string {
    if (!Number.isInteger(scale) || scale < 0) throw new RangeError('scale must be an integer >= 0');
    let units = this.units;
    if (scale > this.scale) {
      units *= pow10(scale - this.scale);
    } else if (scale < this.scale) {
      const divisor = pow10(this.scale - scale);
      const negative = units < 0n;
      const abs = negative ? -units : units;
      let q = abs / divisor;
      if (rounding === 'half-up' && (abs % divisor) * 2n >= divisor) q += 1n;
      units = negative ? -q : q;
    }
    return format(units, scale);
  }

  /** The value at its own scale, such as `"100.00"`. */
  toString(): string {
    return format(this.units, this.scale);
  }

  /** Serialises as the API's decimal string. */
  toJSON(): string {
    return this.toString();
  }
}

function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const cut = digits.length - scale;
  const text = scale === 0 ? digits : `${digits.slice(0, cut)}.${digits.slice(cut)}`;
  return negative ? `-${text}` : text;
}

/**
 * Whether `amount` is at least `minimum`, both D12 strings: the client-side check of
 * `initial_topup_amount` against the product's `min_initial_topup_amount` (or of a top-up against
 * `min_topup_amount`) before sending the write.
 *
 * @throws TypeError when either value is not a decimal string.
 * @example
 * ```ts
 * if (!meetsMinimum(body.initial_topup_amount, product.min_initial_topup_amount)) {
 *   throw new Error(`minimum is ${product.min_initial_topup_amount}`);
 * }
 * ```
 */
export function meetsMinimum(amount: string, minimum: string): boolean {
  return Decimal.parse(amount).gte(Decimal.parse(minimum));
}
