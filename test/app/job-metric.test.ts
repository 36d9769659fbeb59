/** The EMF line a Lambda prints per run: the metrics the stack's JobFailed and heartbeat alarms read. */
import { describe, expect, it } from 'vitest';
import { JOB_METRICS, jobMetricLine } from '../../src/app/job-metric.ts';
import type { JobResult } from '../../src/jobs/job-result.ts';

const run = (ok: boolean): JobResult => ({ job: 'digest', ok, counts: {}, outputs: [], errors: [] });

describe('jobMetricLine', () => {
  it('is one EMF line declaring JobFailed and JobSucceeded under the job dimension of Pulse', () => {
    const text = jobMetricLine(run(true), 1_700_000_000_000);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd()).not.toContain('\n');
    const line = JSON.parse(text);
    expect(line._aws).toEqual({
      Timestamp: 1_700_000_000_000,
      CloudWatchMetrics: [
        {
          Namespace: 'Pulse',
          Dimensions: [['job']],
          Metrics: [
            { Name: 'JobFailed', Unit: 'Count' },
            { Name: 'JobSucceeded', Unit: 'Count' },
          ],
        },
      ],
    });
    expect(line.job).toBe('digest');
    expect(JOB_METRICS).toEqual({
      namespace: 'Pulse',
      dimension: 'job',
      failed: 'JobFailed',
      succeeded: 'JobSucceeded',
    });
  });

  it('counts a successful run as JobSucceeded 1, JobFailed 0', () => {
    expect(JSON.parse(jobMetricLine(run(true)))).toMatchObject({ JobFailed: 0, JobSucceeded: 1 });
  });

  it('counts a run that held or failed something as JobFailed 1, JobSucceeded 0 (no heartbeat)', () => {
    expect(JSON.parse(jobMetricLine(run(false)))).toMatchObject({ JobFailed: 1, JobSucceeded: 0 });
  });
});
