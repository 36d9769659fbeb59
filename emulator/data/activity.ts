/**
 * Facts derived from the activity bitset. Sessions and runtime of an active day come from a stateless hash of
 * (client, day), so any range can be summed without storing per-day numbers, and every report sees the same values.
 */
import type { Day } from './dates.ts';
import type { ProductData } from './model.ts';
import { hash3 } from './rng.ts';

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

export function isActive(pd: ProductData, i: number, day: Day): boolean {
  const bit = day - pd.firstDay;
  if (bit < 0 || bit >= pd.words * 32) return false;
  return (((pd.activity[i * pd.words + (bit >>> 5)] ?? 0) >>> (bit & 31)) & 1) === 1;
}

/** Active days of client i in [from, to] (inclusive), by popcount over whole words. */
export function activeDaysBetween(pd: ProductData, i: number, from: Day, to: Day): number {
  let a = Math.max(from, pd.installDay[i] ?? 0) - pd.firstDay;
  const b = Math.min(to, pd.lastSeenDay[i] ?? 0) - pd.firstDay;
  if (b < a) return 0;
  if (a < 0) a = 0;
  const base = i * pd.words;
  const wa = a >>> 5;
  const wb = b >>> 5;
  const act = pd.activity;
  if (wa === wb) {
    const mask = ((0xffffffff >>> (31 - (b & 31))) & (0xffffffff << (a & 31))) >>> 0;
    return popcount((act[base + wa] ?? 0) & mask);
  }
  let n = popcount((act[base + wa] ?? 0) & ((0xffffffff << (a & 31)) >>> 0));
  for (let w = wa + 1; w < wb; w++) n += popcount(act[base + w] ?? 0);
  n += popcount((act[base + wb] ?? 0) & (0xffffffff >>> (31 - (b & 31))));
  return n;
}

/** True when client i has at least one active day in [from, to]. */
export function activeBetween(pd: ProductData, i: number, from: Day, to: Day): boolean {
  if ((pd.lastSeenDay[i] ?? 0) < from || (pd.installDay[i] ?? 0) > to) return false;
  return activeDaysBetween(pd, i, from, to) > 0;
}

/** Calls fn for each active day of client i in [from, to], ascending. */
export function forEachActiveDay(pd: ProductData, i: number, from: Day, to: Day, fn: (day: Day) => void): void {
  const a = Math.max(from, pd.installDay[i] ?? 0, pd.firstDay) - pd.firstDay;
  const b = Math.min(to, pd.lastSeenDay[i] ?? 0, pd.firstDay + pd.words * 32 - 1) - pd.firstDay;
  if (b < a) return;
  const base = i * pd.words;
  const wa = a >>> 5;
  const wb = b >>> 5;
  for (let w = wa; w <= wb; w++) {
    let word = pd.activity[base + w] ?? 0;
    if (w === wa) word &= 0xffffffff << (a & 31);
    if (w === wb) word &= 0xffffffff >>> (31 - (b & 31));
    while (word !== 0) {
      const low = word & -word;
      fn(pd.firstDay + w * 32 + (31 - Math.clz32(low)));
      word ^= low;
    }
  }
}

/** Sessions on an active day: 1 … sessionsCap. */
export function sessionsOn(pd: ProductData, i: number, day: Day): number {
  return 1 + (hash3(i, day, pd.seed) % (pd.sessionsCap[i] ?? 1));
}

/** Runtime minutes on an active day: 3–90 minutes per session. `sessions` saves recomputing sessionsOn. */
export function runtimeOn(pd: ProductData, i: number, day: Day, sessions = sessionsOn(pd, i, day)): number {
  return sessions * (3 + (hash3(day, i, pd.seed ^ 0x5bd1e995) % 88));
}

export interface UsageTotals {
  activeDays: number;
  sessions: number;
  runtimeMinutes: number;
}

/** Same values as summing sessionsOn/runtimeOn over forEachActiveDay, in one closure-free loop: data generation
 * calls it for every client (lifetime totals), where a per-client closure and object churn cost a large share. */
