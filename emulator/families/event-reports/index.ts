/** Event tracking reports [10]–[14] (api-shapes §7) and the event-based churn reports [19]/[20] (§8). */
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
