/**
 * Scheduled (daily) Lambda of the export archive's plan step: finish runs whose copies stopped reporting, plan a new
 * run and send its copy tasks to the copy queue (drained by functions/archive-copy). Thin by design.
 */
import { jobMetricLine } from '../../src/app/job-metric.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import { type PlanStepCounts, runPlanStep } from '../../src/archive/plan-step.ts';
import type { ArchiveKind } from '../../src/config/schema.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { archivePlanRuntime, type LambdaContext } from './runtime.ts';

/** A manual run may narrow it: `{ "detail": { "productIds": ["…"], "kinds": ["rawEvents"] } }`. */
interface ArchiveEvent {
  detail?: { productIds?: string[]; kinds?: ArchiveKind[] };
}

export const handler = async (
  event: ArchiveEvent = {},
  context?: LambdaContext,
): Promise<JobResult<PlanStepCounts> | JobResult> => {
  const { config, ports } = archivePlanRuntime(process.env, context);
  // No ledger: the archive counts no new failures (its ledger is for its run events; JobFailed alarms it).
  const refused = await refusePlaceholder('archive', { client: ports.client, logger: ports.logger });
  if (refused) return refused;
  const { productIds, kinds } = event.detail ?? {};
  const result = await runPlanStep(config, ports, { productIds, kinds });
  ports.logger.info('archive plan step finished', { ...result });
  // Only failures of the plan step itself count here; the copies report theirs when their run finishes.
  process.stdout.write(jobMetricLine(result));
  return result;
};
