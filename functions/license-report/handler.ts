/**
 * Scheduled (hourly) Lambda of the weekly license registry report. Thin by design: parse the event, build the AWS
 * adapters, call the job. The job does nothing until the report's schedule has passed, then snapshots the registry
 * once and sends each recipient the report exactly once per ISO week.
 */
import { metricLineWithNewFailures } from '../../src/app/new-failures.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { runLicenseReport } from '../../src/licenses/report/run-license-report.ts';
import { type LambdaContext, licenseReportRuntime } from './runtime.ts';

/** An EventBridge scheduled event may carry `{ "detail": { "week": "2026-W46" } }` to resend a week's report. */
interface LicenseReportEvent {
  detail?: { week?: string };
}

export const handler = async (event: LicenseReportEvent = {}, context?: LambdaContext): Promise<JobResult> => {
  const { config, ports } = licenseReportRuntime(process.env, context);
  const refused = await refusePlaceholder('license-report', ports);
  if (refused) return refused;
  const week = event.detail?.week;
  // A rerun for a given week sends to everyone not yet sent; the hourly schedule waits for the report's time.
  const result = await runLicenseReport(config, ports, week ? { week } : { scheduled: true });
  ports.logger.info('license report run finished', { ...result });
  process.stdout.write(await metricLineWithNewFailures(result, ports));
  return result;
};
