/**
 * Scheduled (hourly) Lambda of the usage alerts. Thin by design: parse the event, build the AWS adapters, call the
 * job. Each run judges the periods that settled since the series' stored states and tells each change once; a run
 * with nothing newly settled tells nothing.
 */
import { metricLineWithNewFailures } from '../../src/app/new-failures.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { runUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';
import { type LambdaContext, usageAlertsRuntime } from './runtime.ts';

/** A manual run may narrow it to some rules: `{ "detail": { "ruleIds": ["desktop-active-drop"] } }`. */
interface UsageAlertsEvent {
  detail?: { ruleIds?: string[] };
}

// The chart renderer starts on the first run that tells a change, not with the container: most hourly runs tell
// nothing, and would pay for compiling its wasm for no chart.
export const handler = async (event: UsageAlertsEvent = {}, context?: LambdaContext): Promise<JobResult> => {
  const { config, ports, reportDigests } = usageAlertsRuntime(process.env, context);
  const refused = await refusePlaceholder('usage-alerts', ports);
  if (refused) return refused;
  const ruleIds = event.detail?.ruleIds;
  const { result } = await runUsageAlerts(config, ports, { ...(ruleIds ? { ruleIds } : {}), reportDigests });
  ports.logger.info('usage alerts run finished', { ...result.counts, ok: result.ok, errors: result.errors });
  process.stdout.write(await metricLineWithNewFailures(result, ports));
  return result;
};
