/**
 * The archive's daily manifest chain check in the synthesized stack: a scheduled function after the plan step,
 * read-only on the manifests, whose JobFailed alarm says "archive manifest chain broken".
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { productionConfig, synthPulse } from './synth-pulse.ts';

const config = productionConfig();
const { stack, template, findings } = synthPulse({ props: { config } });

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Resource = { Properties: Record<string, any> };
const fnIdOf = (job: string): string => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return Object.keys(fns)[0]!;
};
const fnId = fnIdOf('archive-verify');
const fn = template.toJSON().Resources[fnId] as Resource;
const statements = (): { Action: string | string[]; Resource: unknown; Condition?: unknown }[] => {
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: role }]) },
  });
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
};

describe('archive-verify function', () => {
  it('runs daily at 06:20 UTC, after the 02:20 plan step, through Scheduler', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'Pulse-archive-verify',
      ScheduleExpression: 'cron(20 6 * * ? *)',
      ScheduleExpressionTimezone: 'Etc/UTC',
      Target: { Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } },
    });
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 300 });
    // The bucket only: no secret, no table, no queue.
    expect(
      Object.keys(fn.Properties.Environment.Variables)
        .filter((k) => k.startsWith('PULSE_'))
        .sort(),
    ).toEqual(['PULSE_ARCHIVE_BUCKET', 'PULSE_JOB', 'PULSE_STACK_NAME']);
  });

  it('gets the archive section in its bundle (and what the schema requires), nothing to send to', () => {
    const part = JSON.parse(stack.archive!.verify.bundledConfig!);
    expect(Object.keys(part).sort()).toEqual(['archive', 'mail', 'products', 'service']);
    expect(part.archive.prefix).toBe(config.archive!.prefix);
  });

  it('raises "archive manifest chain broken" on the JobFailed metric of archive-verify', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('^Pulse archive-verify: archive manifest chain broken'),
      Namespace: 'Pulse',
      MetricName: 'JobFailed',
      Dimensions: [
        { Name: 'job', Value: 'archive-verify' },
        { Name: 'stack', Value: 'Pulse' },
      ],
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: Match.anyValue() }],
    });
  });

  it('is read-only: GetObject on the manifests, their listing, the archive key decrypt, its own logs; nothing else', () => {
    const archiveBucket = stack.getLogicalId(stack.archiveBucket.node.defaultChild as never);
    const archiveKey = stack.getLogicalId(stack.archiveBucket.encryptionKey!.node.defaultChild as never);
    const own = statements().filter((s) => !String(s.Action).startsWith('xray:'));
    expect(own).toHaveLength(5);
    expect(own).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: 's3:GetObject',
          Resource: {
            'Fn::Join': ['', [{ 'Fn::GetAtt': [archiveBucket, 'Arn'] }, `/${config.archive!.prefix}/manifests/*`]],
          },
        }),
        expect.objectContaining({
          Action: 's3:ListBucket',
          Resource: { 'Fn::GetAtt': [archiveBucket, 'Arn'] },
          Condition: { StringLike: { 's3:prefix': `${config.archive!.prefix}/manifests/*` } },
        }),
        expect.objectContaining({ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'] }),
        expect.objectContaining({ Action: 'kms:Decrypt', Resource: { 'Fn::GetAtt': [archiveKey, 'Arn'] } }),
        // Its on-failure destination (ScheduledJob).
        expect.objectContaining({ Action: expect.arrayContaining(['sqs:SendMessage']) }),
      ]),
    );
    expect(JSON.stringify(own)).not.toMatch(
      /s3:PutObject|s3:Delete|Retention|kms:GenerateDataKey|secretsmanager|dynamodb/,
    );
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(findings).toEqual([]);
  });
});
