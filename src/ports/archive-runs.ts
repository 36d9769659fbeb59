/**
 * Archive runs port: the bookkeeping of a fanned-out archive run, whose copies finish in other processes (the
 * copier function). The plan step opens the run with its number of copy tasks; each copier records its file's
 * outcome once (a task delivered twice counts once); whoever records the last one claims the finish and writes the
 * run's manifest and coverage report. A run whose copies never all report (a copier crashed on every delivery) is
 * found by `unfinished` and finished by the next plan step, its missing files reported as failed.
 * Adapter: DynamoDB (also against dynalite locally).
 */
import type { CopyOutcome } from '../jobs/archive/copy-file.ts';

export interface ArchiveRun {
  runId: string;
  /** When the plan step started (the manifest's `startedAt`). */
  startedAt: string;
  /** Archive key of the stored plan (plan-store.ts). */
  planKey: string;
  /** Copy tasks of the run. */
  total: number;
  /** Copy tasks whose outcome is not recorded yet. */
  remaining: number;
  status: 'open' | 'finished';
}

export interface ArchiveRuns {
  open(run: Omit<ArchiveRun, 'remaining' | 'status'>): Promise<void>;
  /**
   * Records a file's outcome. `first` is false when one was already recorded for the key (a duplicate delivery):
   * then nothing changes. `remaining` is what is left after this call.
   */
  record(runId: string, outcome: CopyOutcome): Promise<{ first: boolean; remaining: number }>;
  /** Every recorded outcome of the run. */
  outcomes(runId: string): Promise<CopyOutcome[]>;
  /** Claims the writing of the run's manifest: true for exactly one caller while the run is open. */
  claimFinish(runId: string): Promise<boolean>;
  /** Gives a claimed finish back (the manifest could not be written), so a later caller retries it. */
  releaseFinish(runId: string): Promise<void>;
  get(runId: string): Promise<ArchiveRun | undefined>;
  /** Open runs that started before `before`, oldest first. */
  unfinished(before: Date): Promise<ArchiveRun[]>;
}
