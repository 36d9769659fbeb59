/**
 * A job run's metrics as one CloudWatch Embedded Metric Format log line: the Lambda prints it, CloudWatch turns it
 * into metrics without an API call. Per run, under the `job` dimension: `Pulse/JobFailed` (1 when the run held or
 * failed something; the stack's JobFailed alarm) and `Pulse/JobSucceeded` (1 when it did not; the heartbeat alarm of
 * a scheduled job fires when no run reported success for too long, i.e. runs stopped happening or finishing).
 */
import type { JobResult } from '../jobs/job-result.ts';

/** The namespace, dimension and metric names the stack's alarms read (lib/constructs/pulse-function.ts). */
export const JOB_METRICS = {
  namespace: 'Pulse',
  dimension: 'job',
  failed: 'JobFailed',
  succeeded: 'JobSucceeded',
} as const;

export function jobMetricLine(result: JobResult, now: number = Date.now()): string {
  const line = {
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        {
          Namespace: JOB_METRICS.namespace,
          Dimensions: [[JOB_METRICS.dimension]],
          Metrics: [
            { Name: JOB_METRICS.failed, Unit: 'Count' },
            { Name: JOB_METRICS.succeeded, Unit: 'Count' },
          ],
        },
      ],
    },
    [JOB_METRICS.dimension]: result.job,
    [JOB_METRICS.failed]: result.ok ? 0 : 1,
    [JOB_METRICS.succeeded]: result.ok ? 1 : 0,
  };
  return `${JSON.stringify(line)}\n`;
}
