/**
 * Number formatting rules (docs/interface.md "Numbers and identifiers"): averages and ratios to 2 decimals, percentages
 * to 1, x ÷ 0 = 0.
 */

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

export function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/** `a ÷ b` rounded to 2 decimals; a zero divisor gives 0. */
export function ratio(a: number, b: number): number {
  return b === 0 ? 0 : round2(a / b);
}

/** `a ÷ b × 100` rounded to 1 decimal; a zero divisor gives 0. */
export function percent(a: number, b: number): number {
  return b === 0 ? 0 : round1((a / b) * 100);
}
