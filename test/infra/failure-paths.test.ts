/**
 * Failure paths in the synthesized stack: every way a scheduled run can go missing raises an alarm on the alarm
 * topic — Scheduler could not start it (schedule dead-letter queue), it failed after Lambda's retries (on-failure
 * queue), runs stopped finishing (heartbeat on the sample count of Pulse/JobFailed), a run came near its timeout, or copy tasks wait
 * too long in their queue. Also the schedules' time zones and flexible windows (lib/stacks/job-schedules.ts).
 */
import { type CfnElement, Duration, type Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ScheduledJob } from '../../lib/constructs/scheduled-job.ts';
import { archivePlanTiming, sharedZone } from '../../lib/stacks/job-schedules.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { productionConfig, synthPulse } from './synth-pulse.ts';

const example = loadConfig(new URL('../../examples/pulse.config.json', import.meta.url).pathname);
// With usage rules (the production example's, on the same products) when the example has none: every scheduled job.
const config: PulseConfig = { ...example, usageAlerts: example.usageAlerts ?? productionConfig().usageAlerts };
const { template, findings, stack } = synthPulse({ props: { config } });
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Resource = { Type: string; Properties: Record<string, any> };
const resources = template.toJSON().Resources as Record<string, Resource>;
const topicRef = { Ref: stack.getLogicalId(stack.alarmTopic.node.defaultChild as CfnElement) };

/** The logical id of the function whose PULSE_JOB is `job`. */
function functionId(job: string): string {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return Object.keys(fns)[0]!;
}
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const byType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** Each scheduled job: its cron, zone, flexible window (minutes), max event age (s), Lambda retries, heartbeat (h). */
const SCHEDULED = [
  { job: 'digest', cron: 'cron(5 * * * ? *)', zone: 'Etc/UTC', window: 10, maxAge: 3600, retries: 1, heartbeat: 3 },
  {
    job: 'license-alerts',
    cron: 'cron(10 * * * ? *)',
    zone: 'Etc/UTC',
    window: 10,
    maxAge: 3600,
    retries: 1,
    heartbeat: 3,
  },
  {
    job: 'license-report',
    cron: 'cron(15 * * * ? *)',
    zone: 'Europe/Berlin',
    window: 15,
    maxAge: 3600,
    retries: 1,
    heartbeat: 3,
  },
  {
    job: 'usage-alerts',
    cron: 'cron(40 * * * ? *)',
    zone: 'Etc/UTC',
    window: 10,
    maxAge: 3600,
    retries: 1,
    heartbeat: 3,
  },
  {
    job: 'archive',
    fn: 'archive-plan', // the plan step's function; its schedule, alarms and metrics keep the job's name
    cron: 'cron(20 2 * * ? *)',
    zone: 'Etc/UTC',
    window: 60,
    maxAge: 21_600,
    retries: 2,
    heartbeat: 26,
  },
  {
    job: 'archive-verify',
    cron: 'cron(20 6 * * ? *)',
    zone: 'Etc/UTC',
    window: 30,
    maxAge: 21_600,
    retries: 2,
    heartbeat: 26,
  },
] as const;

/** The queue behind an SQS ARN reference, checked to be encrypted, kept 14 days, TLS-only, and alarmed on. */
function expectAlarmedDeadLetterQueue(ref: unknown, description: RegExp): void {
  const queueId = (ref as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  expect(resources[queueId]).toMatchObject({
    Type: 'AWS::SQS::Queue',
    Properties: { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 },
  });
  template.hasResourceProperties('AWS::SQS::QueuePolicy', {
    Queues: [{ Ref: queueId }],
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    },
  });
  template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    AlarmDescription: Match.stringLikeRegexp(description.source),
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    TreatMissingData: 'notBreaching',
    AlarmActions: [topicRef],
  });
}

