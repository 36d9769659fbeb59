/**
 * Which of a run's failures were not reported by an earlier run: the `Pulse/NewFailures` metric that the hourly
 * mailing jobs' "new failure" alarm reads (lib/constructs/pulse-function.ts). A held digest or a refused recipient
 * fails every hourly run until the week ends; an alarm on "the run failed" would stay in ALARM all week and say
 * nothing of a second failure. Counting only the failures no run reported before lets the alarm return to OK the
 * next hour and fire again for the next new one.
 *
 * A failure is known by its line (`JobResult.errors`) with what changes from run to run taken out (times, ids),
 * hashed, and marked once in the ledger (`failure-seen#<job>#<hash>`, kept 8 days: a failure still there next
 * week counts as new again, and so does the same failure in a new week, whose lines name the new week). When the
 * ledger cannot be read or written the failure counts as new: one notification too many, never one too few.
 */
import { createHash } from 'node:crypto';
import type { JobResult } from '../core/job-result.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ledger } from '../ports/ledger.ts';
import { jobMetricLine } from './job-metric.ts';

/** The ledger key of a failure a job reported; its partition-key prefix is granted per job (lib/stacks/grants.ts). */
export const failureSeenKey = (job: string, line: string): string =>
  `failure-seen#${job}#${createHash('sha256').update(normalized(line)).digest('hex').slice(0, 32)}`;

/** How long a failure counts as already reported. */
export const FAILURE_SEEN_DAYS = 8;

/** The line without what differs between two reports of the same failure: timestamps, UUIDs, long hex ids. */
export function normalized(line: string): string {
  return line
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\b[0-9a-f]{16,}\b/gi, '<id>');
}

/** The number of `result`'s failures that no earlier run reported; each is marked as reported on the way. */
export async function countNewFailures(
  result: JobResult,
  ports: { ledger?: Ledger | undefined; clock: Clock },
): Promise<number> {
  const lines = [...new Set(result.errors)];
  if (result.ok || lines.length === 0) return result.ok ? 0 : 1;
  const { ledger } = ports;
  if (!ledger) return lines.length;
  let fresh = 0;
  for (const line of lines) {
    const key = failureSeenKey(result.job, line);
    try {
      const claim = await ledger.claim(key, { expiresInDays: FAILURE_SEEN_DAYS });
      if (claim.outcome === 'done') continue;
      fresh++;
      if (claim.outcome === 'claimed') await ledger.complete(key, { firstSeen: ports.clock.now().toISOString() });
    } catch {
      fresh++;
    }
  }
  return fresh;
}

/** The metric line of an hourly mailing job's run: its new failures counted (and marked as reported). */
export async function metricLineWithNewFailures(
  result: JobResult,
  ports: { ledger?: Ledger | undefined; clock: Clock },
): Promise<string> {
  return jobMetricLine(result, { newFailures: await countNewFailures(result, ports) });
}
