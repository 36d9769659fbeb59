/**
 * The calendar every job reads its days and weeks by: ISO weeks (Monday–Sunday) as seen in an IANA time zone, with
 * Intl only; a weekly schedule's due time; the week a weekly report covers. Calendar arithmetic runs on UTC day
 * numbers of `YYYY-MM-DD` strings, so it never meets a DST transition; the zone matters only when turning an
 * instant into a local date and time.
 */
import { WEEKDAYS } from '../config/schema.ts';

/** A calendar day `YYYY-MM-DD`. */
export type IsoDate = string;

export interface IsoWeek {
  /** `2026-W46` (the ISO week-numbering year, which differs from the calendar year around New Year). */
  isoWeek: string;
  /** Monday. */
  start: IsoDate;
  /** Sunday. */
  stop: IsoDate;
}

export interface WeeklySchedule {
  day: (typeof WEEKDAYS)[number];
  /** `HH:MM`, 24-hour, wall-clock time in the zone. */
  time: string;
  timeZone: string;
}

const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export const dayNumber = (date: IsoDate): number => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new RangeError(`expected a date YYYY-MM-DD, got ${JSON.stringify(date)}`);
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / DAY_MS;
};
const dateOf = (day: number): IsoDate => new Date(day * DAY_MS).toISOString().slice(0, 10);
/** Monday = 0 … Sunday = 6. */
const weekdayOf = (day: number): number => (new Date(day * DAY_MS).getUTCDay() + 6) % 7;

export const addDays = (date: IsoDate, days: number): IsoDate => dateOf(dayNumber(date) + days);

/** The local wall-clock date and time of an instant in a zone. */
export function localDateTime(now: Date, timeZone: string): { date: IsoDate; time: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return { date: `${get('year')}-${get('month')}-${get('day')}`, time: `${get('hour')}:${get('minute')}` };
}

/** The ISO week a calendar day belongs to. */
export function isoWeekOf(date: IsoDate): IsoWeek {
  const day = dayNumber(date);
  const monday = day - weekdayOf(day);
  // The week belongs to the year of its Thursday; week 1 is the week holding that year's first Thursday.
  const thursday = monday + 3;
  const year = new Date(thursday * DAY_MS).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1) / DAY_MS) / 7) + 1;
  return { isoWeek: `${year}-W${String(week).padStart(2, '0')}`, start: dateOf(monday), stop: dateOf(monday + 6) };
}

/** `2026-W46` → its Monday and Sunday; a RangeError for a malformed or non-existent week (`2027-W53`). */
export function parseIsoWeek(text: string): IsoWeek {
  const m = /^(\d{4})-W(\d{2})$/.exec(text);
  if (!m) throw new RangeError(`expected an ISO week like 2026-W46, got ${JSON.stringify(text)}`);
  const jan4 = Date.UTC(Number(m[1]), 0, 4) / DAY_MS; // 4 January always lies in week 1
  const week = isoWeekOf(dateOf(jan4 - weekdayOf(jan4) + (Number(m[2]) - 1) * 7));
  if (week.isoWeek !== text) throw new RangeError(`${text} does not exist (that year has no such ISO week)`);
  return week;
}

/** The week `n` weeks after `week` (negative: before). */
export const shiftIsoWeek = (week: IsoWeek, n: number): IsoWeek => isoWeekOf(addDays(week.start, 7 * n));

/** `count` consecutive weeks ending with `week`, oldest first. */
export function weeksEndingWith(week: IsoWeek, count: number): IsoWeek[] {
  return Array.from({ length: count }, (_, i) => shiftIsoWeek(week, i - count + 1));
}

/** The ISO week holding the local date of `now` in the zone. */
export const currentIsoWeek = (now: Date, timeZone: string): IsoWeek => isoWeekOf(localDateTime(now, timeZone).date);

/** The ISO week that ended most recently in the zone: the one before the local current week. */
export const lastCompleteIsoWeek = (now: Date, timeZone: string): IsoWeek =>
  shiftIsoWeek(currentIsoWeek(now, timeZone), -1);

const dayMonth = (date: IsoDate) => {
  const [y, m, d] = date.split('-');
  return { year: y!, month: MONTHS[Number(m) - 1]!, day: String(Number(d)) };
};

/** "2026-11-09" → "9 Nov". */
export function shortDate(date: IsoDate): string {
  const d = dayMonth(date);
  return `${d.day} ${d.month}`;
}

/** "Week 46 · 9–15 Nov 2026", "Week 49 · 30 Nov – 6 Dec 2026", "Week 53 · 28 Dec 2026 – 3 Jan 2027". */
export function weekLabel(week: IsoWeek): string {
  const a = dayMonth(week.start);
  const b = dayMonth(week.stop);
  const number = Number(week.isoWeek.slice(6));
  const range =
    a.year !== b.year
      ? `${a.day} ${a.month} ${a.year} – ${b.day} ${b.month} ${b.year}`
      : a.month !== b.month
        ? `${a.day} ${a.month} – ${b.day} ${b.month} ${b.year}`
        : `${a.day}–${b.day} ${b.month} ${b.year}`;
  return `Week ${number} · ${range}`;
}

/**
 * Whether the schedule's weekday and time have passed within the current ISO week, on the wall clock of
 * `recipientTimeZone` (default: the schedule's zone). Wall-clock comparison keeps a send time inside a DST gap or
 * overlap well-defined: it is due from the first local time at or after it.
 */
export function isDue(now: Date, schedule: WeeklySchedule, recipientTimeZone?: string): boolean {
  const local = localDateTime(now, recipientTimeZone ?? schedule.timeZone);
  const weekday = weekdayOf(dayNumber(local.date));
  const scheduled = WEEKDAYS.indexOf(schedule.day);
  return weekday > scheduled || (weekday === scheduled && local.time >= schedule.time);
}

/**
 * The week a weekly report (a digest, the license report) covers: the requested one, else the last complete one in the schedule's zone — unless that
 * week is still running in the service's UTC days (east of UTC, early Monday), then the one before, flagged
 * `stillRunningInUtc` so a scheduled run can wait instead.
 */
export function reportWeek(
  now: Date,
  timeZone: string,
  requested?: string,
): { week: IsoWeek; stillRunningInUtc: boolean } {
  if (requested) return { week: parseIsoWeek(requested), stillRunningInUtc: false };
  const week = lastCompleteIsoWeek(now, timeZone);
  if (week.stop < now.toISOString().slice(0, 10)) return { week, stillRunningInUtc: false };
  return { week: shiftIsoWeek(week, -1), stillRunningInUtc: true };
}
