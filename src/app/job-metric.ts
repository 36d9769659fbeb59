/**
 * The `Pulse/JobFailed` metric as a CloudWatch Embedded Metric Format log line: the Lambda prints it, CloudWatch
 * turns it into a metric without an API call, and the stack's JobFailed alarm watches it.
 */
import type { JobResult } from '../jobs/job-result.ts';

export function jobMetricLine(result: JobResult, now: number = Date.now()): string {
  const line = {
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        { Namespace: 'Pulse', Dimensions: [['job']], Metrics: [{ Name: 'JobFailed', Unit: 'Count' }] },
      ],
    },
    job: result.job,
    JobFailed: result.ok ? 0 : 1,
  };
  return `${JSON.stringify(line)}\n`;
}
