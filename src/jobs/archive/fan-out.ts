/**
 * The archive job split across functions, as it runs in AWS: the plan step (scheduled) plans the run, keeps the plan
 * in the archive, opens the run's bookkeeping and sends one copy task per file to the copy queue; copiers (one
 * Lambda per batch of messages) run the same copy step as `runArchive` and record each outcome; the copier that
 * records a run's last outcome writes its manifest and coverage report (finish-run.ts), exactly once.
 *
 * Nothing is lost on the way: a task the queue refuses is recorded as failed at once; a copier that dies is
 * retried by the queue and, after its last delivery, dead-lettered (an alarm); and a run whose outcomes never all
 * arrive is finished by a later plan step, its missing files reported as failed — the next plan lists them as
 * missing again and copies them (backfill).
 */
import * as z from 'zod';
import { type ReportingClient, SessionLimitError } from '../../client/index.ts';
import type { ArchiveKind, PulseConfig } from '../../config/schema.ts';
import type { ArchiveRun, ArchiveRuns } from '../../ports/archive-runs.ts';
import type { CopyMessage, CopyQueue } from '../../ports/copy-queue.ts';
import type { JobResult } from '../job-result.ts';
import type { CopyOutcome } from './copy-file.ts';
import { copyPlannedFile } from './copy-planned-file.ts';
import { checkFileName } from './file-names.ts';
import {
  type ArchiveCounts,
  archiveResult,
  emptyCounts,
  failRun,
  finishArchiveRun,
  reportPlanProblems,
  unlistedRun,
} from './finish-run.ts';
import { runIdOf } from './manifest.ts';
import { type ArchivePlan, type PlanSummary, planArchive, summarizePlan } from './plan.ts';
import { loadPlan, parseJsonAs, plannedFileSchema, savePlan } from './plan-store.ts';
import { type ArchivePorts, copyOrder, knownProducts } from './run-archive.ts';

/** Runs `fn` with a signed-in client; how the session is held around it is the scope's business. */
export type SessionScope = <T>(fn: (client: ReportingClient) => Promise<T>) => Promise<T>;

/** The copier records outcomes but sends nothing; the plan step also needs the queue. */
export interface CopierPorts extends ArchivePorts {
  runs: ArchiveRuns;
  /**
   * The session of a batch. In Lambda it is kept between batches (src/app/warm-client.ts).
   * @default `client.withSession`: signed in and out around each batch
   */
  session?: SessionScope | undefined;
}

export interface FanOutPorts extends CopierPorts {
  queue: CopyQueue;
}

/** How long a run may wait for its copies before a plan step finishes it: longer than every queue redelivery. */
export const DEFAULT_STALE_AFTER_MS = 12 * 60 * 60 * 1000;

export type FanOutCounts = PlanSummary & { queued: number; notQueued: number; staleRunsFinished: number };

export interface FanOutOptions {
  productIds?: string[] | undefined;
  kinds?: ArchiveKind[] | undefined;
  staleAfterMs?: number | undefined;
}