export function usageBetween(pd: ProductData, i: number, from: Day, to: Day): UsageTotals {
  const a = Math.max(from, pd.installDay[i] ?? 0, pd.firstDay) - pd.firstDay;
  const b = Math.min(to, pd.lastSeenDay[i] ?? 0, pd.firstDay + pd.words * 32 - 1) - pd.firstDay;
  let activeDays = 0;
  let sessions = 0;
  let runtimeMinutes = 0;
  if (b >= a) {
    const base = i * pd.words;
    const cap = pd.sessionsCap[i] ?? 1;
    const seed = pd.seed;
    const seed2 = seed ^ 0x5bd1e995;
    for (let w = a >>> 5; w <= b >>> 5; w++) {
      let word = pd.activity[base + w] ?? 0;
      if (w === a >>> 5) word &= 0xffffffff << (a & 31);
      if (w === b >>> 5) word &= 0xffffffff >>> (31 - (b & 31));
      while (word !== 0) {
        const low = word & -word;
        const day = pd.firstDay + w * 32 + (31 - Math.clz32(low));
        word ^= low;
        const s = 1 + (hash3(i, day, seed) % cap);
        activeDays++;
        sessions += s;
        runtimeMinutes += s * (3 + (hash3(day, i, seed2) % 88));
      }
    }
  }
  return { activeDays, sessions, runtimeMinutes };
}

/**
 * Occurrences of event e by client i in [from, to]: its per-day count times its active days there, plus what the
 * planted surge adds (surgeExtra).
 */
export function eventCountBetween(pd: ProductData, i: number, e: number, from: Day, to: Day): number {
  const perDay = pd.eventPerDay[i * pd.events.length + e] ?? 0;
  if (perDay === 0) return 0;
  return perDay * activeDaysBetween(pd, i, from, to) + (e === pd.surge?.event ? surgeExtra(pd, i, from, to) : 0);
}

/**
 * The occurrences the planted event surge (episodes.ts) adds to client i's count of the surging event in
 * [from, to]: `extra` more per occurrence on its active days within the surge. 0 without a surge, outside it, or
 * when the client does not use the event. Every count of that event adds this, so all reports see the surge.
 */
export function surgeExtra(pd: ProductData, i: number, from: Day, to: Day): number {
  const s = pd.surge;
  if (s === undefined) return 0;
  const a = Math.max(from, s.from);
  const b = Math.min(to, s.to);
  if (b < a) return 0;
  const perDay = pd.eventPerDay[i * pd.events.length + s.event] ?? 0;
  return perDay === 0 ? 0 : s.extra * perDay * activeDaysBetween(pd, i, a, b);
}

/** Client i's lifetime count of event e (what `lifetimeEventUsage` reports and filters on). */
export function lifetimeEventCount(pd: ProductData, i: number, e: number): number {
  const perDay = pd.eventPerDay[i * pd.events.length + e] ?? 0;
  if (perDay === 0) return 0;
  const surge = e === pd.surge?.event ? surgeExtra(pd, i, pd.firstDay, pd.today) : 0;
  return perDay * (pd.lifetimeActiveDays[i] ?? 0) + surge;
}

/**
 * The day a client last seen on `lastSeen` is reported lost (docs/interface.md "Generic reports"): with
 * `dateDeclaredLost` the declaration day (last seen + daysUntilDeclaredLost), with `dateLastSeen` the last-seen day —
 * in both cases only once the declaration day has been reached; undefined before that.
 */
export function reportedLossDay(
  lastSeen: Day,
  daysUntilDeclaredLost: number,
  dateReportedLost: 'dateLastSeen' | 'dateDeclaredLost',
  today: Day,
): Day | undefined {
  const declared = lastSeen + daysUntilDeclaredLost;
  if (declared > today) return undefined;
  return dateReportedLost === 'dateDeclaredLost' ? declared : lastSeen;
}

/** reportedLossDay of client i. */
export function lossReportDay(
  pd: ProductData,
  i: number,
  daysUntilDeclaredLost: number,
  dateReportedLost: 'dateLastSeen' | 'dateDeclaredLost',
  today: Day,
): Day | undefined {
  return reportedLossDay(pd.lastSeenDay[i] ?? 0, daysUntilDeclaredLost, dateReportedLost, today);
}
