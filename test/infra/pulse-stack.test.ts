import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { LICENSE_SYNC_SESSIONS } from '../../lib/stacks/session-budget.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { ArchiveConfig } from '../../src/config/schema.ts';
import { expectNewFailureAlarms, productionConfig, synthPulse } from './synth-pulse.ts';

const { stack, template, findings } = synthPulse();
const logicalId = (c: IConstruct) => Stack.of(c).getLogicalId(c.node.defaultChild as CfnElement);
const retained = { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' };
const denyInsecureTransport = Match.objectLike({
  Effect: 'Deny',
  Condition: { Bool: { 'aws:SecureTransport': 'false' } },
});

describe('archive bucket', () => {
  it('is write-once: Object Lock with a default COMPLIANCE retention of 365 days, versioned', () => {
    expect(template.toJSON().Resources[logicalId(stack.archiveBucket)]).toMatchObject({
      ...retained,
      Properties: {
        ObjectLockEnabled: true,
        ObjectLockConfiguration: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Days: 365, Mode: 'COMPLIANCE' } },
        },
        VersioningConfiguration: { Status: 'Enabled' },
      },
    });
  });

  it('is KMS-encrypted, fully private, logs to a separate bucket and expires noncurrent versions', () => {
    template.hasResource('AWS::S3::Bucket', {
      Properties: Match.objectLike({
        ObjectLockEnabled: true,
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            Match.objectLike({ ServerSideEncryptionByDefault: Match.objectLike({ SSEAlgorithm: 'aws:kms' }) }),
          ],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LoggingConfiguration: { DestinationBucketName: { Ref: Match.anyValue() }, LogFilePrefix: 'archive/' },
        LifecycleConfiguration: {
          Rules: [Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 365 }, Status: 'Enabled' })],
        },
      }),
    });
    const buckets = template.findResources('AWS::S3::Bucket', retained);
    expect(Object.keys(buckets)).toHaveLength(2); // archive + its access-log bucket, both retained
  });

  it('denies non-TLS access on both buckets', () => {
    const policies = template.findResources('AWS::S3::BucketPolicy', {
      Properties: { PolicyDocument: { Statement: Match.arrayWith([denyInsecureTransport]) } },
    });
    expect(Object.keys(policies)).toHaveLength(2);
  });

  it("takes its retention days and mode from the config's archive.retention", () => {
    const config = productionConfig();
    const withRetention = (retention: ArchiveConfig['retention']) => ({
      ...config,
      archive: { ...config.archive!, retention },
    });
    const governance = synthPulse({ props: { config: withRetention({ days: 30, mode: 'GOVERNANCE' }) } });
    governance.template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Days: 30, Mode: 'GOVERNANCE' } },
      },
      LifecycleConfiguration: { Rules: [Match.objectLike({ NoncurrentVersionExpiration: { NoncurrentDays: 30 } })] },
    });
    expect(governance.findings).toEqual([]);
    synthPulse({
      props: { config: withRetention({ days: 36_500, mode: 'COMPLIANCE' }) },
    }).template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockConfiguration: { Rule: { DefaultRetention: { Days: 36_500, Mode: 'COMPLIANCE' } } },
    });
  });

  it('keeps the 365-day COMPLIANCE default for a config without an archive section', () => {
    const { archive: _, ...config } = productionConfig();
    synthPulse({ props: { config } }).template.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockConfiguration: { Rule: { DefaultRetention: { Days: 365, Mode: 'COMPLIANCE' } } },
    });
  });
});

describe('state table', () => {
  it('has pk/sk string keys, on-demand billing, PITR, TTL on expiresAt and is retained', () => {
    expect(template.toJSON().Resources[logicalId(stack.stateTable)]).toMatchObject({
      ...retained,
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      },
    });
  });
});

