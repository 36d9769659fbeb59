/**
 * The archive's copy step, as it runs in AWS (functions/archive-copy): each copier (one Lambda per batch of queued
 * copy tasks) runs the same copy as `runArchive` (copy-planned-file.ts) and records each outcome; the copier that
 * records a run's last outcome writes its manifest and coverage report (finish-run.ts), exactly once. A copier that
 * dies is retried by the queue and, after its last delivery, dead-lettered (an alarm); a run whose outcomes never
 * all arrive is finished by a later plan step (plan-step.ts).
 */
import * as z from 'zod';
import { type ReportingClient, SessionLimitError } from '../client/index.ts';
import type { PulseConfig } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import type { ArchiveRun, ArchiveRuns } from '../ports/archive-runs.ts';
import type { CopyMessage } from '../ports/copy-queue.ts';
import type { CopyOutcome } from './copy/copy-file.ts';
import { copyPlannedFile } from './copy-planned-file.ts';
import { checkFileName } from './file-names.ts';
import { type ArchiveCounts, archiveResult, emptyCounts, finishArchiveRun } from './finish-run.ts';
import { loadPlan, parseJsonAs, plannedFileSchema } from './plan-store.ts';
import type { ArchivePorts } from './run-archive.ts';

/** Runs `fn` with a signed-in client; how the session is held around it is the scope's business. */
export type SessionScope = <T>(fn: (client: ReportingClient) => Promise<T>) => Promise<T>;

/** The copier records outcomes but sends nothing; the plan step also needs the queue. */
export interface CopyStepPorts extends ArchivePorts {
  runs: ArchiveRuns;
  /**
   * The session of a batch. In Lambda it is kept between batches (src/app/warm-client.ts).
   * @default `client.withSession`: signed in and out around each batch
   */
  session?: SessionScope | undefined;
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

export interface CopyStepResult {
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
export async function runCopyStep(
  config: PulseConfig,
  ports: CopyStepPorts,
  batch: QueuedCopy[],
): Promise<CopyStepResult> {
  const out: CopyStepResult = { retry: [], outcomes: [], finished: [] };
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

export async function requireRun(runs: ArchiveRuns, runId: string): Promise<ArchiveRun> {
  const run = await runs.get(runId);
  if (!run) throw new Error(`archive run ${runId} is not recorded`);
  return run;
}

/**
 * Writes a fanned-out run's manifest and coverage report from its stored plan and recorded outcomes; undefined when
 * another caller holds the finish. A failure to write gives the finish back, for a later plan step to retry.
 */
export async function finishRecordedRun(
  config: PulseConfig,
  ports: CopyStepPorts,
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
      { ...config, archive },
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
