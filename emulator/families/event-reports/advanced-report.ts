/**
 * `advancedFullReport` (docs/interface.md "Event tracking reports"): per advanced event (and per segment), its
 * occurrences in the range over the clients active in the range, averages per session and per user, and how often users
 * used it.
 *
 * An event used by a client occurs on every active day of that client (eventPerDay > 0), so "sessions in which the
 * event occurred" are all sessions in the range of the clients that used it.
 */
import { surgeExtra, usageBetween } from '../../data/activity.ts';
import type { ProductData } from '../../data/model.ts';
import type { Handler } from '../../http/handler.ts';
import { dateRange, fail, type Json, optEnum } from '../../http/validate.ts';
import { parseSelectors } from '../../query/event-selectors.ts';
import { parseGlobalFilters } from '../../query/filters.ts';
import { binIndex, binSet } from './bins.ts';
import { ratio } from './numbers.ts';
import { activePopulation } from './population.ts';
import { parseSegmentBy } from './table-request.ts';

/** Buckets 1–22: 1, 2, 3, 4, 5, 6–7, 8–10, …, 2001–5000, ≥ 5001. */
const FREQUENCY = binSet(true, 1, [
  1,
  2,
  3,
  4,
  5,
  7,
  10,
  15,
  20,
  30,
  50,
  75,
  100,
  150,
  200,
  300,
  500,
  750,
  1000,
  2000,
  5000,
  Number.POSITIVE_INFINITY,
]);
const F = FREQUENCY.uppers.length;

/** The requested events (single form only), each of which must be collected as an advanced event. */
function advancedEvents(pd: ProductData, body: Json): number[] {
  return parseSelectors(pd, body, 'events', '', 'single').map((sel, k) => {
    const e = sel.events[0];
    // A product without the advanced tracking feature collects no advanced events at all.
    if (e === undefined || !pd.events[e]!.advanced || !pd.product.features.advancedEventTracking)
      fail(`events[${k}]`, 'not an advanced event of this product');
    return e;
  });
}

export const advancedFullReport: Handler = ({ pd, body }) => {
  const { startDay, stopDay } = dateRange(body);
  const events = advancedEvents(pd, body);
  const match = parseGlobalFilters(pd, body);
  const segmentation = parseSegmentBy(pd, body);
  const sort = optEnum(body, 'sort', ['alpha', 'eventCounts'] as const) ?? 'alpha';
  const direction = optEnum(body, 'sortDirection', ['asc', 'desc'] as const) ?? (sort === 'alpha' ? 'asc' : 'desc');

  const J = events.length;
  const slots = segmentation ? segmentation.labels.length : 1;
  const population = new Float64Array(slots);
  const popSessions = new Float64Array(slots);
  const count = new Float64Array(slots * J);
  const users = new Float64Array(slots * J);
  const usedSessions = new Float64Array(slots * J);
  const frequency = new Float64Array(slots * J * F);
  const E = pd.events.length;
  const surging = pd.surge?.event ?? -1;
  const ALL: readonly number[] = [0];

  for (const i of activePopulation(pd, match, startDay, stopDay)) {
    const { activeDays: days, sessions } = usageBetween(pd, i, startDay, stopDay);
    for (const s of segmentation ? segmentation.of(i) : ALL) {
      population[s]!++;
      popSessions[s]! += sessions;
      for (let j = 0; j < J; j++) {
        const e = events[j]!;
        let c = pd.eventPerDay[i * E + e]! * days;
        if (e === surging && c > 0) c += surgeExtra(pd, i, startDay, stopDay);
        if (c === 0) continue;
        const x = s * J + j;
        count[x]! += c;
        users[x]!++;
        usedSessions[x]! += sessions;
        frequency[x * F + binIndex(FREQUENCY, c)]!++;
      }
    }
  }

  const item = (s: number, j: number) => {
    const x = s * J + j;
    const e = pd.events[events[j]!]!;
    const usageFrequency: Record<string, number> = {};
    for (let b = 0; b < F; b++) usageFrequency[`interval${b + 1}`] = frequency[x * F + b]!;
    const data = {
      eventCounts: count[x]!,
      averageEventCountPerSessionUsedAtLeastOnce: ratio(count[x]!, usedSessions[x]!),
      averageEventCountPerSessionAll: ratio(count[x]!, popSessions[s]!),
      averageEventCountPerUserAtLeastOnce: ratio(count[x]!, users[x]!),
      averageEventCountPerUserAll: ratio(count[x]!, population[s]!),
      uniqueUsersUsedAtLeastOnce: users[x]!,
      uniqueUsersNeverUsed: population[s]! - users[x]!,
      usageFrequency,
    };
    return segmentation
      ? { category: e.category, name: e.name, segmentLabel: segmentation.labels[s]!, data }
      : { category: e.category, name: e.name, data };
  };

  const eventIndexes = events.map((_e, j) => j);
  if (!segmentation) return { result: { detailedReport: eventIndexes.map((j) => item(0, j)) } };
  const segmentTotal = (s: number) => eventIndexes.reduce((a, j) => a + count[s * J + j]!, 0);
  const order =
    sort === 'alpha' ? segmentation.order(undefined, direction) : segmentation.order(segmentTotal, direction);
  return { result: { detailedReport: order.flatMap((s) => eventIndexes.map((j) => item(s, j))) } };
};
