/**
 * Archive runs port: the bookkeeping of a fanned-out archive run, whose copies finish in other processes (the
 * copier function). The plan step opens the run with its number of copy tasks; each copier records its file's
 * outcome once (a task delivered twice counts once); whoever records the last one claims the finish and writes the
 * run's manifest and coverage report. A run whose copies never all report (a copier crashed on every delivery) is
 * found by `unfinished` and finished by the next plan step, its missing files reported as failed.
 * Adapter: DynamoDB (also against dynalite locally).
 */

/** What copying one file came to: recorded once per file of a run, listed in its manifest. */
interface Copied {
  key: string;
  size: number;
  /** Hex SHA-256 of the file. */
  sha256: string;
  attempts: number;
}

export type CopyOutcome =
  | (Copied & { outcome: 'archived' | 'republished' })
  /** `checksumRepaired`: the archived file's checksum file was missing or wrong, and was rewritten. */
  | (Copied & { outcome: 'skippedSame'; checksumRepaired?: true })
  /** A new version over an object that failed its own check (`reason`): a crash leftover, not a republication. */
  | (Copied & { outcome: 'repaired'; reason: string })
  | { outcome: 'failed'; key: string; reason: string; attempts: number };

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
