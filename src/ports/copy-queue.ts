/**
 * Copy queue port: where the archive's plan step hands its copy tasks in AWS (SQS, drained by the copier function).
 * Locally the copies run in-process instead (`runArchive`), so only the split run in AWS (plan-step.ts, copy-step.ts) needs this port.
 */
import type { ArchiveKind } from '../config/schema.ts';

/** A file of the archive's plan: where it goes and whether it is already there. */
export interface PlannedFile {
  productId: string;
  kind: ArchiveKind;
  fileName: string;
  /** First day the file covers (the name's date). */
  fileDate: string;
  /** Last day of a monthly file. */
  stopDate?: string;
  key: string;
  /** `missing`: no object at the key yet (copy); `present`: the copy step re-verifies it by hash. */
  state: 'missing' | 'present';
  /** Missing although a newer file of this product and kind is archived: a gap being filled. */
  backfill: boolean;
}

/** One file to copy, as it travels through the queue. */
export interface CopyMessage {
  /** The archive run it belongs to (archive-runs.ts). */
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