describe('Reporting Service secret', () => {
  it('is set up at deploy time by its own custom resource, so the template holds no secret value', () => {
    template.hasResourceProperties('Custom::PulseReportingServiceSecret', {
      SecretName: 'pulse/reporting-service',
      StackName: 'Pulse',
      ServiceToken: { 'Fn::GetAtt': [logicalId(stack.secretSetup.fn), 'Arn'] },
    });
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/SecretString|GenerateSecretString/);
  });

  it('lets the setup function describe, create, restore and tag that one secret name, nothing else', () => {
    const role = template.toJSON().Resources[logicalId(stack.secretSetup.fn)].Properties.Role['Fn::GetAtt'][0];
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement);
    const secrets = statements.filter((st) => JSON.stringify(st.Action).includes('secretsmanager:'));
    expect(secrets).toEqual([
      {
        Action: [
          'secretsmanager:CreateSecret',
          'secretsmanager:DescribeSecret',
          'secretsmanager:RestoreSecret',
          'secretsmanager:TagResource',
        ],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':secretsmanager:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':secret:pulse/reporting-service-??????',
            ],
          ],
        },
      },
    ]);
    expect(JSON.stringify(statements)).not.toMatch(/GetSecretValue|PutSecretValue|DeleteSecret/);
  });

  it("gives the functions the secret's exact ARN, as the custom resource answers it", () => {
    const secretResource = Object.keys(template.findResources('Custom::PulseReportingServiceSecret'))[0]!;
    const env = template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: 'digest' }) } },
    });
    expect(Object.values(env)[0]!.Properties.Environment.Variables.PULSE_SERVICE_SECRET_ARN).toEqual({
      'Fn::GetAtt': [secretResource, 'Arn'],
    });
  });
});

describe('alarm topic', () => {
  it('is encrypted with a rotating key CloudWatch may use, and TLS-only', () => {
    const topic = template.toJSON().Resources[logicalId(stack.alarmTopic)];
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    expect(template.toJSON().Resources[keyId]).toMatchObject({ Properties: { EnableKeyRotation: true } });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            // With EventBridge's (the KMS key deletion watch publishes too: compliance.test.ts).
            Principal: { Service: Match.arrayWith(['cloudwatch.amazonaws.com']) },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([denyInsecureTransport]) },
    });
  });

  it("admits CloudWatch for this account's alarms of this stack, by ARN, and the key-deletion rule by its ARN", () => {
    const [policy] = Object.values(template.findResources('AWS::SNS::TopicPolicy'));
    const statements = policy!.Properties.PolicyDocument.Statement as Record<string, unknown>[];
    const topic = { Ref: logicalId(stack.alarmTopic) };
    const alarms = Object.keys(template.findResources('AWS::CloudWatch::Alarm')).sort();
    const cloudWatch = statements.find((st) => JSON.stringify(st.Principal).includes('cloudwatch.amazonaws.com'));
    expect(cloudWatch).toMatchObject({
      Effect: 'Allow',
      Action: 'sns:Publish',
      Resource: topic,
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    });
    // Every alarm of the stack, and nothing else (no name pattern another stack's alarms could match).
    const admitted = (cloudWatch!.Condition as { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [string] }[] } })
      .ArnEquals['aws:SourceArn'];
    expect(admitted.map((a) => a['Fn::GetAtt'][0]).sort()).toEqual(alarms);
    expect(alarms.length).toBeGreaterThan(45);
    const rule = Object.keys(
      template.findResources('AWS::Events::Rule', { Properties: { EventPattern: { source: ['aws.kms'] } } }),
    )[0]!;
    expect(statements.find((st) => JSON.stringify(st.Principal).includes('events.amazonaws.com'))).toMatchObject({
      Effect: 'Allow',
      Action: 'sns:Publish',
      Resource: topic,
      Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [rule, 'Arn'] } } },
    });
    // The only statements: TLS-only, CloudWatch, EventBridge.
    expect(statements).toHaveLength(3);
  });

  it('alarms when SNS could not deliver a notification to a subscriber', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SNS',
      MetricName: 'NumberOfNotificationsFailed',
      Dimensions: [{ Name: 'TopicName', Value: { 'Fn::GetAtt': [logicalId(stack.alarmTopic), 'TopicName'] } }],
      Statistic: 'Sum',
      Threshold: 1,
      AlarmActions: [{ Ref: logicalId(stack.alarmTopic) }],
    });
  });

  it('is shown, with every other alarm, at the top of the dashboard', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const id of Object.keys(template.findResources('AWS::CloudWatch::Alarm')))
      expect(body, id).toContain(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] }));
    expect(body).toContain('\\"type\\":\\"alarm\\"');
  });
});

