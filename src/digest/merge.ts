/**
 * The "All products" data of a multi-product digest: ProductData summed over the products, so the total goes
 * through the very same figure computation as each product. A section is merged only when every product has it
 * (a total over the products that happened to answer would be wrong), and only when summing is exact: top-10 event
 * lists and product versions do not add up across products, so the total has neither.
 */
import { binLowerBound } from '../client/index.ts';
import { byActiveThenLabel, byCountThenKey } from './assemble.ts';
import type { Bin, CohortPoint, ExceptionGroup, ProductData, SegmentCount, WeekCounts } from './data.ts';

export const TOTAL_ID = 'total';

/** Sums `value` per key over lists; keys present in only some lists are kept (a missing bin counts 0). */
function sumBy<T>(lists: T[][], key: (t: T) => string, add: (a: T, b: T) => T): T[] {
  const out = new Map<string, T>();
  for (const list of lists)
    for (const item of list) {
      const k = key(item);
      const prev = out.get(k);
      out.set(k, prev === undefined ? item : add(prev, item));
    }
  return [...out.values()];
}

const mergeBins = (lists: Bin[][]): Bin[] =>
  sumBy(
    lists,
    (b) => b.label,
    (a, b) => ({ label: a.label, count: a.count + b.count }),
  ).sort((a, b) => binLowerBound(a.label) - binLowerBound(b.label));

const mergeSegments = (lists: SegmentCount[][]): SegmentCount[] =>
  sumBy(
    lists,
    (s) => s.label,
    (a, b) => ({ label: a.label, active: a.active + b.active }),
  ).sort(byActiveThenLabel);

const mergeExceptions = (lists: ExceptionGroup[][]): ExceptionGroup[] =>
  sumBy(
    lists,
    (g) => `${g.type}\n${g.message}`,
    (a, b) => ({ ...a, count: a.count + b.count }),
  ).sort(byCountThenKey);

/** Only the weeks (periods) every product reported: a sum missing a product's part would understate the total. */
function mergeWeekly(lists: WeekCounts[][]): WeekCounts[] {
  const common = lists.map((l) => new Set(l.map((w) => w.weekStart)));
  return sumBy(
    lists,
    (w) => w.weekStart,
    (a, b) => ({ weekStart: a.weekStart, new: a.new + b.new, active: a.active + b.active, lost: a.lost + b.lost }),
  )
    .filter((w) => common.every((s) => s.has(w.weekStart)))
    .sort((a, b) => (a.weekStart < b.weekStart ? -1 : 1));
}

function mergeCohort(lists: CohortPoint[][]): CohortPoint[] {
  const common = lists.map((l) => new Set(l.map((p) => p.period)));
  return sumBy(
    lists,
    (p) => String(p.period),
    (a, b) => ({ period: a.period, engaged: a.engaged + b.engaged, lost: a.lost + b.lost }),
  )
    .filter((p) => common.every((s) => s.has(p.period)))
    .sort((a, b) => a.period - b.period);
}

/** `pick` of every product, or undefined when any product lacks it. */
function all<P, T>(products: P[], pick: (p: P) => T | undefined): T[] | undefined {
  const out: T[] = [];
  for (const p of products) {
    const v = pick(p);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

export function mergeProducts(products: ProductData[]): ProductData {
  const total: ProductData = { productId: TOTAL_ID };
  const weekly = all(products, (p) => p.weekly);
  if (weekly) total.weekly = mergeWeekly(weekly);
  const cohort = all(products, (p) => p.cohort);
  if (cohort) total.cohort = mergeCohort(cohort);
  const hist = all(products, (p) => p.churnHistograms);
  if (hist) {
    total.churnHistograms = {};
    for (const key of ['days', 'sessions', 'runtime'] as const) {
      const lists = all(products, (p) => p.churnHistograms?.[key]);
      if (lists) total.churnHistograms[key] = mergeBins(lists);
    }
  }
  const usage = all(products, (p) => p.usage);
  if (usage)
    total.usage = {
      activeDays: mergeBins(usage.map((u) => u.activeDays)),
      sessions: mergeBins(usage.map((u) => u.sessions)),
      runtime: mergeBins(usage.map((u) => u.runtime)),
    };
  const countries = all(products, (p) => p.countries);
  if (countries)
    total.countries = {
      week: mergeSegments(countries.map((c) => c.week)),
      previousWeek: mergeSegments(countries.map((c) => c.previousWeek)),
    };
  const exceptions = all(products, (p) => p.exceptions);
  if (exceptions) {
    const previous = all(exceptions, (e) => e.previousWeek ?? undefined);
    const oldest = exceptions.map((e) => e.oldestLine).filter((d): d is string => d !== null);
    total.exceptions = {
      week: mergeExceptions(exceptions.map((e) => e.week)),
      previousWeek: previous ? mergeExceptions(previous) : null,
      coversWeek: exceptions.every((e) => e.coversWeek),
      // The latest of the products' oldest lines: from there on every product's lines are complete.
      oldestLine: oldest.length === 0 ? null : oldest.reduce((a, b) => (b > a ? b : a)),
    };
  }
  return total;
}
