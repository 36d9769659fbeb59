/** Every operation id → its handler, gathered from one module per operation family. */
import type { Handler } from '../http/handler.ts';
import { authHandlers } from './auth.ts';
import { churnHandlers } from './churn.ts';
import { clientProfileHandlers } from './client-profile.ts';
import { engagementHandlers } from './engagement.ts';
import { eventManagementHandlers } from './event-management.ts';
import { eventReportHandlers } from './event-reports/index.ts';
import { fileHandlers } from './files/index.ts';
import { genericReportHandlers } from './generic-reports.ts';
import { licenseKeyHandlers } from './license-keys.ts';
import { metadataHandlers } from './metadata.ts';

export const HANDLERS: Record<string, Handler> = {
  ...authHandlers,
  ...metadataHandlers,
  ...eventManagementHandlers,
  ...genericReportHandlers,
  ...engagementHandlers,
  ...eventReportHandlers,
  ...churnHandlers,
  ...licenseKeyHandlers,
  ...fileHandlers,
  ...clientProfileHandlers,
};
