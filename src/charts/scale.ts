/**
 * The value axis: a "nice" domain (steps of 1, 2, 2.5 or 5 × 10^k) so gridlines fall on round numbers the reader can
 * infer from the exact values in the table next to the chart, and a linear map from values to device pixels.
 */
export interface NiceDomain {
  lo: number;
  hi: number;
  /** Gridline values from lo to hi inclusive. */
  ticks: number[];
}

const TARGET_INTERVALS = 4;

function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const f = raw / magnitude;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * magnitude;
}

/** The domain of `values`; with `includeZero` it always contains 0 (bars must start at zero to be honest). */
export function niceDomain(values: readonly number[], includeZero: boolean): NiceDomain {
  let min = includeZero ? 0 : Number.POSITIVE_INFINITY;
  let max = includeZero ? 0 : Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) [min, max] = [0, 0]; // no values
  if (min === max) {
    // One distinct value (with includeZero that value is 0): give it room around it, 0 alone → 0–1.
    const pad = Math.abs(min) / 4;
    if (min === 0) max = 1;
    else [min, max] = [min - pad, max + pad];
  }
  const step = niceStep((max - min) / TARGET_INTERVALS);
  const first = Math.floor(min / step);
  const last = Math.ceil(max / step);
  // Ticks as integer multiples of the step, so float error never accumulates.
  const ticks = Array.from({ length: last - first + 1 }, (_, k) => (first + k) * step);
  return { lo: ticks[0]!, hi: ticks.at(-1)!, ticks };
}

/** Maps a value of [lo, hi] to a pixel of [from, to] (either direction; y axes run from bottom to top). */
export function linear(domain: NiceDomain, from: number, to: number): (v: number) => number {
  const k = (to - from) / (domain.hi - domain.lo);
  return (v) => from + (v - domain.lo) * k;
}
