/**
 * Who a report counts. Lifetime reports `lifetimeHistogram`/`lifetimeDataTable` count clients active in the range;
 * the churn reports `churnLifetimeHistogram`/`churnLifetimeDataTable` count clients lost in the range
 * (docs/interface.md "Event tracking reports", "Churn reports"). Both are returned as ascending client numbers, so
 * later passes are plain loops over a typed array.
 */
import { activeBetween, lossReportDay } from '../../data/activity.ts';
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { type Json, reqEnum, reqInt } from '../../http/validate.ts';
import type { ClientPredicate } from '../../query/filters.ts';

/** Clients with at least one active day in [startDay, stopDay] that match the filters. */
export function activePopulation(pd: ProductData, match: ClientPredicate, startDay: Day, stopDay: Day): Int32Array {
  const out = new Int32Array(pd.n);
  let m = 0;
  for (let i = 0; i < pd.n; i++) if (activeBetween(pd, i, startDay, stopDay) && match(i)) out[m++] = i;
  return out.subarray(0, m);
}

export interface LossRules {
  daysUntilDeclaredLost: number;
  dateReportedLost: 'dateLastSeen' | 'dateDeclaredLost';
}

/** `daysUntilDeclaredLost` and `dateReportedLost`, both required for the churn reports. */
export function parseLossRules(body: Json): LossRules {
  return {
    daysUntilDeclaredLost: reqInt(body, 'daysUntilDeclaredLost', '', { min: 1 }),
    dateReportedLost: reqEnum(body, 'dateReportedLost', ['dateLastSeen', 'dateDeclaredLost'] as const),
  };
}

/** Clients whose loss is reported on a day in [startDay, stopDay] (as of `today`) and that match the filters. */
export function lostPopulation(
  pd: ProductData,
  match: ClientPredicate,
  rules: LossRules,
  startDay: Day,
  stopDay: Day,
  today: Day,
): Int32Array {
  const out = new Int32Array(pd.n);
  let m = 0;
  for (let i = 0; i < pd.n; i++) {
    const day = lossReportDay(pd, i, rules.daysUntilDeclaredLost, rules.dateReportedLost, today);
    if (day !== undefined && day >= startDay && day <= stopDay && match(i)) out[m++] = i;
  }
  return out.subarray(0, m);
}
