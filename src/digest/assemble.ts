/**
 * Call records → ProductData: reads the validated responses into the typed values the figures need. Pure; a
 * section whose call failed stays absent. A malformed period is dropped rather than read as 0, so the guard sees
 * the gap instead of a wrong number.
 */
import {
  binEntries,
  type ChurnAndEngagementResponse,
  type ChurnHistogramResponse,
  type DateRangeSegmentedSplitResponse,
  type DateRangeSplitResponse,
  type EventTable,
  type LastLinesResponse,
  type UsageDistributionResponse,
} from '../client/index.ts';
import { addDays, type IsoWeek } from '../core/calendar.ts';
import type {
  Bin,
  CallPurpose,
  CallRecord,
  CohortPoint,
  EventUse,
  ExceptionGroup,
  ExceptionWeeks,
  ProductData,
  SegmentCount,
  SegmentWeeks,
  WeekCounts,
} from './data.ts';

export function assembleProducts(productIds: readonly string[], week: IsoWeek, calls: CallRecord[]): ProductData[] {
  return productIds.map((productId) => {
    const responses = new Map<CallPurpose, unknown>();
    const requests = new Map<CallPurpose, Record<string, unknown>>();
    for (const c of calls) {
      if (c.productId !== productId || c.error) continue;
      responses.set(c.purpose, c.response);
      requests.set(c.purpose, c.request);
    }
    const got = <T>(purpose: CallPurpose) => responses.get(purpose) as T | undefined;
    const data: ProductData = { productId };

    const weekly = got<DateRangeSplitResponse>('weekly');
    if (weekly) data.weekly = readWeekly(weekly);
    const cohort = got<ChurnAndEngagementResponse>('cohort');
    if (cohort) data.cohort = readCohort(cohort);
    const histograms = {
      days: got<ChurnHistogramResponse>('churnDays'),
      sessions: got<ChurnHistogramResponse>('churnSessions'),
      runtime: got<ChurnHistogramResponse>('churnRuntime'),
    };
    if (histograms.days || histograms.sessions || histograms.runtime) {
      data.churnHistograms = {};
      for (const key of ['days', 'sessions', 'runtime'] as const) {
        const h = histograms[key];
        if (h) data.churnHistograms[key] = binEntries(h.result).map(([label, count]) => ({ label, count }));
      }
    }
    const usage = got<UsageDistributionResponse>('usage');
    if (usage) data.usage = readUsage(usage);
    const events = got<EventTable>('topEvents');
    if (events) data.topEvents = readEvents(events);
    const versions = got<DateRangeSegmentedSplitResponse>('versions');
    if (versions) data.versions = readSegmentWeeks(versions, week);
    const countries = got<DateRangeSegmentedSplitResponse>('countries');
    if (countries) data.countries = readSegmentWeeks(countries, week);
    const exceptions = got<LastLinesResponse>('exceptions');
    if (exceptions) {
      const lineCount = Number(requests.get('exceptions')?.lineCount ?? Number.POSITIVE_INFINITY);
      data.exceptions = readExceptions(exceptions, week, lineCount);
    }
    return data;
  });
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
const byDateKey = <T>(record: Record<string, T>): [string, T][] =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function readWeekly(res: DateRangeSplitResponse): WeekCounts[] {
  return byDateKey(res.result).flatMap(([weekStart, c]) =>
    isCount(c.new) && isCount(c.active) && isCount(c.lost)
      ? [{ weekStart, new: c.new, active: c.active, lost: c.lost }]
      : [],
  );
}

function readCohort(res: ChurnAndEngagementResponse): CohortPoint[] {
  // Without segmentBy the service answers one segment ("all").
  const periods = res.result.all ?? Object.values(res.result)[0] ?? {};
  return Object.entries(periods)
    .map(([n, p]) => ({ period: Number(n), engaged: p.engaged, lost: p.lost }))
    .filter((p) => Number.isInteger(p.period))
    .sort((a, b) => a.period - b.period);
}

const usersPerBin = (bins: Record<string, { users?: number | undefined }>): Bin[] =>
  binEntries(bins).map(([label, b]) => ({ label, count: b.users ?? 0 }));

function readUsage(res: UsageDistributionResponse): NonNullable<ProductData['usage']> {
  return {
    activeDays: usersPerBin(res.result.activeDays),
    sessions: usersPerBin(res.result.sessions),
    runtime: usersPerBin(res.result.runtime),
  };
}

function readEvents(res: EventTable): EventUse[] {
  return res.result
    .map((r) => ({
      category: r.eventCategory,
      name: r.eventName,
      count: r.eventCount,
      users: r.uniqueUsersUsedAtLeastOnce ?? null,
    }))
    .sort((a, b) => b.count - a.count); // stable: ties keep the service's order
}

export const byActiveThenLabel = (a: SegmentCount, b: SegmentCount): number =>
  b.active - a.active || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);

function readSegmentWeeks(res: DateRangeSegmentedSplitResponse, week: IsoWeek): SegmentWeeks {
  const of = (weekStart: string): SegmentCount[] =>
    Object.entries(res.result[weekStart] ?? {})
      .flatMap(([label, c]) => (isCount(c.active) ? [{ label, active: c.active }] : []))
      .sort(byActiveThenLabel);
  return { week: of(week.start), previousWeek: of(addDays(week.start, -7)) };
}

/** Digit runs vary between occurrences of one error ("item 86", "after 25s"); they do not make a new kind. */
export const exceptionMessageKey = (message: string): string => message.replace(/\d+/g, 'N');

export const byCountThenKey = (a: ExceptionGroup, b: ExceptionGroup): number =>
  b.count - a.count || `${a.type}\n${a.message}`.localeCompare(`${b.type}\n${b.message}`, 'en');

function groupExceptions(lines: Record<string, string>[], from: string, to: string): ExceptionGroup[] {
  const groups = new Map<string, ExceptionGroup>();
  for (const line of lines) {
    const day = (line.timestamp ?? '').slice(0, 10);
    if (day < from || day > to) continue;
    const type = line['exception.type'] ?? '';
    const message = exceptionMessageKey(line['exception.message'] ?? '');
    const key = `${type}\n${message}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { type, message, count: 1 });
  }
  return [...groups.values()].sort(byCountThenKey);
}

function readExceptions(res: LastLinesResponse, week: IsoWeek, lineCount: number): ExceptionWeeks {
  const days = res.result.map((l) => (l.timestamp ?? '').slice(0, 10)).filter((d) => d !== '');
  const oldestLine = days.reduce<string | null>((min, d) => (min === null || d < min ? d : min), null);
  // Fewer lines than asked for: that is every line there is. Otherwise the oldest day may be cut short.
  const covers = (from: string) => res.result.length < lineCount || (oldestLine !== null && oldestLine < from);
  const previousStart = addDays(week.start, -7);
  return {
    week: groupExceptions(res.result, week.start, week.stop),
    previousWeek: covers(previousStart) ? groupExceptions(res.result, previousStart, addDays(week.start, -1)) : null,
    coversWeek: covers(week.start),
    oldestLine,
  };
}
