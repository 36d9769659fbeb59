/**
 * The compliance knobs in the synthesized stack: Pulse's KMS keys retained and watched for a scheduled deletion
 * (an EventBridge rule on CloudTrail's KMS events to the alarm topic), and the optional CloudTrail data events of
 * the archive bucket (`deploy.cloudTrailDataEvents`).
 */
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { productionConfig, synthPulse } from './synth-pulse.ts';

const logicalId = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);
const config = productionConfig();
const off = synthPulse({ props: { config } });
const on = synthPulse({
  props: { config: { ...config, deploy: { ...config.deploy!, cloudTrailDataEvents: true } } },
});

describe('KMS keys', () => {
  it('are retained, rotated and wait the longest KMS allows (30 days) before a scheduled deletion', () => {
    const keys = off.template.findResources('AWS::KMS::Key');
    expect(Object.keys(keys)).toHaveLength(2); // the archive's and the alarm topic's
    for (const key of Object.values(keys))
      expect(key).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { EnableKeyRotation: true, PendingWindowInDays: 30 },
      });
  });

  it('raise "KMS key pending deletion": ScheduleKeyDeletion or DisableKey of either key goes to the alarm topic', () => {
    const archiveKey = logicalId(off.stack.archiveBucket.encryptionKey!);
    // The KMS watch (the other rule takes SES's mail events to the mail-events queue: mail-events.test.ts).
    const rules = off.template.findResources('AWS::Events::Rule', {
      Properties: { EventPattern: { source: ['aws.kms'] } },
    });
    expect(Object.keys(rules)).toHaveLength(1);
    const rule = Object.values(rules)[0]!;
    expect(rule.Properties.EventPattern).toEqual({
      source: ['aws.kms'],
      'detail-type': ['AWS API Call via CloudTrail'],
      detail: {
        eventSource: ['kms.amazonaws.com'],
        eventName: ['ScheduleKeyDeletion', 'DisableKey'],
        $or: [
          { resources: { ARN: expect.arrayContaining([{ 'Fn::GetAtt': [archiveKey, 'Arn'] }]) } },
          {
            requestParameters: {
              keyId: expect.arrayContaining([{ 'Fn::GetAtt': [archiveKey, 'Arn'] }, { Ref: archiveKey }]),
            },
          },
        ],
      },
    });
    const keyArns = rule.Properties.EventPattern.detail.$or[0].resources.ARN.map(
      (a: { 'Fn::GetAtt': [string] }) => a['Fn::GetAtt'][0],
    );
    expect(new Set(keyArns)).toEqual(new Set(Object.keys(off.template.findResources('AWS::KMS::Key'))));
    // EventBridge reads every `<name>` in the template as a placeholder: each must be one of the paths.
    const { InputPathsMap, InputTemplate } = rule.Properties.Targets[0].InputTransformer;
    for (const [, name] of (InputTemplate as string).matchAll(/<([^>]*)>/g))
      expect(InputPathsMap).toHaveProperty([name!]);
    expect(InputPathsMap).toMatchObject({ 'detail-requestParameters-keyId': '$.detail.requestParameters.keyId' });
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { Ref: logicalId(off.stack.alarmTopic) },
        InputTransformer: expect.objectContaining({
          InputTemplate: expect.stringContaining('KMS key pending deletion'),
        }),
      }),
    ]);
  });

  it("lets EventBridge publish to the encrypted alarm topic: the topic policy and the topic key's policy", () => {
    off.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: 'sns:Publish', Principal: { Service: 'events.amazonaws.com' } }),
        ]),
      },
    });
    off.template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Principal: { Service: Match.arrayWith(['events.amazonaws.com']) },
          }),
        ]),
      },
    });
  });
});

describe('CloudTrail data events of the archive (deploy.cloudTrailDataEvents)', () => {
  it('are off by default: no trail, no trail bucket', () => {
    expect(config.deploy?.cloudTrailDataEvents).toBe(false);
    expect(off.template.findResources('AWS::CloudTrail::Trail')).toEqual({});
    expect(off.stack.archiveDataEvents).toBeUndefined();
    expect(Object.keys(off.template.findResources('AWS::S3::Bucket'))).toHaveLength(2);
  });

  it('when on, a single-region trail logs read and write data events of the archive bucket only', () => {
    const archive = logicalId(on.stack.archiveBucket);
    on.template.resourceCountIs('AWS::CloudTrail::Trail', 1);
    on.template.hasResourceProperties('AWS::CloudTrail::Trail', {
      IsLogging: true,
      IsMultiRegionTrail: false,
      IncludeGlobalServiceEvents: false,
      EnableLogFileValidation: true,
      EventSelectors: [
        {
          IncludeManagementEvents: false,
          ReadWriteType: 'All',
          DataResources: [
            {
              Type: 'AWS::S3::Object',
              Values: [{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [archive, 'Arn'] }, '/']] }],
            },
          ],
        },
      ],
    });
  });

  it('when on, logs into its own encrypted, private, TLS-only bucket that expires them after the archive retention', () => {
    const trailBucket = logicalId(on.stack.archiveDataEvents!.logBucket);
    expect(on.template.toJSON().Resources[trailBucket]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        // A log file overwritten or deleted stays as a noncurrent version for as long.
        LifecycleConfiguration: {
          Rules: [
            expect.objectContaining({ ExpirationInDays: 365, NoncurrentVersionExpiration: { NoncurrentDays: 365 } }),
          ],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        LoggingConfiguration: { LogFilePrefix: 'cloudtrail/' },
      },
    });
    on.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: trailBucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({ Action: 's3:PutObject', Principal: { Service: 'cloudtrail.amazonaws.com' } }),
        ]),
      },
    });
  });

  it('passes the cdk-nag AwsSolutions checks, on and off', () => {
    expect(off.findings).toEqual([]);
    expect(on.findings).toEqual([]);
  });
});
