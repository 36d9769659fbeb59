/**
 * Fixed integer bin sets of the usage distribution (`usageDistribution`) and the churn histograms
 * (`churnHistogramDays`, `churnHistogramRuntime`, `churnHistogramSessions`), labelled as docs/interface.md "Bins" says,
 * and the serializer that keeps bin-keyed objects in bin order on the wire.
 */

export interface BinSet {
  /** Labels in ascending bin order. */
  readonly labels: readonly string[];
  /** Bin of a non-negative integer value; values below the first bin count in it, values above the last in it. */
  indexOf(value: number): number;
}

export interface BinOptions {
  /** The first bin is open (`≤ hi`) instead of starting at `lows[0]`. */
  openFirst?: boolean;
  /** Inclusive top of the last bin; without it the last bin is open (`≥ lo`). */
  top?: number;
  /** Value as label text (plain integers by default). */
  format?: (value: number) => string;
}

/** Bins starting at each of the ascending integers `lows`; bin k covers `lows[k]` … `lows[k + 1] - 1`. */
export function integerBins(lows: readonly number[], opts: BinOptions = {}): BinSet {
  const fmt = opts.format ?? String;
  const last = lows.length - 1;
  const labels = lows.map((lo, k) => {
    const hi = k < last ? lows[k + 1]! - 1 : opts.top;
    if (k === 0 && opts.openFirst && hi !== undefined) return `≤ ${fmt(hi)}`;
    if (hi === undefined) return `≥ ${fmt(lo)}`;
    return lo === hi ? fmt(lo) : `${fmt(lo)} - ${fmt(hi)}`;
  });
  // One lookup table up to the last bin's start makes indexOf two array reads inside per-client loops.
  const table = new Uint32Array(lows[last]! + 1);
  for (let k = 1; k <= last; k++) table.fill(k, lows[k], k < last ? lows[k + 1] : table.length);
  return { labels, indexOf: (v) => (v >= table.length ? last : table[v]!) };
}

/** Minutes as `h:mm`: hours unpadded, minutes two digits (docs/interface.md "Bins"). */
export function formatMinutes(minutes: number): string {
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}

const runtimeBins = (lows: readonly number[]) => integerBins(lows, { openFirst: true, format: formatMinutes });

/** `usageDistribution` active days: one bin per day count, 1 … the number of days in the range. */
export function activeDayBins(daysInRange: number): BinSet {
  return integerBins(
    Array.from({ length: daysInRange }, (_, k) => k + 1),
    { top: daysInRange },
  );
}
/** `usageDistribution` sessions in the range: `≤ 1`, `2`, `3`, `4 - 5`, … `≥ 21`. */
export const USAGE_SESSION_BINS = integerBins([1, 2, 3, 4, 6, 9, 13, 21], { openFirst: true });
/** `usageDistribution` runtime in the range: `≤ 0:05`, `0:06 - 0:15`, … `≥ 5:01`. */
export const USAGE_RUNTIME_BINS = runtimeBins([0, 6, 16, 31, 61, 121, 301]);
/** Lifetime active days of lost clients (`churnHistogramDays`): `1`, `2`, `3 - 5`, … `≥ 366`. */
export const LOST_ACTIVE_DAY_BINS = integerBins([1, 2, 3, 6, 11, 31, 91, 181, 366]);
/** Lifetime runtime of lost clients (`churnHistogramRuntime`): `≤ 0:30`, `0:31 - 1:00`, … `≥ 100:01`. */
export const LOST_RUNTIME_BINS = runtimeBins([0, 31, 61, 121, 301, 601, 1501, 3001, 6001]);
/** Lifetime sessions of lost clients (`churnHistogramSessions`): `1`, `2 - 5`, … `≥ 501`. */
export const LOST_SESSION_BINS = integerBins([1, 2, 6, 11, 26, 51, 101, 251, 501]);

/** Bin label → count, in bin order; `counts[offset + k * stride]` is bin k (rows or columns of a flat cross-tab). */
export function binCounts(bins: BinSet, counts: ArrayLike<number>, offset = 0, stride = 1): Map<string, number> {
  return new Map(bins.labels.map((label, k) => [label, counts[offset + k * stride] ?? 0]));
}

/**
 * JSON text in which Maps become objects with keys in Map order. JSON.stringify of a plain object would hoist
 * integer-like keys (`"2"`, `"3"`) ahead of `"≤ 1"`; bins and sorted segments must keep their intended order
 * (docs/interface.md "Bins").
 */
export function orderedJson(value: unknown): string {
  if (value instanceof Map) {
    const members: string[] = [];
    for (const [k, v] of value) if (v !== undefined) members.push(`${JSON.stringify(String(k))}:${orderedJson(v)}`);
    return `{${members.join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : orderedJson(v))).join(',')}]`;
  if (typeof value === 'object' && value !== null) return orderedJson(new Map(Object.entries(value)));
  return JSON.stringify(value) ?? 'null';
}
