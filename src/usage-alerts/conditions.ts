/**
 * A rule's condition on one period's figure, given the figures before it: a threshold, a change against the period
 * before, or a deviation from the trailing baseline (median ± k × MAD, the MAD scaled by 1.4826 so k reads as
 * standard deviations of normal data: robust to a one-off spike in the baseline, which a mean and σ are not). Under
 * the rule's minimum volume, or without the periods a comparison needs, a period is not judged (`undetermined`).
 */
import type { UsageCondition } from '../config/usage-alerts-schema.ts';

/** One period's figure and the volume it rests on (clients, events, or the active clients a share is of). */
export interface Point {
  period: string;
  value: number;
  volume: number;
  /** A segment value not among the rule's `segment.limit` largest in this period: kept as history, not judged. */
  outsideLimit?: true;
  /**
   * Why the period has no figure (no exception file covers one of its days, the answer lacks the rule's bin): it is
   * not judged, and a condition that needs it as history waits. Its `value` and `volume` are 0, standing in.
   */
  missing?: string;
}

export type Verdict =
  | {
      state: 'firing' | 'ok';
      value: number;
      /** The range in which the figure raises nothing; an open side is null. */
      expected: { low: number | null; high: number | null };
      /** The baseline's median (deviation) or the period before's figure (change). */
      reference?: number;
      /** What the figure did, in words: "38 % below the period before", "6.2 MADs above the median". */
      reason: string;
    }
  | { state: 'undetermined'; value: number | null; reason: string };

/** MAD → σ for normally distributed data. */
export const MAD_SCALE = 1.4826;

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median absolute deviation from the median. */
export const mad = (values: readonly number[]): number => {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
};

/**
 * Judges `current` against `history` (the periods before it, oldest first, consecutive). `minVolume` is checked on
 * the current period only: a quiet week before a busy one is still a fine reference.
 */
export function judge(
  condition: UsageCondition,
  current: Point,
  history: readonly Point[],
  minVolume: number,
  /** The figure's smallest step: 1 for a count, 0.1 for a share in % (rounded to one decimal). */
  resolution = 1,
): Verdict {
  if (current.missing !== undefined) return { state: 'undetermined', value: null, reason: current.missing };
  if (current.outsideLimit)
    return { state: 'undetermined', value: current.value, reason: 'not among the segment values judged this period' };
  if (current.volume < minVolume)
    return { state: 'undetermined', value: current.value, reason: `volume ${current.volume} is under ${minVolume}` };
  switch (condition.kind) {
    case 'threshold':
      return threshold(condition, current.value);
    case 'change':
      return change(condition, current.value, history.at(-1));
    case 'deviation':
      return deviation(condition, current.value, history, resolution);
  }
}

function threshold(c: Extract<UsageCondition, { kind: 'threshold' }>, value: number): Verdict {
  const expected = { low: c.below ?? null, high: c.above ?? null };
  if (c.above !== undefined && value > c.above)
    return { state: 'firing', value, expected, reason: `${fmt(value)} is above ${fmt(c.above)}` };
  if (c.below !== undefined && value < c.below)
    return { state: 'firing', value, expected, reason: `${fmt(value)} is below ${fmt(c.below)}` };
  return { state: 'ok', value, expected, reason: `${fmt(value)} is within the threshold` };
}

function change(c: Extract<UsageCondition, { kind: 'change' }>, value: number, before: Point | undefined): Verdict {
  if (before === undefined) return { state: 'undetermined', value, reason: 'no period before to compare with' };
  if (before.missing !== undefined)
    return { state: 'undetermined', value, reason: `the period before has no figure: ${before.missing}` };
  const ref = before.value;
  const factor = c.percent / 100;
  const expected = {
    low: c.direction === 'up' ? null : ref * (1 - factor),
    high: c.direction === 'down' ? null : ref * (1 + factor),
  };
  if (ref === 0) {
    // From nothing any rise is infinite: it fires upwards when there is a figure at all.
    const rose = value > 0 && c.direction !== 'down';
    return {
      state: rose ? 'firing' : 'ok',
      value,
      expected,
      reference: ref,
      reason: rose ? `${fmt(value)}, up from 0` : `${fmt(value)}, as the period before`,
    };
  }
  const pct = ((value - ref) / ref) * 100;
  const moved = (c.direction !== 'down' && pct >= c.percent) || (c.direction !== 'up' && pct <= -c.percent);
  const words = `${fmt(Math.abs(pct))} % ${pct >= 0 ? 'above' : 'below'} the period before (${fmt(ref)})`;
  return { state: moved ? 'firing' : 'ok', value, expected, reference: ref, reason: words };
}

function deviation(
  c: Extract<UsageCondition, { kind: 'deviation' }>,
  value: number,
  history: readonly Point[],
  resolution: number,
): Verdict {
  // A baseline period without a figure is left out, so the baseline is short and waits: a stand-in 0 would drag it.
  const base = history
    .slice(-c.baselinePeriods)
    .filter((p) => p.missing === undefined)
    .map((p) => p.value);
  if (base.length < c.baselinePeriods)
    return { state: 'undetermined', value, reason: `${base.length} of ${c.baselinePeriods} baseline periods` };
  const m = median(base);
  // A flat baseline has no spread: any move off it would be infinitely many MADs. One step of the figure (or 1 % of
  // the median, if larger) stands in, so a count of 100 every day does not fire on 101.
  const spread = Math.max(mad(base) * MAD_SCALE, resolution, Math.abs(m) * 0.01);
  const expected = {
    low: c.direction === 'up' ? null : m - c.k * spread,
    high: c.direction === 'down' ? null : m + c.k * spread,
  };
  const z = (value - m) / spread;
  const out = (c.direction !== 'down' && z > c.k) || (c.direction !== 'up' && z < -c.k);
  const words = `${fmt(Math.abs(z))} × the spread ${z >= 0 ? 'above' : 'below'} the median of ${base.length} periods (${fmt(m)})`;
  return { state: out ? 'firing' : 'ok', value, expected, reference: m, reason: words };
}

const fmt = (n: number): string => (Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(1));
