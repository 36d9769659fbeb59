/**
 * `basicTimeline` (docs/interface.md "Event tracking reports"): per period of the range and per selector, the
 * occurrences (or the sum of the numeric custom values they carry), optionally divided by the period's active users,
 * sessions, runtime hours or occurrences. No filters: every client counts.
 */
import { surgeExtra } from '../../data/activity.ts';
import { formatDay, periodsOf } from '../../data/dates.ts';
import type { Handler } from '../../http/handler.ts';
import { dateRange, fail, optEnum, reqEnum } from '../../http/validate.ts';
import { parseSelectors } from '../../query/event-selectors.ts';
import { ratio, round2 } from './numbers.ts';
import { PeriodActivity } from './period-activity.ts';

export const basicTimeline: Handler = ({ pd, body }) => {
  const { startDay, stopDay } = dateRange(body);
  const split = reqEnum(body, 'dateSplit', ['day', 'week', 'month'] as const);
  const dataView = reqEnum(body, 'dataView', ['usageCounts', 'customValues'] as const);
  const divisor = optEnum(body, 'divisor', ['users', 'sessions', 'runtime', 'usageCounts'] as const);
  if (divisor === 'usageCounts' && dataView === 'usageCounts')
    fail('divisor', 'usageCounts is allowed only with dataView customValues');
  const selectors = parseSelectors(pd, body, 'events');

  const periods = periodsOf(startDay, stopDay, split);
  const P = periods.length;
  const K = selectors.length;
  const counts = new Float64Array(P * K);
  const values = new Float64Array(P * K);
  const users = new Float64Array(P);
  const sessions = new Float64Array(P);
  const runtimeMinutes = new Float64Array(P);
  const perDay = new Float64Array(K);
  const valuePerDay = new Float64Array(K);
  const usage = divisor === 'sessions' || divisor === 'runtime';
  const activity = new PeriodActivity(pd, periods, split === 'day', usage);
  const E = pd.events.length;
  const cv = pd.events.map((e) => e.customValue ?? 0);
  const series = selectors.map((s) => Int32Array.from(s.events));
  const surge = pd.surge;
  // Series holding the surging event, and the periods overlapping its surge: only there surgeExtra adds anything.
  const surging = series.map((events) => surge !== undefined && events.includes(surge.event));
  const counted = surging.includes(true);
  const overlaps = (p: { from: number; to: number }) => counted && p.to >= surge!.from && p.from <= surge!.to;
  const surgeFrom = periods.findIndex(overlaps);
  const surgeTo = periods.findLastIndex(overlaps);

  for (let i = 0; i < pd.n; i++) {
    let uses = false;
    for (let k = 0; k < K; k++) {
      let c = 0;
      let v = 0;
      const events = series[k]!;
      for (let x = 0; x < events.length; x++) {
        const e = events[x]!;
        const n = pd.eventPerDay[i * E + e]!;
        c += n;
        v += n * cv[e]!;
      }
      perDay[k] = c;
      valuePerDay[k] = v;
      if (c > 0) uses = true;
    }
    // Users, sessions and runtime count every client; occurrences only clients that used a series.
    if (!uses && divisor !== 'users' && !usage) continue;
    if (!activity.measure(i)) continue;
    for (let t = 0; t < activity.count; t++) {
      const p = activity.touched[t]!;
      const days = activity.days[p]!;
      users[p]!++;
      sessions[p]! += activity.sessions[p]!;
      runtimeMinutes[p]! += activity.runtimeMinutes[p]!;
      for (let k = 0; k < K; k++) {
        counts[p * K + k]! += perDay[k]! * days;
        values[p * K + k]! += valuePerDay[k]! * days;
      }
      if (p >= surgeFrom && p <= surgeTo) addSurge(i, p);
    }
  }

  function addSurge(i: number, p: number): void {
    const extra = surgeExtra(pd, i, periods[p]!.from, periods[p]!.to);
    if (extra === 0) return;
    for (let k = 0; k < K; k++) {
      if (!surging[k]) continue;
      counts[p * K + k]! += extra;
      values[p * K + k]! += extra * cv[surge!.event]!;
    }
  }

  const valueAt = (p: number, k: number): number => {
    const x = dataView === 'usageCounts' ? counts[p * K + k]! : values[p * K + k]!;
    switch (divisor) {
      case 'users':
        return ratio(x, users[p]!);
      case 'sessions':
        return ratio(x, sessions[p]!);
      case 'runtime':
        return ratio(x, runtimeMinutes[p]! / 60);
      case 'usageCounts':
        return ratio(x, counts[p * K + k]!);
      default:
        return dataView === 'usageCounts' ? x : round2(x);
    }
  };
  const result: Record<string, unknown[]> = {};
  periods.forEach((period, p) => {
    result[formatDay(period.start)] = selectors.map((sel, k) => ({ ...sel.key, value: valueAt(p, k) }));
  });
  return { result };
};
