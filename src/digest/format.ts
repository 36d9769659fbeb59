/**
 * en-US display of figures, shared by the highlights and the view. Figures are already rounded (figures.ts); these
 * functions only format, with a fixed locale so the output does not depend on the machine.
 */
const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const SIGNED = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
  signDisplay: 'exceptZero',
});
const REGIONS = new Intl.DisplayNames(['en-US'], { type: 'region', fallback: 'code' });

/** 1204 → "1,204". */
export const formatCount = (n: number): string => COUNT.format(n);
/** 18.2 → "18.2%", 5 → "5.0%". */
export const formatPercent = (p: number): string => `${ONE_DECIMAL.format(p)}%`;
/** 18.2 → "+18.2%", -3 → "-3.0%", 0 → "0.0%". */
export const formatSignedPercent = (p: number): string => `${SIGNED.format(p)}%`;
/** 176.25 → "176.3". */
export const formatDecimal = (n: number): string => ONE_DECIMAL.format(n);

/** "DE" → "Germany"; anything that is not a region code (e.g. "<NULL>") stays as it is. */
export function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return code;
  try {
    return REGIONS.of(code) ?? code;
  } catch {
    return code;
  }
}

/** At most `max` characters, cut with an ellipsis. */
export const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
