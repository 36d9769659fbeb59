/**
 * Copy queue port: where the archive's plan step hands its copy tasks in AWS (SQS, drained by the copier function).
 * Locally the copies run in-process instead (`runArchive`), so only the fan-out needs this port.
 */
import type { PlannedFile } from '../jobs/archive/plan.ts';

/** One file to copy, as it travels through the queue. */
export interface CopyMessage {
  /** The fan-out run it belongs to (archive-runs.ts). */
  runId: string;
  file: PlannedFile;
}

/** A message the queue did not take, and why. */
export interface Unsent {
  message: CopyMessage;
  reason: string;
}

export interface CopyQueue {
  /**
   * Enqueues every message it can; returns those it could not (after its own retries), so the caller can report
   * them instead of losing them.
   */
  enqueue(messages: CopyMessage[]): Promise<Unsent[]>;
}
