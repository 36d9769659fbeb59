/**
 * Histogram bins of the lifetime histograms `lifetimeHistogram`/`churnLifetimeHistogram` and the usageFrequency buckets
 * of `advancedFullReport` (docs/interface.md "Event tracking reports"): default bounds, validation of
 * `lowerBounds`/`binUpperBounds`, bin labels (docs/interface.md "Bins") and value → bin lookup.
 *
 * Integer bins cover `(previous, upper]` (the first one `[lower, upper]`); decimal bins cover `[previous, upper)`
 * (the first one `[lower, upper)`). Values below the lower bound, or above the last bound when it is not "inf",
 * fall in no bin.
 */
import { asObject, at, fail, type Json, optArray, optInt, optNumber } from '../../http/validate.ts';

export const HISTOGRAM_METRICS = [
  'eventCount',
  'averageCountPerActiveDay',
  'averageCountPerActiveWeek',
  'averageCountPerActiveMonth',
] as const;
export type HistogramMetric = (typeof HISTOGRAM_METRICS)[number];

export interface BinSet {
  integer: boolean;
  lower: number;
  /** Ascending upper edges; Infinity stands for "inf". */
  uppers: number[];
  labels: string[];
}

const INF = Number.POSITIVE_INFINITY;
const DEFAULTS: Record<HistogramMetric, { lower: number; uppers: number[] }> = {
  eventCount: { lower: 1, uppers: [1, 2, 4, 8, 16, 32, INF] },
  averageCountPerActiveDay: { lower: 0, uppers: [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 10, 50, 100, INF] },
  averageCountPerActiveWeek: { lower: 0, uppers: [0.5, 1, 2, 5, 10, 20, 50, 100, INF] },
  averageCountPerActiveMonth: { lower: 0, uppers: [1, 2, 5, 10, 20, 50, 100, 200, INF] },
};

/** A decimal edge as text: at least 1, at most 2 decimals (`0.0`, `0.25`, `10.0`). */
export function decimalText(x: number): string {
  const hundredths = Math.round(x * 100);
  return (hundredths / 100).toFixed(hundredths % 10 === 0 ? 1 : 2);
}

export function binSet(integer: boolean, lower: number, uppers: number[]): BinSet {
  const labels = uppers.map((hi, k) => {
    if (integer) {
      const lo = k === 0 ? lower : uppers[k - 1]! + 1;
      if (hi === INF) return `≥ ${lo}`;
      return lo === hi ? String(hi) : `${lo} - ${hi}`;
    }
    const lo = k === 0 ? lower : uppers[k - 1]!;
    return hi === INF ? `≥ ${decimalText(lo)}` : `${decimalText(lo)} - ${decimalText(hi)}`;
  });
  return { integer, lower, uppers, labels };
}

/** Index of the bin holding v, or -1. */
export function binIndex(set: BinSet, v: number): number {
  if (v < set.lower) return -1;
  const u = set.uppers;
  if (set.integer) {
    for (let k = 0; k < u.length; k++) if (v <= u[k]!) return k;
  } else {
    for (let k = 0; k < u.length; k++) if (v < u[k]!) return k;
  }
  return -1;
}

function assertTwoDecimals(v: number, path: string): void {
  if (Math.abs(v * 100 - Math.round(v * 100)) > 1e-6) fail(path, 'must have at most 2 decimal places');
}

function readUppers(items: unknown[], path: string, integer: boolean): number[] {
  const kind = integer ? 'an integer' : 'a number';
  return items.map((v, k) => {
    const p = at(path, k);
    if (v === 'inf') {
      if (k !== items.length - 1) fail(p, '"inf" is allowed only as the last item');
      return INF;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
      fail(p, `must be ${kind} or "inf"`);
    if (!integer) assertTwoDecimals(v, p);
    if (k > 0 && v <= (items[k - 1] as number)) fail(p, 'must be greater than the previous bound (bounds ascend)');
    return v;
  });
}

export type BinSets = Record<HistogramMetric, BinSet>;

/** The four bin sets of a histogram request: defaults, replaced member by member by the request's bounds. */
export function parseBinSets(body: Json): BinSets {
  const lowers = body.lowerBounds == null ? {} : asObject(body.lowerBounds, 'lowerBounds');
  const uppers = body.binUpperBounds == null ? {} : asObject(body.binUpperBounds, 'binUpperBounds');
  const out = {} as BinSets;
  for (const metric of HISTOGRAM_METRICS) {
    const integer = metric === 'eventCount';
    const lowerPath = at('lowerBounds', metric);
    const lowerGiven = integer
      ? optInt(lowers, metric, 'lowerBounds', { min: 1 })
      : optNumber(lowers, metric, 'lowerBounds', { min: 0 });
    if (lowerGiven !== undefined && !integer) assertTwoDecimals(lowerGiven, lowerPath);
    const upperPath = at('binUpperBounds', metric);
    const items = optArray(uppers, metric, 'binUpperBounds', { min: 1 });
    const lower = lowerGiven ?? DEFAULTS[metric].lower;
    const edges = items ? readUppers(items, upperPath, integer) : DEFAULTS[metric].uppers;
    const first = edges[0]!;
    if (lower > first) {
      if (lowerGiven !== undefined) fail(lowerPath, `must not be above the first upper bound (${first})`);
      fail(at(upperPath, 0), `must not be below the lower bound (${lower})`);
    }
    out[metric] = binSet(integer, lower, edges);
  }
  return out;
}
