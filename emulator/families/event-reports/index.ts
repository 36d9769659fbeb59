/**
 * Event tracking reports `lifetimeHistogram`, `lifetimeDataTable`, `basicDataTable`, `basicTimeline`,
 * `advancedFullReport` and the event-based churn reports `churnLifetimeDataTable`, `churnLifetimeHistogram`
 * (docs/interface.md "Event tracking reports", "Churn reports").
 */
import type { Handler } from '../../http/handler.ts';
import { advancedFullReport } from './advanced-report.ts';
import { basicDataTable } from './basic-data-table.ts';
import { basicTimeline } from './basic-timeline.ts';
import { churnLifetimeDataTable, lifetimeDataTable } from './lifetime-data-table.ts';
import { churnLifetimeHistogram, lifetimeHistogram } from './lifetime-histogram.ts';

export const eventReportHandlers: Record<string, Handler> = {
  lifetimeHistogram,
  lifetimeDataTable,
  basicDataTable,
  basicTimeline,
  advancedFullReport,
  churnLifetimeDataTable,
  churnLifetimeHistogram,
};
