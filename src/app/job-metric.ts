/**
 * A job run's `Pulse` metrics as one CloudWatch Embedded Metric Format log line: the Lambda prints it, CloudWatch
 * turns it into metrics without an API call. Per run, under the `job` dimension: `JobFailed` (1 when the run held or
 * failed something; the stack's JobFailed alarm watches its sum, the dashboard counts runs by its sample count),
 * `JobSucceeded` (1 when it did not; the heartbeat alarm of a scheduled job fires when no run reported success for
 * too long, i.e. runs stopped happening or finishing), and, when the job reports them, `Sent` (emails sent) and
 * `Archived` (files newly archived) for the dashboard (lib/constructs/pulse-dashboard.ts).
 */
import type { JobResult } from '../jobs/job-result.ts';

/** The namespace, dimension and metric names the stack's alarms read (lib/constructs/pulse-function.ts). */
export const JOB_METRICS = {
  namespace: 'Pulse',
  dimension: 'job',
  failed: 'JobFailed',
  succeeded: 'JobSucceeded',
} as const;

/** Metric name → the count it reports, first one present: digest and report `sent`, license alerts `emails`. */
const COUNT_METRICS: Record<string, string[]> = { Sent: ['sent', 'emails'], Archived: ['archived'] };

export function jobMetricLine(result: JobResult, now: number = Date.now()): string {
  const counts: Record<string, number> = {};
  for (const [metric, names] of Object.entries(COUNT_METRICS)) {
    const name = names.find((n) => typeof result.counts[n] === 'number');
    if (name !== undefined) counts[metric] = result.counts[name]!;
  }
  const line = {
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        {
          Namespace: JOB_METRICS.namespace,
          Dimensions: [[JOB_METRICS.dimension]],
          Metrics: [JOB_METRICS.failed, JOB_METRICS.succeeded, ...Object.keys(counts)].map((Name) => ({
            Name,
            Unit: 'Count',
          })),
        },
      ],
    },
    [JOB_METRICS.dimension]: result.job,
    [JOB_METRICS.failed]: result.ok ? 0 : 1,
    [JOB_METRICS.succeeded]: result.ok ? 1 : 0,
    ...counts,
  };
  return `${JSON.stringify(line)}\n`;
}
