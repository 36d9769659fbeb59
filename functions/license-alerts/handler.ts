/**
 * Scheduled (hourly) Lambda of the license alerts. Thin by design: parse the event, build the AWS adapters, call the
 * job. The job tells each recipient once its local send time has passed, each alert at most once.
 */
import { metricLineWithNewFailures } from '../../src/app/new-failures.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import { type LambdaContext, licenseAlertsRuntime } from './runtime.ts';

/** A manual run may narrow it and skip the send time: `{ "detail": { "productIds": ["…"], "now": true } }`. */
interface LicenseAlertEvent {
  detail?: { productIds?: string[]; now?: boolean };
}

export const handler = async (event: LicenseAlertEvent = {}, context?: LambdaContext): Promise<JobResult> => {
  const { config, ports } = licenseAlertsRuntime(process.env, context);
  const refused = await refusePlaceholder('license-alerts', ports);
  if (refused) return refused;
  const detail = event.detail ?? {};
  const result = await runLicenseAlerts(config, ports, {
    scheduled: detail.now !== true,
    ...(detail.productIds ? { productIds: detail.productIds } : {}),
  });
  ports.logger.info('license alerts run finished', { ...result.counts, ok: result.ok, errors: result.errors });
  process.stdout.write(await metricLineWithNewFailures(result, ports));
  return result;
};