describe('cdk-nag AwsSolutions and Serverless', () => {
  it('reports no unacknowledged findings for the Pulse stack', () => {
    expect(findings).toEqual([]);
  });

  // Both packs run (bin/app.ts adds the same two): a queue without a redrive policy is a finding of each.
  it('reports a deliberately non-compliant queue in both packs', () => {
    const bad = synthPulse({ extend: (s) => new Queue(s, 'NoRedrive', { enforceSSL: true }) });
    expect(bad.findings).toEqual(
      expect.arrayContaining([
        'AwsSolutions AwsSolutions-SQS3 error Pulse/NoRedrive/Resource',
        'Serverless Serverless-SQSRedrivePolicy error Pulse/NoRedrive/Resource',
      ]),
    );
  });

  // Proves the check above can fail: the report is really read and non-compliance really surfaces.
  it('reports a deliberately non-compliant bucket', () => {
    const bad = synthPulse({ extend: (s) => new Bucket(s, 'NonCompliant') });
    expect(bad.findings).toEqual(
      expect.arrayContaining([
        'AwsSolutions AwsSolutions-S1 error Pulse/NonCompliant/Resource',
        'AwsSolutions AwsSolutions-S10 error Pulse/NonCompliant/Resource',
      ]),
    );
  });

  it('fails synthesis on a finding, as `cdk synth` does', () => {
    expect(() => synthPulse({ reportOnly: false, extend: (s) => new Bucket(s, 'NonCompliant') })).toThrow(
      /AwsSolutions-S1/,
    );
  });
});

describe('retention validation', () => {
  const withDays = (days: number) => {
    const config = productionConfig();
    return { ...config, archive: { ...config.archive!, retention: { days, mode: 'COMPLIANCE' as const } } };
  };

  it.each([0, -1, 1.5, 36_501, Number.NaN])('refuses a config with archive.retention.days = %s', (days) => {
    expect(() => parseConfig(withDays(days), 'pulse.config.json')).toThrow(/archive\.retention\.days/);
    // A config object that skipped the schema is still refused at synth, naming the construct's field.
    expect(() => synthPulse({ props: { config: withDays(days) } })).toThrow(/retentionDays/);
  });
});

