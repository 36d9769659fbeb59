/**
 * One client's activity per period of a range, for the timeline `basicTimeline`: active days, and optionally sessions
 * and runtime minutes, in each period the client was active in. Day periods walk the client's active days (one visitor
 * per request); longer periods ask the core helpers once per period, which is cheaper than visiting every day.
 */
import { activeDaysBetween, forEachActiveDay, runtimeOn, sessionsOn, usageBetween } from '../../data/activity.ts';
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';

export class PeriodActivity {
  /** Periods the last measured client was active in: touched[0 .. count). */
  readonly touched: Int32Array;
  count = 0;
  /** Per period, for the last measured client (valid at the touched periods only). */
  readonly days: Float64Array;
  readonly sessions: Float64Array;
  readonly runtimeMinutes: Float64Array;
  private readonly pd: ProductData;
  private readonly periods: readonly { from: Day; to: Day }[];
  private readonly startDay: Day;
  private readonly stopDay: Day;
  private readonly periodOf: Int32Array;
  private readonly usage: boolean;
  private readonly byDay: boolean;
  private client = 0;
  private readonly visit: (day: Day) => void;

  /** `usage`: also measure sessions and runtime. */
  constructor(pd: ProductData, periods: readonly { from: Day; to: Day }[], byDay: boolean, usage: boolean) {
    this.pd = pd;
    this.periods = periods;
    this.startDay = periods[0]!.from;
    this.stopDay = periods.at(-1)!.to;
    this.byDay = byDay;
    this.usage = usage;
    const P = periods.length;
    this.touched = new Int32Array(P);
    this.days = new Float64Array(P);
    this.sessions = new Float64Array(P);
    this.runtimeMinutes = new Float64Array(P);
    this.periodOf = new Int32Array(this.stopDay - this.startDay + 1);
    periods.forEach((p, k) => {
      this.periodOf.fill(k, p.from - this.startDay, p.to - this.startDay + 1);
    });
    this.visit = (day) => {
      const p = this.periodOf[day - this.startDay]!;
      this.touched[this.count++] = p;
      this.days[p] = 1;
      if (!this.usage) return;
      const s = sessionsOn(this.pd, this.client, day);
      this.sessions[p] = s;
      this.runtimeMinutes[p] = runtimeOn(this.pd, this.client, day, s);
    };
  }

  /** Measures client i; returns false when it was not active in the range. */
  measure(i: number): boolean {
    this.count = 0;
    const lo = Math.max(this.startDay, this.pd.installDay[i]!);
    const hi = Math.min(this.stopDay, this.pd.lastSeenDay[i]!);
    if (hi < lo) return false;
    if (this.byDay) {
      this.client = i;
      forEachActiveDay(this.pd, i, lo, hi, this.visit);
      return this.count > 0;
    }
    for (let p = this.periodOf[lo - this.startDay]!; p <= this.periodOf[hi - this.startDay]!; p++) {
      const { from, to } = this.periods[p]!;
      if (this.usage) {
        const u = usageBetween(this.pd, i, from, to);
        this.days[p] = u.activeDays;
        this.sessions[p] = u.sessions;
        this.runtimeMinutes[p] = u.runtimeMinutes;
      } else this.days[p] = activeDaysBetween(this.pd, i, from, to);
      if (this.days[p]! > 0) this.touched[this.count++] = p;
    }
    return this.count > 0;
  }
}
