/** What an operator gets from the stack: outputs to act on, the secret under a fixed name, alarms by email. */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { expectNewFailureAlarms, productionConfig, synthPulse } from './synth-pulse.ts';

describe('operator basics', () => {
  const { template } = synthPulse();

  it('outputs the secret name, the archive bucket, the state table and the alarm topic', () => {
    const outputs = template.toJSON().Outputs;
    expect(outputs.ReportingServiceSecretName.Value).toBe('pulse/reporting-service');
    expect(outputs.ArchiveBucketName.Value).toEqual({ Ref: expect.stringMatching(/^ArchiveBucket/) });
    expect(outputs.StateTableName.Value).toEqual({ Ref: expect.stringMatching(/^StateTable/) });
    expect(outputs.AlarmTopicArn.Value).toEqual({ Ref: expect.stringMatching(/^AlarmsTopic/) });
    expect(JSON.stringify(outputs.DashboardUrl.Value)).toContain('#dashboards:name=');
  });

  it('has one dashboard over every function, the copy queue and the dead-letter queues', () => {
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
    for (const label of ['Digest', 'ArchivePlan', 'ArchiveCopy', 'LicenseAlerts', 'LicenseReport', 'LicenseSync'])
      expect(body, label).toContain(`\\"label\\":\\"${label}\\"`);
    expect(body).toContain('ApproximateAgeOfOldestMessage');
  });

  it('names the credentials secret deploy.secretName, by default after the stack (pulse/reporting-service)', () => {
    template.hasResourceProperties('Custom::PulseReportingServiceSecret', { SecretName: 'pulse/reporting-service' });
    const config = {
      ...productionConfig(),
      deploy: { stackName: 'Pulse', secretName: 'acme/pulse/reporting', cloudTrailDataEvents: false },
    };
    const other = synthPulse({ props: { config } }).template;
    other.hasResourceProperties('Custom::PulseReportingServiceSecret', { SecretName: 'acme/pulse/reporting' });
    expect(other.toJSON().Outputs.ReportingServiceSecretName.Value).toBe('acme/pulse/reporting');
    // The functions' bundles name it; the exact ARN comes from the environment.
    const { deploy: _d, ...withoutDeploy } = productionConfig();
    const { stack } = synthPulse({ props: { config: withoutDeploy } });
    expect(stack.digest!.bundledConfig).toContain('"secretId": "pulse/reporting-service"');
  });

  it('subscribes deploy.alarmEmail to the alarm topic, and nobody without it', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'pulse-oncall@example.com',
      TopicArn: { Ref: Match.stringLikeRegexp('^AlarmsTopic') },
    });
    const { deploy: _d, ...withoutDeploy } = productionConfig();
    const bare = synthPulse({ props: { config: withoutDeploy } });
    expect(bare.template.findResources('AWS::SNS::Subscription')).toEqual({});
    // Nobody would hear an alarm: the synth says so (and `pulse doctor` checks the deployed topic).
    expect(bare.warnings).toEqual(['Construct Annotations Annotation::pulse:alarms-unsubscribed warning Pulse']);
    expect(synthPulse().warnings).toEqual([]);
  });
});

describe('two stacks in one account', () => {
  const named = (stackName: string) => {
    const config = productionConfig();
    return { ...config, deploy: { ...config.deploy!, stackName } };
  };
  const eu = synthPulse({ props: { config: named('Pulse-eu') } });
  const us = synthPulse({ props: { config: named('Pulse-us') } });

  /** Properties that give a resource a name unique in the account and region (CloudFormation generates the rest). */
  const NAME_PROPERTIES = new Set([
    'Name',
    'SecretName',
    'BucketName',
    'TableName',
    'QueueName',
    'TopicName',
    'FunctionName',
    'AlarmName',
    'DashboardName',
    'TrailName',
    'LogGroupName',
    'RoleName',
    'ConfigurationSetName',
  ]);
  const fixedNames = (t: typeof eu.template): string[] => {
    const resources = t.toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    return Object.values(resources).flatMap((r) =>
      Object.entries(r.Properties ?? {})
        .filter(([key, value]) => NAME_PROPERTIES.has(key) && typeof value === 'string')
        .map(([key, value]) => `${r.Type} ${key}=${value}`),
    );
  };

  it('take their names from deploy.stackName and share no fixed name', () => {
    expect(eu.stack.stackName).toBe('Pulse-eu');
    expect(us.stack.stackName).toBe('Pulse-us');
    const euNames = fixedNames(eu.template);
    expect(euNames).toContain('Custom::PulseReportingServiceSecret SecretName=pulse-eu/reporting-service');
    expect(euNames).toContain('AWS::Scheduler::Schedule Name=Pulse-eu-digest');
    const clash = euNames.filter((n) => fixedNames(us.template).includes(n));
    expect(clash).toEqual([]);
    expect(eu.findings).toEqual([]);
    expect(us.findings).toEqual([]);
  });

  it("keep their metrics and alarms apart: each alarms on its own stack's job metrics, and only its alarms may publish", () => {
    expectNewFailureAlarms(eu.template, 'digest', 'Pulse-eu');
    eu.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ PULSE_JOB: 'digest', PULSE_STACK_NAME: 'Pulse-eu' }) },
    });
    // The topic admits its own stack's alarms by ARN (pulse-stack.test.ts), never by a name pattern like
    // `Pulse-eu-*`, which would admit `Pulse-eu-2`'s.
    expect(JSON.stringify(eu.template.findResources('AWS::SNS::TopicPolicy'))).not.toContain(':alarm:');
  });
});