describe('license sync function', () => {
  const config = productionConfig();
  const synth = synthPulse({ props: { config } });
  const syncFn = () => {
    const fns = synth.template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: 'license-sync' }) } },
    });
    expect(Object.keys(fns)).toHaveLength(1);
    return Object.keys(fns)[0]!;
  };
  /** The statements of the policies attached to the function's role. */
  const statements = () => {
    const role = synth.template.findResources('AWS::Lambda::Function')[syncFn()]!.Properties.Role['Fn::GetAtt'][0];
    const policies = synth.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: role }] },
    });
    // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
    return Object.values(policies).flatMap((p: any) => p.Properties.PolicyDocument.Statement);
  };

  it('runs one upload at a time: each run holds a Reporting Service session (its share of the budget)', () => {
    const fn = synth.template.findResources('AWS::Lambda::Function')[syncFn()]!;
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(LICENSE_SYNC_SESSIONS);
    expect(LICENSE_SYNC_SESSIONS).toBe(1);
    // Uploads S3 delivers meanwhile wait in Lambda's async queue, retried for up to 6 hours.
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: syncFn() },
      MaximumEventAgeInSeconds: 6 * 3600,
    });
  });

  it('is triggered by CSVs created under <prefix>/license-sync/incoming/', () => {
    synth.template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        LambdaFunctionConfigurations: [
          Match.objectLike({
            Events: ['s3:ObjectCreated:*'],
            Filter: {
              Key: {
                FilterRules: Match.arrayWith([
                  { Name: 'suffix', Value: '.csv' },
                  { Name: 'prefix', Value: 'pulse/license-sync/incoming/' },
                ]),
              },
            },
          }),
        ],
      },
    });
  });

  it('may read only incoming/, write only results/, read its secret, and never delete or touch the table', () => {
    const json = JSON.stringify(statements());
    const s3 = statements().filter((s) => JSON.stringify(s.Action).includes('s3:'));
    expect(s3.map((s) => [s.Action, JSON.stringify(s.Resource)])).toEqual([
      ['s3:GetObject', expect.stringContaining('/pulse/license-sync/incoming/*')],
      [['s3:AbortMultipartUpload', 's3:PutObject'], expect.stringContaining('/pulse/license-sync/results/*')],
    ]);
    expect(json).toContain('secretsmanager:GetSecretValue');
    expect(json).not.toContain('dynamodb:');
    expect(json).not.toContain('s3:DeleteObject');
  });

  it('alarms on function errors and on reported job failures; cdk-nag is clean', () => {
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'JobFailed',
      Dimensions: [
        { Name: 'job', Value: 'licenses-sync' },
        { Name: 'stack', Value: 'Pulse' },
      ],
    });
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: 'Pulse license-sync: the function failed',
    });
    expect(synth.findings).toEqual([]);
  });

  it('keeps the event of a sync that failed after its retries in an alarmed on-failure queue', () => {
    const failedRuns = logicalId(synth.stack.licenseSyncFailedRuns!);
    synth.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: syncFn() },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 6 * 3600,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [failedRuns, 'Arn'] } } },
    });
    synth.template.hasResourceProperties('AWS::SQS::Queue', Match.objectLike({ MessageRetentionPeriod: 14 * 86_400 }));
    synth.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [failedRuns, 'QueueName'] } }],
      Threshold: 1,
    });
  });
});

describe('license alerts function', () => {
  const withLicenses = synthPulse({
    props: { config: productionConfig() },
  });
  const policyOf = () => {
    const fns = withLicenses.template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: 'license-alerts' }) } },
    });
    expect(Object.keys(fns)).toHaveLength(1);
    const role = Object.values(fns)[0]!.Properties.Role['Fn::GetAtt'][0];
    const policies = withLicenses.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: [{ Ref: role }] },
    });
    return JSON.stringify(Object.values(policies).map((p) => p.Properties.PolicyDocument));
  };

  it('runs hourly with its template, and alarms on errors and on reported job failures', () => {
    const t = withLicenses.template;
    t.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(10 * * * ? *)' });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      // A 1M-key registry's run peaks near 500 MB (bench/RESULTS.md).
      MemorySize: 1024,
      Environment: {
        Variables: Match.objectLike({ PULSE_JOB: 'license-alerts', PULSE_TEMPLATES_DIR: '/var/task/templates' }),
      },
    });
    expectNewFailureAlarms(t, 'license-alerts');
  });

  it('may read its secret, touch only license-alert ledger items, send only from the configured address', () => {
    const policy = policyOf();
    expect(policy).toContain('secretsmanager:GetSecretValue');
    expect(policy).toContain(
      '"dynamodb:LeadingKeys":["license-alert#*","notice-unknown#license-alerts#*","failure-seen#license-alerts#*"]',
    );
    expect(policy).not.toMatch(/dynamodb:(Scan|Query|BatchWriteItem|\*)/);
    expect(policy).toContain('"ses:FromAddress":"pulse@example.com"');
    expect(policy).not.toMatch(/"s3:/);
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(withLicenses.findings).toEqual([]);
  });
});
