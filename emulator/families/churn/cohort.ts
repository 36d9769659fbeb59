/**
 * `churnAndEngagement` (docs/interface.md "Churn reports"): the clients installed in [startDate, stopDate] followed
 * period by period after their own install day. At period n a client counts once install + n periods ≤ today; it is
 * `lost` there when it was declared lost (last seen + daysUntilDeclaredLost) on or before install + n periods,
 * `engaged` otherwise.
 */
import { addPeriods, type DateSplit, type Day } from '../../data/dates.ts';
import type { Handler } from '../../http/handler.ts';
import { dateRange, reqEnum, reqInt } from '../../http/validate.ts';
import { orderedJson } from '../../query/bins.ts';
import { parseGlobalFilters } from '../../query/filters.ts';
import { parseCohortSegments } from './cohort-segments.ts';

const SPLITS: readonly DateSplit[] = ['day', 'week', 'month'];

/** install + n periods for n = 0, 1, … while that day ≤ today and n ≤ maxN. */
function boundariesFrom(install: Day, today: Day, split: DateSplit, maxN: number): Int32Array {
  const out: number[] = [];
  for (let n = 0; n <= maxN; n++) {
    const day = addPeriods(install, n, split);
    if (day > today) break;
    out.push(day);
  }
  return Int32Array.from(out);
}

/** First index whose boundary is ≥ day (the array's length when none is). */
function firstReaching(boundaries: Int32Array, day: Day): number {
  let lo = 0;
  let hi = boundaries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (boundaries[mid]! < day) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const percent = (part: number, whole: number): number => (whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10);

export const churnAndEngagement: Handler = ({ pd, body, today }) => {
  const { startDay, stopDay } = dateRange(body);
  const daysUntilDeclaredLost = reqInt(body, 'daysUntilDeclaredLost', '', { min: 1 });
  const split = reqEnum(body, 'dateSplit', SPLITS);
  const matches = parseGlobalFilters(pd, body);
  const lastInstall = Math.min(stopDay, today);
  const segments = parseCohortSegments(pd, body, startDay, lastInstall);

  // Keys "0" … maxN: the whole periods from startDate to today (none when startDate is after today).
  const maxN = boundariesFrom(startDay, today, split, Number.POSITIVE_INFINITY).length - 1;
  const width = maxN + 2;
  // Per segment, difference arrays over n: a client adds +1 from its first to its last counted period.
  const counted = new Int32Array(segments.labels.length * width);
  const lost = new Int32Array(segments.labels.length * width);
  // Period boundaries depend only on the install day: computed once per distinct day, not per client.
  const byInstallDay: (Int32Array | undefined)[] = new Array(Math.max(0, lastInstall - startDay + 1));
  const { installDay, lastSeenDay } = pd;

  for (let i = 0; i < pd.n; i++) {
    const install = installDay[i]!;
    if (install < startDay || install > lastInstall || !matches(i)) continue;
    let boundaries = byInstallDay[install - startDay];
    if (!boundaries) {
      boundaries = boundariesFrom(install, today, split, maxN);
      byInstallDay[install - startDay] = boundaries;
    }
    const end = boundaries.length; // counted in periods 0 … end - 1
    const lostFrom = firstReaching(boundaries, lastSeenDay[i]! + daysUntilDeclaredLost);
    for (const s of segments.of(i)) {
      const row = s * width;
      counted[row]!++;
      counted[row + end]!--;
      if (lostFrom < end) {
        lost[row + lostFrom]!++;
        lost[row + end]!--;
      }
    }
  }

  const result = new Map<string, Map<string, object>>();
  for (const s of segments.order()) {
    const periods = new Map<string, object>();
    let inPeriod = 0;
    let lostInPeriod = 0;
    for (let n = 0; n <= maxN; n++) {
      inPeriod += counted[s * width + n]!;
      lostInPeriod += lost[s * width + n]!;
      const engaged = inPeriod - lostInPeriod;
      periods.set(String(n), {
        engaged,
        engagedPercent: percent(engaged, inPeriod),
        lost: lostInPeriod,
        lostPercent: percent(lostInPeriod, inPeriod),
      });
    }
    result.set(segments.labels[s]!, periods);
  }
  return orderedJson({ result });
};
