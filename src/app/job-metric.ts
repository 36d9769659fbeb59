/**
 * A job run's `Pulse` metrics as one CloudWatch Embedded Metric Format log line: the Lambda prints it, CloudWatch
 * turns it into metrics without an API call. Per run, under the `stack` and `job` dimensions (two stacks in one
 * account keep their metrics, and so their alarms, apart): `JobFailed` (1 when the run held or failed something;
 * the JobFailed alarm watches its sum; its sample count is the number of runs that finished, which the heartbeat
 * alarm and the dashboard read), `JobSucceeded` (1 when it did not), `NewFailures` when the caller counted them
 * (failures no earlier run reported: src/app/new-failures.ts; the hourly mailing jobs' alarm), and, when the job
 * reports them, `Sent` (emails sent), `Archived` (files newly archived) for the dashboard
 * (lib/constructs/pulse-dashboard.ts), and for the mail-events job `Bounced`, `Complained` and `Rejected`, which its
 * MailBounced alarm sums (lib/constructs/mail-events.ts). Docs: docs/alarms.md.
 */
import type { JobResult } from '../core/job-result.ts';

/** The namespace, dimension and metric names the stack's alarms read (lib/constructs/pulse-function.ts). */
export const JOB_METRICS = {
  namespace: 'Pulse',
  dimension: 'job',
  stackDimension: 'stack',
  failed: 'JobFailed',
  succeeded: 'JobSucceeded',
  newFailures: 'NewFailures',
} as const;

/** The environment variable naming the function's stack (lib/constructs/pulse-function.ts sets it). */
export const STACK_NAME_ENV = 'PULSE_STACK_NAME';

export interface JobMetricOptions {
  /** @default Date.now() */
  now?: number;
  /** @default `$PULSE_STACK_NAME`, else "Pulse" */
  stack?: string;
  /** Failures no earlier run reported (countNewFailures); absent = not counted by this job. */
  newFailures?: number;
}

/** Metric name → the count it reports, first one present: digest and report `sent`, license alerts `emails`. */
const COUNT_METRICS: Record<string, string[]> = { Sent: ['sent', 'emails'], Archived: ['archived'] };

/** The job that reads SES's mail events (src/mail-events/), and its metrics: the counts summed into each. */
export const MAIL_EVENTS_JOB = 'mail-events';
export const MAIL_EVENT_METRICS: Record<string, string[]> = {
  Bounced: ['bounced', 'transientBounces', 'suppressedBySes'],
  Complained: ['complained'],
  Rejected: ['rejected'],
};

export function jobMetricLine(result: JobResult, opts: JobMetricOptions = {}): string {
  const counts: Record<string, number> = {};
  if (opts.newFailures !== undefined) counts[JOB_METRICS.newFailures] = opts.newFailures;
  for (const [metric, names] of Object.entries(COUNT_METRICS)) {
    const name = names.find((n) => typeof result.counts[n] === 'number');
    if (name !== undefined) counts[metric] = result.counts[name]!;
  }
  if (result.job === MAIL_EVENTS_JOB)
    for (const [metric, names] of Object.entries(MAIL_EVENT_METRICS))
      counts[metric] = names.reduce((sum, n) => sum + (result.counts[n] ?? 0), 0);
  const line = {
    _aws: {
      Timestamp: opts.now ?? Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: JOB_METRICS.namespace,
          Dimensions: [[JOB_METRICS.stackDimension, JOB_METRICS.dimension]],
          Metrics: [JOB_METRICS.failed, JOB_METRICS.succeeded, ...Object.keys(counts)].map((Name) => ({
            Name,
            Unit: 'Count',
          })),
        },
      ],
    },
    [JOB_METRICS.stackDimension]: opts.stack ?? process.env[STACK_NAME_ENV] ?? 'Pulse',
    [JOB_METRICS.dimension]: result.job,
    [JOB_METRICS.failed]: result.ok ? 0 : 1,
    [JOB_METRICS.succeeded]: result.ok ? 1 : 0,
    ...counts,
  };
  return `${JSON.stringify(line)}\n`;
}
