/**
 * What every job run reports (the `--json` line of the job commands, the Lambda's result, the `JobFailed` metric):
 * `ok` false when the job held or failed anything, with the reasons in `errors`.
 */
export interface JobResult<C extends Record<string, number> = Record<string, number>> {
  job: string;
  ok: boolean;
  counts: C;
  /** Paths (local runs) or archive keys of what the run wrote. */
  outputs: string[];
  errors: string[];
}

/** Exit code of a job command: 0 when the job did what it should, 1 when it held or failed something. */
export const exitCodeOf = (r: JobResult): number => (r.ok ? 0 : 1);
