/**
 * The periods a usage rule judges: the service's UTC days, or ISO weeks keyed by their Monday (as `dateSplit` keys
 * them: docs/interface.md "Dates, weeks and time zones"). A period is judged once it ended `settleHours` ago, so the
 * service's data for it has arrived; only complete periods are ever judged.
 */
import { addDays, type IsoDate, isoWeekOf } from '../core/calendar.ts';

export type PeriodUnit = 'day' | 'week';

const HOUR_MS = 3_600_000;
const length = (unit: PeriodUnit): number => (unit === 'day' ? 1 : 7);

/** The period a day falls in: the day, or the Monday of its ISO week. */
export const periodOf = (date: IsoDate, unit: PeriodUnit): IsoDate => (unit === 'day' ? date : isoWeekOf(date).start);

/** The last day of a period. */
export const periodStop = (start: IsoDate, unit: PeriodUnit): IsoDate => addDays(start, length(unit) - 1);

/** The period `n` periods after `start` (before, for a negative `n`). */
export const shiftPeriod = (start: IsoDate, unit: PeriodUnit, n: number): IsoDate => addDays(start, n * length(unit));

/** When a period ends: midnight UTC after its last day. */
export const periodEnd = (start: IsoDate, unit: PeriodUnit): Date =>
  new Date(`${addDays(periodStop(start, unit), 1)}T00:00:00.000Z`);

/** The newest period whose end is `settleHours` or more before `now`. */
export function lastJudgeablePeriod(now: Date, unit: PeriodUnit, settleHours: number): IsoDate {
  const settled = new Date(now.getTime() - settleHours * HOUR_MS);
  // The period holding the last instant before `settled` may still be running: its end must not be after it.
  const current = periodOf(settled.toISOString().slice(0, 10), unit);
  return periodEnd(current, unit).getTime() <= settled.getTime() ? current : shiftPeriod(current, unit, -1);
}

/** Hours from a period's end to `at`: how old the data it is judged on is. */
export const dataAgeHours = (start: IsoDate, unit: PeriodUnit, at: Date): number =>
  Math.floor((at.getTime() - periodEnd(start, unit).getTime()) / HOUR_MS);

/** The periods from `first` to `last`, oldest first. */
export function periodsBetween(first: IsoDate, last: IsoDate, unit: PeriodUnit): IsoDate[] {
  const out: IsoDate[] = [];
  for (let p = periodOf(first, unit); p <= last; p = shiftPeriod(p, unit, 1)) out.push(p);
  return out;
}
