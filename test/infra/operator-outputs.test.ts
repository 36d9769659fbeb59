/** What an operator gets from the stack: outputs to act on, the secret under a fixed name, alarms by email. */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_USER_NAME } from '../../src/adapters/aws/secrets.ts';
import { productionConfig, synthPulse } from './synth-pulse.ts';

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

  it('creates the secret with the placeholder user name the functions refuse', () => {
    const secret = Object.values(template.findResources('AWS::SecretsManager::Secret'))[0]!;
    expect(JSON.parse(secret.Properties.GenerateSecretString.SecretStringTemplate)).toEqual({
      userName: PLACEHOLDER_USER_NAME,
    });
  });

  it('creates the credentials secret under deploy.secretName (default pulse/reporting-service)', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'pulse/reporting-service' });
    const config = {
      ...productionConfig(),
      deploy: { secretName: 'acme/pulse/reporting', cloudTrailDataEvents: false },
    };
    const other = synthPulse({ props: { config } }).template;
    other.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'acme/pulse/reporting' });
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
    expect(synthPulse({ props: { config: withoutDeploy } }).template.findResources('AWS::SNS::Subscription')).toEqual(
      {},
    );
  });
});
