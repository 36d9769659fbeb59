/** One `pulse doctor` check's outcome, and the helpers that make them. */
export type CheckStatus = 'ok' | 'fail' | 'warn' | 'skip';

export interface CheckResult {
  status: CheckStatus;
  /** What was checked, e.g. "sign-in" or "product 12345678901 licenses". */
  name: string;
  /** What was found; for a failure, what to do (unless `error` says it). */
  detail: string;
  /** The error a failed check met: the command turns it into its exit code and, unless `explained`, its line. */
  error?: unknown;
  /** `detail` already says what the error means and what to do. */
  explained?: boolean;
}

export const ok = (name: string, detail: string): CheckResult => ({ status: 'ok', name, detail });
export const fail = (name: string, detail: string, error?: unknown): CheckResult => ({
  status: 'fail',
  name,
  detail,
  ...(error !== undefined ? { error } : {}),
});
/** A failure whose detail says it all; the error gives the exit code. */
export const explainedFail = (name: string, detail: string, error: unknown): CheckResult => ({
  ...fail(name, detail, error),
  explained: true,
});
/** Works, but worth knowing. */
export const warn = (name: string, detail: string): CheckResult => ({ status: 'warn', name, detail });
export const skip = (name: string, detail: string): CheckResult => ({ status: 'skip', name, detail });
