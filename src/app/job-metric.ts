/**
 * The `Pulse` metrics of a job run as a CloudWatch Embedded Metric Format log line: the Lambda prints it, CloudWatch
 * turns it into metrics without an API call. Per `job`: `JobFailed` (0 or 1, one per run report: the stack's JobFailed
 * alarm watches its sum, the dashboard counts runs by its sample count), and, when the job reports them, `Sent`
 * (emails sent) and `Archived` (files newly archived) for the dashboard (lib/constructs/pulse-dashboard.ts).
 */
import type { JobResult } from '../jobs/job-result.ts';

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
          Namespace: 'Pulse',
          Dimensions: [['job']],
          Metrics: ['JobFailed', ...Object.keys(counts)].map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    },
    job: result.job,
    JobFailed: result.ok ? 0 : 1,
    ...counts,
  };
  return `${JSON.stringify(line)}\n`;
}
