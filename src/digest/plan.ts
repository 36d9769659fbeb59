/**
 * Which report calls a digest run makes, as plain data: per product and enabled section, the operation and the
 * request body. Dates are the service's UTC calendar days of the digest week.
 */
import type { OperationId } from '../client/index.ts';
import { DIGEST_SECTIONS, type DigestSection } from '../config/schema.ts';
import { addDays, type IsoWeek } from '../core/calendar.ts';
import type { CallPurpose, PlannedCall } from './data.ts';

export interface PlanOptions {
  daysUntilDeclaredLost: number;
  sections: readonly DigestSection[];
}

/** The digest week plus the 8 weeks before it: the comparison base of every weekly figure and the guard. */
export const TRAILING_WEEKS = 8;
/**
 * Install cohorts of this many weeks (ending with the digest week) feed the retention curve. The service follows
 * them up to its today, so for a past week (a preview) the curve includes the weeks since.
 */
export const COHORT_WEEKS = 12;
export const TOP_EVENTS = 10;
export const EXCEPTION_LINES = 1000;

export function planDigestCalls(productIds: readonly string[], week: IsoWeek, opts: PlanOptions): PlannedCall[] {
  const range = { startDate: week.start, stopDate: week.stop };
  const lost = { daysUntilDeclaredLost: opts.daysUntilDeclaredLost, dateReportedLost: 'dateDeclaredLost' };
  // Segment shares for the week and the week before in one call: a split by week with one level. (currentReport
  // would run to the service's today, not to the end of the digest week.)
  const segmentedWeeks = (property: string) => ({
    startDate: addDays(week.start, -7),
    stopDate: week.stop,
    clientStatus: ['active'],
    dateSplit: 'week',
    levels: { level1: { property, sort: 'active' } },
  });

  const bySection: Record<DigestSection, [CallPurpose, OperationId, Record<string, unknown>][]> = {
    activity: [
      [
        'weekly',
        'dateRangeReport',
        {
          startDate: addDays(week.start, -7 * TRAILING_WEEKS),
          stopDate: week.stop,
          clientStatus: ['new', 'active', 'lost'],
          dateSplit: 'week',
          ...lost,
        },
      ],
    ],
    churn: [
      [
        'cohort',
        'churnAndEngagement',
        {
          startDate: addDays(week.start, -7 * (COHORT_WEEKS - 1)),
          stopDate: week.stop,
          daysUntilDeclaredLost: opts.daysUntilDeclaredLost,
          dateSplit: 'week',
        },
      ],
      ['churnDays', 'churnHistogramDays', { ...range, ...lost }],
      ['churnSessions', 'churnHistogramSessions', { ...range, ...lost }],
      ['churnRuntime', 'churnHistogramRuntime', { ...range, ...lost }],
    ],
    engagement: [['usage', 'usageDistribution', range]],
    topEvents: [
      [
        'topEvents',
        'lifetimeDataTable',
        {
          ...range,
          sorting: { events: 'eventCounts', eventsDirection: 'desc' },
          paging: { startAt: 0, limit: TOP_EVENTS },
        },
      ],
    ],
    versions: [['versions', 'dateRangeReport', segmentedWeeks('prodVersion')]],
    countries: [['countries', 'dateRangeReport', segmentedWeeks('geography.country')]],
    exceptions: [['exceptions', 'exceptionsLastLines', { lineCount: EXCEPTION_LINES }]],
  };

  // Canonical section order (and no duplicates), whatever order the config lists them in.
  const sections = DIGEST_SECTIONS.filter((s) => opts.sections.includes(s));
  return productIds.flatMap((productId) =>
    sections.flatMap((section) =>
      bySection[section].map(([purpose, operationId, request]) => ({
        operationId,
        productId,
        section,
        purpose,
        request,
      })),
    ),
  );
}
