/**
 * The archive's functions in the synthesized stack: a daily plan step, a queue of copy tasks drained by a bounded
 * number of copiers, a dead-letter queue that alarms, and rights that can add to the write-once archive but never
 * take from it.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STALE_AFTER_MS } from '../../src/archive/plan-step.ts';
import { productionConfig, synthPulse } from './synth-pulse.ts';

const config = productionConfig();
const { template, findings } = synthPulse({ props: { config } });

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Resource = { Properties: Record<string, any> };
const functionOf = (job: string): Resource => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return Object.values(fns)[0] as Resource;
};
const policyOf = (job: string): string => {
  const role = functionOf(job).Properties.Role['Fn::GetAtt'][0];
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: role }]) },
  });
  return JSON.stringify(policies);
};

describe('archive functions', () => {
  it('plans daily and copies on Node 24 / arm64, with the stack names and the queue', () => {
    for (const job of ['archive-plan', 'archive-copy']) {
      const fn = functionOf(job);
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 900 });
      const env = fn.Properties.Environment.Variables;
      expect(Object.keys(env)).toEqual(
        expect.arrayContaining(['PULSE_SERVICE_SECRET_ARN', 'PULSE_STATE_TABLE', 'PULSE_ARCHIVE_BUCKET']),
      );
      // Only the plan step sends to the queue; the copier has no use for its address.
      expect(env.PULSE_COPY_QUEUE_URL !== undefined).toBe(job === 'archive-plan');
    }
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(20 2 * * ? *)',
      ScheduleExpressionTimezone: 'Etc/UTC',
    });
  });

  it('drains the copy queue in batches of four with partial batch responses, as many copiers as the session budget leaves', () => {
    expect(config.service.sessionBudget).toBe(3); // the default
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 4,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      // 3 sessions: 2 copiers + 1 for the scheduled functions.
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it('gives the copiers 3 of a budget of 4 sessions, and refuses a budget that would leave the copiers fewer than 2', () => {
    const budget4 = { ...config, service: { ...config.service, sessionBudget: 4 } };
    synthPulse({ props: { config: budget4 } }).template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      ScalingConfig: { MaximumConcurrency: 3 },
    });
    const budget2 = { ...config, service: { ...config.service, sessionBudget: 2 } };
    expect(() => synthPulse({ props: { config: budget2 } })).toThrow(/service\.sessionBudget: at least 3/);
  });

  it('delivers a task five times (room for deliveries handed back at the session limit), then dead-letters it and raises an alarm; both queues encrypted', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 6 * 900,
      RedrivePolicy: { maxReceiveCount: 5, deadLetterTargetArn: Match.anyValue() },
      SqsManagedSseEnabled: true,
    });
    // Every delivery is over before a plan step would finish the run as stale (its copier "never reported").
    expect(5 * 6 * 900 * 1000).toBeLessThan(DEFAULT_STALE_AFTER_MS);
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 14 * 86_400,
      SqsManagedSseEnabled: true,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      AlarmActions: Match.anyValue(),
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'JobFailed',
      Dimensions: [
        { Name: 'job', Value: 'archive' },
        { Name: 'stack', Value: 'Pulse' },
      ],
    });
  });

  it("may add and read the archive's own objects (and their versions) but never delete them or change their retention", () => {
    const prefix = config.archive!.prefix;
    for (const job of ['archive-plan', 'archive-copy']) {
      const policy = policyOf(job);
      for (const product of config.products) expect(policy).toContain(`/${prefix}/${product.id}/*`);
      for (const folder of ['runs', 'manifests', 'coverage']) expect(policy).toContain(`/${prefix}/${folder}/*`);
      // Not the prefix as a whole: the digests, license registry and license-sync uploads are other jobs'.
      expect(policy).not.toContain(`/${prefix}/*"`);
      expect(policy).toContain('s3:PutObject');
      for (const forbidden of ['s3:DeleteObject', 's3:PutObjectRetention', 's3:BypassGovernanceRetention', 's3:*'])
        expect(policy).not.toContain(`"${forbidden}`);
    }
    // Only the copier writes exports and reads them by version; the plan step reads them and writes run records.
    expect(policyOf('archive-copy')).toContain('s3:GetObjectVersion');
    expect(policyOf('archive-plan')).not.toContain('s3:GetObjectVersion');
    expect(policyOf('archive-plan')).toContain('sqs:SendMessage');
    expect(policyOf('archive-copy')).not.toContain('sqs:SendMessage');
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(findings).toEqual([]);
  });
});
