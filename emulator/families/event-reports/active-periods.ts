/**
 * Distinct calendar weeks (ISO, Monday start) and months in which a client was active, for the per-active-week and
 * per-active-month averages of the lifetime histograms. One counter per request: the month of every day is looked up
 * in a table built once, and the visitor handed to forEachActiveDay is created once, not per client.
 */
import { forEachActiveDay } from '../../data/activity.ts';
import { type Day, monthStart, periodStart } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';

export class ActivePeriodCounter {
  weeks = 0;
  months = 0;
  private lastWeek = -1;
  private lastMonth = -1;
  private readonly pd: ProductData;
  private readonly from: Day;
  private readonly to: Day;
  private readonly monday: Day;
  /** Month number of each day in [from, to], counted from the month of `from`. */
  private readonly monthOf: Int32Array;
  private readonly visit: (day: Day) => void;

  /** Counts activity in [pd.firstDay, to]. */
  constructor(pd: ProductData, to: Day) {
    this.pd = pd;
    this.from = pd.firstDay;
    // No activity exists past the bitset, so a far-future stopDate need not size the month table.
    this.to = Math.min(to, pd.firstDay + pd.words * 32 - 1);
    this.monday = periodStart(this.from, 'week');
    this.monthOf = new Int32Array(Math.max(0, this.to - this.from + 1));
    let month = 0;
    for (let d = this.from + 1; d <= this.to; d++) {
      if (monthStart(d) === d) month++;
      this.monthOf[d - this.from] = month;
    }
    this.visit = (day) => {
      const week = ((day - this.monday) / 7) | 0;
      if (week !== this.lastWeek) {
        this.weeks++;
        this.lastWeek = week;
      }
      const m = this.monthOf[day - this.from]!;
      if (m !== this.lastMonth) {
        this.months++;
        this.lastMonth = m;
      }
    };
  }

  /** Counts client i; read `weeks` and `months` afterwards. */
  count(i: number): this {
    this.weeks = 0;
    this.months = 0;
    this.lastWeek = -1;
    this.lastMonth = -1;
    forEachActiveDay(this.pd, i, this.from, this.to, this.visit);
    return this;
  }
}
