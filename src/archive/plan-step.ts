import type { ArchiveKind, PulseConfig } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import type { CopyMessage, CopyQueue } from '../ports/copy-queue.ts';
import { type CopyStepPorts, finishRecordedRun, requireRun } from './copy-step.ts';
import {
  archiveResult,
  emptyCounts,
  failRun,
  finishArchiveRun,
  isEventProblem,
  reportPlanProblems,
  unlistedRun,
} from './finish-run.ts';
import { runIdOf } from './manifest.ts';
import { type ArchivePlan, type PlanSummary, planArchive, summarizePlan } from './plan.ts';
import { savePlan } from './plan-store.ts';
import { copyOrder, knownProducts } from './run-archive.ts';

export interface PlanStepPorts extends CopyStepPorts {
  queue: CopyQueue;
}

/** How long a run may wait for its copies before a plan step finishes it: longer than every queue redelivery. */
export const DEFAULT_STALE_AFTER_MS = 12 * 60 * 60 * 1000;

export type PlanStepCounts = PlanSummary & { queued: number; notQueued: number; staleRunsFinished: number };

export interface PlanStepOptions {
  productIds?: string[] | undefined;
  kinds?: ArchiveKind[] | undefined;
  staleAfterMs?: number | undefined;
}

/** The plan step: finishes stale runs, plans a new one and sends its copy tasks. */
export async function runPlanStep(
  config: PulseConfig,
  ports: PlanStepPorts,
  opts: PlanStepOptions = {},
): Promise<JobResult<PlanStepCounts>> {
  const startedAt = ports.clock.now();
  const counts: PlanStepCounts = { ...summarizePlan([]), queued: 0, notQueued: 0, staleRunsFinished: 0 };
  const result = archiveResult(counts);
  const archive = config.archive;
  if (!archive) return failRun(result, 'the config has no "archive" section');
  const staleBefore = new Date(startedAt.getTime() - (opts.staleAfterMs ?? DEFAULT_STALE_AFTER_MS));
  counts.staleRunsFinished = await finishStaleRuns(config, ports, staleBefore, result);
  const planOptions = { productIds: knownProducts(config, opts.productIds, result), kinds: opts.kinds, now: startedAt };
  const runId = runIdOf(startedAt);
  let plan: ArchivePlan;
  try {
    plan = await ports.client.withSession((client) => planArchive(config, client, ports.archive, planOptions));
  } catch (e) {
    // Nothing to queue; the run is finished here, its manifest saying it could not look (as runArchive's does).
    const stopped = `${(e as Error).name}: ${(e as Error).message}`;
    failRun(result, stopped);
    const unlisted = unlistedRun(config, planOptions, stopped);
    Object.assign(counts, summarizePlan(unlisted.kinds));
    const input = { startedAt, outcomes: new Map(), ...unlisted };
    const finished = await finishArchiveRun(
      { ...config, archive },
      input,
      ports,
      failRun(archiveResult(emptyCounts()), stopped),
    );
    result.outputs.push(...finished.outputs);
    return result;
  }
  try {
    reportPlanProblems(plan.kinds, result);
    Object.assign(counts, summarizePlan(plan.kinds));
    const planKey = await savePlan(ports.archive, archive.prefix, runId, plan);
    result.outputs.push(planKey);
    const messages = copyOrder(plan).map((file): CopyMessage => ({ runId, file }));
    await ports.runs.open({ runId, startedAt: startedAt.toISOString(), planKey, total: messages.length });
    const unsent = messages.length > 0 ? await ports.queue.enqueue(messages) : [];
    counts.queued = messages.length - unsent.length;
    counts.notQueued = unsent.length;
    let remaining = messages.length;
    for (const { message, reason: why } of unsent) {
      const reason = `not copied: the copy queue did not take the task (${why})`;
      ({ remaining } = await ports.runs.record(runId, {
        outcome: 'failed',
        key: message.file.key,
        reason,
        attempts: 0,
      }));
    }
    if (remaining === 0) {
      const finished = await finishRecordedRun(config, ports, await requireRun(ports.runs, runId));
      if (finished) result.outputs.push(...finished.outputs);
      for (const error of finished && !finished.ok ? finished.errors : []) failRun(result, error);
    }
    ports.logger.info('archive run planned', { runId, ...counts });
  } catch (e) {
    failRun(result, `${(e as Error).name}: ${(e as Error).message}`);
  }
  return result;
}

/** Finishes the runs whose copies stopped reporting before `before`; returns how many it finished. */
async function finishStaleRuns(
  config: PulseConfig,
  ports: PlanStepPorts,
  before: Date,
  result: JobResult<PlanStepCounts>,
): Promise<number> {
  let count = 0;
  try {
    for (const run of await ports.runs.unfinished(before)) {
      const finished = await finishRecordedRun(
        config,
        ports,
        run,
        'not copied: the copier never reported (see the dead-letter queue)',
      );
      if (!finished) continue;
      count++;
      result.outputs.push(...finished.outputs);
      if (!finished.ok) failRun(result, `run ${run.runId} finished late with failures; see its manifest`);
      // Its files' failures are in its manifest; an event a channel did not take is in no manifest: said here.
      for (const error of finished.errors.filter(isEventProblem)) failRun(result, error);
    }
  } catch (e) {
    failRun(result, `stale runs not finished: ${(e as Error).name}: ${(e as Error).message}`);
  }
  return count;
}
