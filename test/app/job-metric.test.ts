/** The EMF line a Lambda prints per run: the metrics the stack's JobFailed and heartbeat alarms read. */
import { describe, expect, it } from 'vitest';
import { JOB_METRICS, jobMetricLine } from '../../src/app/job-metric.ts';
import type { JobResult } from '../../src/core/job-result.ts';

const run = (ok: boolean): JobResult => ({ job: 'digest', ok, counts: {}, outputs: [], errors: [] });

describe('jobMetricLine', () => {
  it('is one EMF line declaring JobFailed and JobSucceeded under the stack and job dimensions of Pulse', () => {
    const text = jobMetricLine(run(true), { now: 1_700_000_000_000, stack: 'Pulse-eu' });
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd()).not.toContain('\n');
    const line = JSON.parse(text);
    expect(line._aws).toEqual({
      Timestamp: 1_700_000_000_000,
      CloudWatchMetrics: [
        {
          Namespace: 'Pulse',
          Dimensions: [['stack', 'job']],
          Metrics: [
            { Name: 'JobFailed', Unit: 'Count' },
            { Name: 'JobSucceeded', Unit: 'Count' },
          ],
        },
      ],
    });
    expect(line.job).toBe('digest');
    expect(line.stack).toBe('Pulse-eu');
    expect(JOB_METRICS).toEqual({
      namespace: 'Pulse',
      dimension: 'job',
      stackDimension: 'stack',
      failed: 'JobFailed',
      succeeded: 'JobSucceeded',
      newFailures: 'NewFailures',
    });
  });

  it("takes the stack from the function's environment ($PULSE_STACK_NAME, set by the stack)", () => {
    const before = process.env.PULSE_STACK_NAME;
    process.env.PULSE_STACK_NAME = 'Pulse-staging';
    try {
      expect(JSON.parse(jobMetricLine(run(true))).stack).toBe('Pulse-staging');
    } finally {
      if (before === undefined) delete process.env.PULSE_STACK_NAME;
      else process.env.PULSE_STACK_NAME = before;
    }
  });

  it('declares NewFailures only when the caller counted them', () => {
    expect(JSON.parse(jobMetricLine(run(false))).NewFailures).toBeUndefined();
    const line = JSON.parse(jobMetricLine(run(false), { newFailures: 2 }));
    expect(line).toMatchObject({ JobFailed: 1, NewFailures: 2 });
    expect(line._aws.CloudWatchMetrics[0].Metrics).toContainEqual({ Name: 'NewFailures', Unit: 'Count' });
  });

  it('counts a successful run as JobSucceeded 1, JobFailed 0', () => {
    expect(JSON.parse(jobMetricLine(run(true)))).toMatchObject({ JobFailed: 0, JobSucceeded: 1 });
  });

  it('counts a run that held or failed something as JobFailed 1, JobSucceeded 0 (no heartbeat)', () => {
    expect(JSON.parse(jobMetricLine(run(false)))).toMatchObject({ JobFailed: 1, JobSucceeded: 0 });
  });

  it('reports the mail events as Bounced (hard, transient, dropped by SES), Complained and Rejected', () => {
    const counts = { events: 6, bounced: 1, transientBounces: 1, suppressedBySes: 1, complained: 2, rejected: 1 };
    const line = JSON.parse(jobMetricLine({ job: 'mail-events', ok: true, counts, outputs: [], errors: [] }));
    expect(line).toMatchObject({ Bounced: 3, Complained: 2, Rejected: 1 });
    // Another job's `rejected` (the archive's rejected file names) is not a mail event.
    const archive = JSON.parse(
      jobMetricLine({ job: 'archive', ok: true, counts: { rejected: 4 }, outputs: [], errors: [] }),
    );
    expect(archive.Rejected).toBeUndefined();
  });
});
