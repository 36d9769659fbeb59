/**
 * The one pass behind the lifetime reports (`lifetimeHistogram`, `lifetimeDataTable` and their churn twins): per unit
 * (and per segment the unit's clients fall in), its lifetime active days, optionally active weeks and months, and its
 * occurrence count of every series.
 *
 * A client's lifetime count of event e is `eventPerDay × lifetime active days`, plus the planted surge's extra
 * occurrences for the surging event (as eventCountBetween computes it); the pass takes the active days once per
 * client instead of once per event. With segments, a unit is split into one sub-unit per segment, made of the unit's
 * clients in that segment (segments may overlap).
 */
import { activeDaysBetween, surgeExtra } from '../../data/activity.ts';
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import type { Segmentation } from '../../query/segments.ts';
import { ActivePeriodCounter } from './active-periods.ts';
import type { Units } from './units.ts';

/** Offsets inside a slot of the data handed to a visitor. */
export const DAYS = 0;
export const WEEKS = 1;
export const MONTHS = 2;
export const COUNTS = 3;

/**
 * Called once per unit with `seg = -1` (the whole unit) and once per segment id its clients fall in. The unit's
 * values are `data[off + DAYS]`, `data[off + WEEKS]`, `data[off + MONTHS]` and `data[off + COUNTS + k]` for
 * series k. The array is reused: read it during the call only.
 */
export type UnitVisitor = (seg: number, data: Float64Array, off: number) => void;

export interface LifetimePassOptions {
  /** Last day of every lifetime. */
  end: Day;
  /** Event indexes per series; a series counts the sum of its events. */
  series: readonly (readonly number[])[];
  /** Also count active weeks and months (histograms only; it costs a walk over the active days). */
  periods: boolean;
  segmentation?: Segmentation | undefined;
}

export function lifetimePass(pd: ProductData, units: Units, opts: LifetimePassOptions, visit: UnitVisitor): void {
  const { end, series, segmentation } = opts;
  const K = series.length;
  const width = COUNTS + K;
  const slots = 1 + (segmentation?.labels.length ?? 0);
  const data = new Float64Array(slots * width);
  const touched = new Int32Array(slots);
  const isTouched = new Uint8Array(slots);
  const perClient = new Float64Array(width);
  const periods = opts.periods ? new ActivePeriodCounter(pd, end) : undefined;
  const E = pd.events.length;
  const perDay = pd.eventPerDay;
  const flat = series.map((s) => Int32Array.from(s));
  const surging = series.map((s) => pd.surge !== undefined && s.includes(pd.surge.event));
  const { members, starts } = units;

  let nTouched = 0;
  const add = (slot: number): void => {
    if (isTouched[slot] === 0) {
      isTouched[slot] = 1;
      touched[nTouched++] = slot;
    }
    const off = slot * width;
    for (let x = 0; x < width; x++) data[off + x]! += perClient[x]!;
  };

  for (let u = 0; u < units.count; u++) {
    nTouched = 0;
    for (let m = starts[u]!; m < starts[u + 1]!; m++) {
      const i = members[m]!;
      const days = activeDaysBetween(pd, i, pd.firstDay, end);
      perClient[DAYS] = days;
      if (periods) {
        periods.count(i);
        perClient[WEEKS] = periods.weeks;
        perClient[MONTHS] = periods.months;
      }
      const row = i * E;
      let surge = -1; // the client's extra occurrences of the surging event, computed once when a series needs it
      for (let k = 0; k < K; k++) {
        const events = flat[k]!;
        let c = 0;
        for (let x = 0; x < events.length; x++) c += perDay[row + events[x]!]!;
        perClient[COUNTS + k] = c * days;
        if (surging[k] && c > 0) {
          if (surge < 0) surge = surgeExtra(pd, i, pd.firstDay, end);
          perClient[COUNTS + k]! += surge;
        }
      }
      add(0);
      if (segmentation) for (const s of segmentation.of(i)) add(s + 1);
    }
    for (let t = 0; t < nTouched; t++) {
      const slot = touched[t]!;
      const off = slot * width;
      visit(slot - 1, data, off);
      data.fill(0, off, off + width);
      isTouched[slot] = 0;
    }
  }
}