/** The plan step: finishes stale runs, plans a new one and sends its copy tasks. */
export async function startArchiveFanOut(
  config: PulseConfig,
  ports: FanOutPorts,
  opts: FanOutOptions = {},
): Promise<JobResult<FanOutCounts>> {
  const startedAt = ports.clock.now();
  const counts: FanOutCounts = { ...summarizePlan([]), queued: 0, notQueued: 0, staleRunsFinished: 0 };
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
    const finished = await finishArchiveRun(archive, input, ports, failRun(archiveResult(emptyCounts()), stopped));
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

/** A message from the copy queue that is not a copy task (or names a file no plan would have produced). */
export class BadCopyMessageError extends Error {
  override name = 'BadCopyMessageError';
}

const messageSchema = z.object({ runId: z.string().min(1), file: plannedFileSchema });

export function parseCopyMessage(body: string): CopyMessage {
  const message = parseJsonAs(body, messageSchema, (problem) => new BadCopyMessageError(`copy message ${problem}`));
  const { file } = message;
  // The key was computed from a checked name when the run was planned; a name that fails the check now was not.
  if (file.kind !== 'clientData') {
    const check = checkFileName(file.productId, file.kind, file.fileName);
    if (!check.ok) throw new BadCopyMessageError(`copy message rejected: ${check.reason}`);
  }
  return message as CopyMessage;
}

export interface QueuedCopy {
  /** The queue's id of the message, handed back for those to retry. */
  id: string;
  body: string;
}

export interface CopierResult {
  /** Messages to deliver again (their outcome could not be recorded). */
  retry: string[];
  outcomes: CopyOutcome[];
  /** Runs this call finished (wrote the manifest of). */
  finished: JobResult<ArchiveCounts>[];
}

/**
 * The copier: copies each queued file (one session for the batch), records it, and finishes completed runs. At the
 * service's session limit it hands the unfinished tasks back (`retry`) instead of throwing.
 */
export async function copyQueuedFiles(
  config: PulseConfig,
  ports: CopierPorts,
  batch: QueuedCopy[],
): Promise<CopierResult> {
  const out: CopierResult = { retry: [], outcomes: [], finished: [] };
  const archive = config.archive;
  if (!archive) throw new TypeError('the config has no "archive" section');
  const tasks: { id: string; message: CopyMessage }[] = [];
  for (const { id, body } of batch) {
    try {
      tasks.push({ id, message: parseCopyMessage(body) });
    } catch (e) {
      // Retried until the queue dead-letters it: the alarm on the dead-letter queue reports it.
      ports.logger.error('archive copier: bad message', { messageId: id, error: (e as Error).message });
      out.retry.push(id);
    }
  }
  if (tasks.length === 0) return out;
  const session: SessionScope = ports.session ?? ((fn) => ports.client.withSession(fn));
  let next = 0;
  try {
    await session(async (client) => {
      for (; next < tasks.length; next++) {
        const { id, message } = tasks[next]!;
        // The service ended the session mid-batch and it could not be replaced: try once more, here, so a refusal
        // hands the rest of the batch back (below) rather than failing every file.
        if (!client.signedIn) await client.signIn();
        const outcome = await copyPlannedFile(message.file, archive, { ...ports, client });
        if (outcome.outcome === 'failed' && !client.signedIn) {
          // It failed for want of a session, not because of the file: copied on a later delivery, not recorded.
          ports.logger.warn('archive copier: session lost during a copy', { messageId: id, reason: outcome.reason });
          out.retry.push(id);
          continue;
        }
        out.outcomes.push(outcome);
        try {
          const { first, remaining } = await ports.runs.record(message.runId, outcome);
          if (!first || remaining > 0) continue;
          const finished = await finishRecordedRun(config, ports, await requireRun(ports.runs, message.runId));
          if (finished) out.finished.push(finished);
        } catch (e) {
          ports.logger.error('archive copier: outcome not recorded', { messageId: id, error: (e as Error).message });
          out.retry.push(id);
        }
      }
    });
  } catch (e) {
    // Other functions (or people) hold the user's sessions: the unfinished tasks go back to the queue, delivered
    // again after its visibility timeout, instead of the whole batch failing towards the dead-letter queue.
    if (!(e instanceof SessionLimitError)) throw e;
    const unfinished = tasks.slice(next).map((t) => t.id);
    ports.logger.warn('archive copier: session limit reached; tasks handed back', {
      retry: unfinished.length,
      error: e.message,
    });
    out.retry.push(...unfinished);
  }
  return out;
}

/** Finishes the runs whose copies stopped reporting before `before`; returns how many it finished. */
async function finishStaleRuns(
  config: PulseConfig,
  ports: FanOutPorts,
  before: Date,
  result: JobResult<FanOutCounts>,
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
    }
  } catch (e) {
    failRun(result, `stale runs not finished: ${(e as Error).name}: ${(e as Error).message}`);
  }
  return count;
}

async function requireRun(runs: ArchiveRuns, runId: string): Promise<ArchiveRun> {
  const run = await runs.get(runId);
  if (!run) throw new Error(`archive run ${runId} is not recorded`);
  return run;
}

/**
 * Writes a fanned-out run's manifest and coverage report from its stored plan and recorded outcomes; undefined when
 * another caller holds the finish. A failure to write gives the finish back, for a later plan step to retry.
 */
async function finishRecordedRun(
  config: PulseConfig,
  ports: CopierPorts,
  run: ArchiveRun,
  noOutcomeReason?: string,
): Promise<JobResult<ArchiveCounts> | undefined> {
  const archive = config.archive;
  if (!archive || !(await ports.runs.claimFinish(run.runId))) return undefined;
  try {
    const plan = await loadPlan(ports.archive, run.planKey);
    const outcomes = new Map((await ports.runs.outcomes(run.runId)).map((o) => [o.key, o]));
    const result = archiveResult(emptyCounts());
    const input = { startedAt: new Date(run.startedAt), kinds: plan.kinds, outcomes };
    const finished = await finishArchiveRun(
      archive,
      { ...input, ...(noOutcomeReason ? { noOutcomeReason } : {}) },
      ports,
      result,
    );
    // No manifest written (the store failed): the run stays open for a later plan step to finish.
    if (finished.outputs.length === 0) await ports.runs.releaseFinish(run.runId);
    return finished;
  } catch (e) {
    await ports.runs.releaseFinish(run.runId);
    throw e;
  }
}