describe('scheduled jobs on EventBridge Scheduler', () => {
  it('schedules every scheduled job with Scheduler, none with an EventBridge rule', () => {
    // The one EventBridge rule is the KMS key deletion watch (compliance.test.ts), not a schedule.
    const rules = Object.values(template.findResources('AWS::Events::Rule'));
    expect(rules.map((r) => r.Properties.EventPattern.source)).toEqual([['aws.kms']]);
    expect(JSON.stringify(rules)).not.toContain('ScheduleExpression');
    template.resourceCountIs('AWS::Scheduler::Schedule', SCHEDULED.length);
  });

  it.each(SCHEDULED)(
    '$job: cron in its zone, flexible window, explicit retries and a dead-letter queue that alarms',
    (s) => {
      const fnId = functionId('fn' in s ? s.fn : s.job);
      const [[, schedule]] = byType('AWS::Scheduler::Schedule').filter(
        ([, r]) => JSON.stringify(r.Properties.Target.Arn) === JSON.stringify(arnOf(fnId)),
      ) as [[string, Resource]];
      expect(schedule.Properties).toMatchObject({
        Name: `Pulse-${s.job}`,
        ScheduleExpression: s.cron,
        ScheduleExpressionTimezone: s.zone,
        FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: s.window },
        State: 'ENABLED',
        Target: {
          Input: '{}',
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: s.maxAge },
          DeadLetterConfig: { Arn: expect.anything() },
        },
      });
      expectAlarmedDeadLetterQueue(
        schedule.Properties.Target.DeadLetterConfig.Arn,
        new RegExp(`^Pulse ${s.job}: EventBridge Scheduler could not start a run`),
      );
      // The schedule's own role: invoke this function, send to this dead-letter queue, nothing else.
      const roleId = schedule.Properties.Target.RoleArn['Fn::GetAtt'][0];
      expect(resources[roleId]!.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        expect.objectContaining({
          Principal: { Service: 'scheduler.amazonaws.com' },
          Condition: {
            StringEquals: {
              'aws:SourceAccount': { Ref: 'AWS::AccountId' },
              // Scheduler's source is the schedule group, never one schedule (its confused-deputy guidance).
              'aws:SourceArn': { 'Fn::Join': ['', expect.arrayContaining([':schedule-group/default'])] },
            },
          },
        }),
      ]);
      const policies = template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } });
      const statements = Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
      expect(statements.map((st) => st.Action)).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
      expect(statements[1].Resource).toEqual(schedule.Properties.Target.DeadLetterConfig.Arn);
    },
  );

  it.each(SCHEDULED)('$job: async runs retried explicitly, then sent to an on-failure queue that alarms', (s) => {
    const fnId = functionId('fn' in s ? s.fn : s.job);
    const configs = template.findResources('AWS::Lambda::EventInvokeConfig', {
      Properties: { FunctionName: { Ref: fnId } },
    });
    expect(Object.keys(configs)).toHaveLength(1);
    const invoke = Object.values(configs)[0]!.Properties;
    expect(invoke).toMatchObject({ MaximumRetryAttempts: s.retries, MaximumEventAgeInSeconds: s.maxAge });
    const onFailure = invoke.DestinationConfig.OnFailure.Destination;
    expectAlarmedDeadLetterQueue(onFailure, new RegExp(`^Pulse ${s.job}: a run failed after its retries`));
    // The function may send its failed runs there.
    const role = resources[fnId]!.Properties.Role['Fn::GetAtt'][0];
    const policies = JSON.stringify(
      template.findResources('AWS::IAM::Policy', { Properties: { Roles: Match.arrayWith([{ Ref: role }]) } }),
    );
    expect(policies).toContain(JSON.stringify(onFailure));
    expect(policies).toContain('sqs:SendMessage');
  });

  it.each(SCHEDULED)('$job: heartbeat alarm when no run finished (failed or not) for $heartbeat hours', (s) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp(`^Pulse ${s.job}: no run finished in ${s.heartbeat} hours`),
      Namespace: 'Pulse',
      // One sample per finished run, whatever it reported: a digest held all week cannot keep this in ALARM.
      MetricName: 'JobFailed',
      Dimensions: [
        { Name: 'job', Value: s.job },
        { Name: 'stack', Value: 'Pulse' },
      ],
      Statistic: 'SampleCount',
      Period: 3600,
      EvaluationPeriods: s.heartbeat,
      DatapointsToAlarm: s.heartbeat,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      // No run at all is the failure this alarm exists for.
      TreatMissingData: 'breaching',
      AlarmActions: [topicRef],
    });
  });
});

describe('duration and queue age alarms', () => {
  it('alarms per function when its slowest run of the hour took at least 90 % of its timeout', () => {
    const fns = byType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.PULSE_JOB);
    expect(fns.length).toBe(9); // with archive-verify, the usage alerts and the deploy-time secret setup
    for (const [id, fn] of fns)
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
        Statistic: 'Maximum',
        Period: 3600,
        Threshold: fn.Properties.Timeout * 1000 * 0.9,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [topicRef],
      });
  });

  it('alarms when a copy task has waited in the copy queue for more than 6 hours', () => {
    const copyQueue = stack.getLogicalId(stack.archive!.copier.queue.node.defaultChild as CfnElement);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [copyQueue, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 6 * 3600,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [topicRef],
    });
  });
});

describe('schedule time zones', () => {
  it('takes the one zone all local times share, UTC when there are several', () => {
    expect(sharedZone(['Asia/Kolkata', 'Asia/Kolkata']).timezoneName).toBe('Asia/Kolkata');
    expect(sharedZone(['Europe/Berlin', 'America/New_York']).timezoneName).toBe('Etc/UTC');
    expect(sharedZone([]).timezoneName).toBe('Etc/UTC');
    expect(archivePlanTiming().schedule.timeZone?.timezoneName).toBe('Etc/UTC');
  });

  it("runs the hourly digest in its zone when every schedule and recipient is in it (a :30 zone's minute)", () => {
    const kolkata: PulseConfig = {
      ...config,
      digests: config.digests.map((d) => ({
        ...d,
        schedule: { ...d.schedule, timeZone: 'Asia/Kolkata' },
        recipients: d.recipients.map(({ timeZone: _tz, ...r }) => r),
      })),
    };
    synthPulse({ props: { config: kolkata } }).template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Description: 'Pulse digest',
      ScheduleExpression: 'cron(5 * * * ? *)',
      ScheduleExpressionTimezone: 'Asia/Kolkata',
    });
  });

  it('refuses a heartbeat CloudWatch cannot evaluate', () => {
    for (const heartbeat of [Duration.hours(1), Duration.minutes(90), Duration.days(8)])
      expect(() =>
        synthPulse({
          extend: (s: Stack) =>
            new ScheduledJob(s, 'Bad', {
              job: 'digest',
              environment: {},
              alarmTopic: (s as typeof stack).alarmTopic,
              ...archivePlanTiming(),
              heartbeat,
            }),
        }),
      ).toThrow(/heartbeat|whole/i);
  });
});

describe('cdk-nag', () => {
  it('passes the AwsSolutions checks with the failure paths in place', () => {
    expect(findings).toEqual([]);
  });
});
