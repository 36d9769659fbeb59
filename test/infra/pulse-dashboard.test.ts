/**
 * The operator's dashboard, synthesized in a tiny stack of its own: the jobs' `Pulse` metrics of this stack (runs,
 * failed, new failures, sent, archived, bounced: one line per job by search), each function's duration, errors and throttles, the copy queue's depth and
 * oldest message, dead letters, the alarms' state, and a console URL ready for an output.
 */
import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { PulseDashboard, type PulseDashboardProps } from '../../lib/constructs/pulse-dashboard.ts';
import { jobMetricLine } from '../../src/app/job-metric.ts';

const stackName = 'DashboardTest';

function synth(extra: (stack: Stack) => Partial<PulseDashboardProps> = () => ({})) {
  const app = new App();
  const stack = new Stack(app, stackName, { env: { account: '123456789012', region: 'eu-central-1' } });
  const fn = (id: string) =>
    new LambdaFunction(stack, id, {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => {};'),
    });
  const dashboard = new PulseDashboard(stack, 'Dashboard', {
    functions: [fn('Digest'), fn('ArchiveCopy')],
    ...extra(stack),
  });
  new CfnOutput(stack, 'DashboardUrl', { value: dashboard.dashboardUrl });
  const template = Template.fromStack(stack);
  const dashboards = template.findResources('AWS::CloudWatch::Dashboard');
  expect(Object.keys(dashboards)).toHaveLength(1);
  const [logicalId, resource] = Object.entries(dashboards)[0]!;
  // The body is a Fn::Join of strings and references: the strings are enough to read the widgets.
  const parts = (resource as { Properties: { DashboardBody: { 'Fn::Join': [string, unknown[]] } } }).Properties
    .DashboardBody['Fn::Join'][1];
  const body = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('');
  return { template, body, logicalId };
}

describe('PulseDashboard', () => {
  it('graphs runs, failed runs, emails sent and files archived per job from the Pulse EMF metrics', () => {
    const { body } = synth();
    for (const [metric, statistic] of [
      ['JobFailed', 'SampleCount'],
      ['JobFailed', 'Sum'],
      ['NewFailures', 'Sum'],
      ['Sent', 'Sum'],
      ['Archived', 'Sum'],
      ['Bounced', 'Sum'],
    ])
      expect(body).toContain(
        `SEARCH('{Pulse,job,stack} stack=\\"${stackName}\\" MetricName=\\"${metric}\\"', '${statistic}', 3600)`,
      );
    for (const title of [
      'Runs per job',
      'Failed runs per job',
      'New failures per job',
      'Emails sent per job',
      'Files archived',
    ])
      expect(body).toContain(title);
  });

  it('graphs the metrics the functions print (jobMetricLine): Sent from sent or emails, Archived from archived', () => {
    const metrics = (job: string, counts: Record<string, number>, ok = true) => {
      const line = JSON.parse(jobMetricLine({ job, ok, counts, outputs: [], errors: [] }, { now: 0 }));
      const names = line._aws.CloudWatchMetrics[0].Metrics.map((m: { Name: string }) => m.Name);
      return Object.fromEntries(names.map((n: string) => [n, line[n]]));
    };
    expect(metrics('digest', { sent: 2, failed: 0 })).toEqual({ JobFailed: 0, JobSucceeded: 1, Sent: 2 });
    expect(metrics('license-alerts', { alertsSent: 9, emails: 3 }, false)).toEqual({
      JobFailed: 1,
      JobSucceeded: 0,
      Sent: 3,
    });
    expect(metrics('archive', { listed: 5, archived: 4 })).toEqual({ JobFailed: 0, JobSucceeded: 1, Archived: 4 });
    expect(metrics('licenses-sync', { rows: 10 })).toEqual({ JobFailed: 0, JobSucceeded: 1 });
  });

  it("graphs each function's duration, errors and throttles, labelled by its construct", () => {
    const { body } = synth();
    for (const metric of ['Duration', 'Errors', 'Throttles']) expect(body).toContain(`"AWS/Lambda","${metric}"`);
    expect(body).toContain('"label":"Digest"');
    expect(body).toContain('"label":"ArchiveCopy"');
  });

  it("graphs the copy queue's depth and oldest message, the dead letters, and the alarms' state when given", () => {
    const { body } = synth((stack) => {
      const copyQueue = new Queue(stack, 'CopyQueue');
      const metric = new Metric({ namespace: 'Pulse', metricName: 'JobFailed', dimensionsMap: { job: 'digest' } });
      return {
        copyQueue,
        deadLetterQueues: [new Queue(stack, 'CopyDeadLetters')],
        alarmTopic: new Topic(stack, 'Alarms'),
        alarms: [new Alarm(stack, 'DigestFailed', { metric, threshold: 1, evaluationPeriods: 1 })],
      };
    });
    expect(body).toContain('"AWS/SQS","ApproximateNumberOfMessagesVisible"');
    expect(body).toContain('"AWS/SQS","ApproximateAgeOfOldestMessage"');
    expect(body).toContain('"label":"CopyDeadLetters"');
    expect(body).toContain('"type":"alarm"');
    expect(body).toContain('"sortBy":"stateUpdatedTimestamp"');
    expect(body).toContain('Alarms go to the SNS topic');
  });

  it('leaves the queue widgets out without a queue', () => {
    const { body } = synth();
    expect(body).not.toContain('AWS/SQS');
  });

  it('exposes the console URL of the dashboard, ready for a CfnOutput', () => {
    const { template, logicalId } = synth();
    template.hasOutput('DashboardUrl', {
      Value: {
        'Fn::Join': [
          '',
          [
            'https://eu-central-1.console.aws.amazon.com/cloudwatch/home?region=eu-central-1#dashboards:name=',
            { Ref: logicalId },
          ],
        ],
      },
    });
  });
});
