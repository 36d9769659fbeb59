/**
 * Scheduled (hourly) Lambda of the weekly digest. Thin by design: parse the event, build the AWS adapters, call the
 * job. The job sends only to recipients whose send time has passed, each exactly once per ISO week.
 */
import { metricLineWithNewFailures } from '../../src/app/new-failures.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import { initChartRenderer } from '../../src/charts/index.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { runDigest } from '../../src/digest/run-digest.ts';
import { digestRuntime, type LambdaContext } from './runtime.ts';

// While the container starts, not in the first run; a failure surfaces in the run that draws a chart.
initChartRenderer().catch(() => {});

/** An EventBridge scheduled event may carry `{ "detail": { "digestIds": [...], "week": "2026-W46" } }` for reruns. */
interface DigestEvent {
  detail?: { digestIds?: string[]; week?: string; force?: boolean };
}

export const handler = async (event: DigestEvent = {}, context?: LambdaContext): Promise<JobResult> => {
  const { config, ports } = digestRuntime(process.env, context);
  const refused = await refusePlaceholder('digest', ports);
  if (refused) return refused;
  const detail = event.detail ?? {};
  const result = await runDigest(config, ports, {
    // A rerun for a given week sends to everyone not yet sent; the hourly schedule waits for each send time.
    scheduled: detail.week === undefined,
    ...(detail.digestIds ? { digestIds: detail.digestIds } : {}),
    ...(detail.week ? { week: detail.week } : {}),
    force: detail.force === true,
  });
  ports.logger.info('digest run finished', { ...result });
  process.stdout.write(await metricLineWithNewFailures(result, ports));
  return result;
};
