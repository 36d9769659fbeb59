/**
 * Calendar arithmetic on UTC day numbers (days since 1970-01-01). Every date in the emulator is a day number;
 * strings exist only at the HTTP edge, so reports never parse dates in hot loops.
 */
export type Day = number;
export type DateSplit = 'day' | 'week' | 'month';

const MS_PER_DAY = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a strict `YYYY-MM-DD` calendar date; returns undefined for anything else (including 2026-02-30). */
export function parseDay(text: string): Day | undefined {
  const m = DATE_RE.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return ms / MS_PER_DAY;
}

export function formatDay(day: Day): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

export function dayOfMs(ms: number): Day {
  return Math.floor(ms / MS_PER_DAY);
}

export function msOfDay(day: Day): number {
  return day * MS_PER_DAY;
}

/** `YYYY-MM-DDTHH:MM:SS`, UTC, no offset (docs/interface.md "Dates, weeks and time zones"). */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** ISO weekday, Monday = 0. 1970-01-01 was a Thursday. */
function weekdayMonday0(day: Day): number {
  return (((day + 3) % 7) + 7) % 7;
}

export function monthStart(day: Day): Day {
  const d = new Date(day * MS_PER_DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / MS_PER_DAY;
}

export function addMonths(day: Day, months: number): Day {
  const d = new Date(day * MS_PER_DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate()) / MS_PER_DAY;
}

/** First day of the calendar period holding `day`: the day, the Monday of its ISO week, or the 1st of its month. */
export function periodStart(day: Day, split: DateSplit): Day {
  if (split === 'day') return day;
  if (split === 'week') return day - weekdayMonday0(day);
  return monthStart(day);
}

export function nextPeriodStart(start: Day, split: DateSplit): Day {
  if (split === 'day') return start + 1;
  if (split === 'week') return start + 7;
  return addMonths(start, 1);
}

/** Every period that overlaps [startDay, stopDay], as `{ start, from, to }` with from/to clipped to the range. */
export function periodsOf(startDay: Day, stopDay: Day, split: DateSplit): { start: Day; from: Day; to: Day }[] {
  const out: { start: Day; from: Day; to: Day }[] = [];
  for (let p = periodStart(startDay, split); p <= stopDay; p = nextPeriodStart(p, split)) {
    const next = nextPeriodStart(p, split);
    out.push({ start: p, from: Math.max(p, startDay), to: Math.min(next - 1, stopDay) });
  }
  return out;
}

/** Whole periods between two days (used for "periods since install"). */
export function periodsBetween(from: Day, to: Day, split: DateSplit): number {
  if (to < from) return -1;
  if (split === 'day') return to - from;
  if (split === 'week') return Math.floor((to - from) / 7);
  const a = new Date(from * MS_PER_DAY);
  const b = new Date(to * MS_PER_DAY);
  let months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  if (b.getUTCDate() < a.getUTCDate()) months -= 1;
  return months;
}

/** The day `n` periods after `from` (day + n, + 7n, or the same day-of-month n months later). */
export function addPeriods(from: Day, n: number, split: DateSplit): Day {
  if (split === 'day') return from + n;
  if (split === 'week') return from + 7 * n;
  return addMonths(from, n);
}
