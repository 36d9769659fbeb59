/**
 * Churn-related reports: `churnAndEngagement` (see churn/cohort.ts) and the lost-client histograms
 * `churnHistogramDays`, `churnHistogramRuntime`, `churnHistogramSessions` (docs/interface.md "Churn reports").
 */
import { lossReportDay } from '../data/activity.ts';
import type { ProductData } from '../data/model.ts';
import type { Handler } from '../http/handler.ts';
import { dateRange, reqEnum, reqInt } from '../http/validate.ts';
import {
  type BinSet,
  binCounts,
  LOST_ACTIVE_DAY_BINS,
  LOST_RUNTIME_BINS,
  LOST_SESSION_BINS,
  orderedJson,
} from '../query/bins.ts';
import { parseGlobalFilters } from '../query/filters.ts';
import { churnAndEngagement } from './churn/cohort.ts';

const LOSS_DATES = ['dateLastSeen', 'dateDeclaredLost'] as const;

/**
 * A histogram over the clients lost in the range (loss reported on a day in [startDate, stopDate], by the loss rules of
 * docs/interface.md "Generic reports") that match the filters, binned by one lifetime total. The population is exactly
 * the one `dateRangeReport` counts as `lost` for the same range, filters and lost parameters, so the bins add up to
 * that count.
 */
function lostClientHistogram(bins: BinSet, lifetimeTotals: (pd: ProductData) => Uint32Array): Handler {
  return ({ pd, body, today }) => {
    const { startDay, stopDay } = dateRange(body);
    const daysUntilDeclaredLost = reqInt(body, 'daysUntilDeclaredLost', '', { min: 1 });
    const dateReportedLost = reqEnum(body, 'dateReportedLost', LOSS_DATES);
    const matches = parseGlobalFilters(pd, body);
    const totals = lifetimeTotals(pd);
    const counts = new Int32Array(bins.labels.length);
    for (let i = 0; i < pd.n; i++) {
      const day = lossReportDay(pd, i, daysUntilDeclaredLost, dateReportedLost, today);
      if (day === undefined || day < startDay || day > stopDay || !matches(i)) continue;
      counts[bins.indexOf(totals[i]!)]!++;
    }
    return orderedJson({ result: binCounts(bins, counts) });
  };
}

export const churnHandlers: Record<string, Handler> = {
  churnAndEngagement,
  churnHistogramDays: lostClientHistogram(LOST_ACTIVE_DAY_BINS, (pd) => pd.lifetimeActiveDays),
  churnHistogramRuntime: lostClientHistogram(LOST_RUNTIME_BINS, (pd) => pd.lifetimeRuntimeMinutes),
  churnHistogramSessions: lostClientHistogram(LOST_SESSION_BINS, (pd) => pd.lifetimeSessions),
};
