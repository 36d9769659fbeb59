import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { expectNewFailureAlarms, productionConfig, synthPulse } from './synth-pulse.ts';

const config = productionConfig();
const { template, findings, stack } = synthPulse({ props: { config } });

const digestFunction = () => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: 'digest' }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  // biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
  return Object.values(fns)[0] as { Properties: Record<string, any> };
};

describe('digest function', () => {
  it('runs on Node 24 / arm64 with the config, table, bucket and template folder in its environment', () => {
    const fn = digestFunction();
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' });
    const env = fn.Properties.Environment.Variables;
    expect(env.PULSE_TEMPLATES_DIR).toBe('/var/task/templates');
    expect(env.PULSE_STATE_TABLE).toBeDefined();
    expect(env.PULSE_ARCHIVE_BUCKET).toBeDefined();
  });

  it('gets credentials only from the stack secret, never from environment variables', () => {
    const env = digestFunction().Properties.Environment.Variables;
    expect(env.PULSE_SERVICE_SECRET_ARN).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^ReportingServiceCredentials/), 'Arn'],
    });
    expect(stack.digest!.bundledConfig).toContain('"source": "secretsManager"');
    expect(JSON.stringify(env)).not.toContain('PULSE_PASSWORD');
  });

  it('runs hourly and alarms on function errors and on reported job failures', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(5 * * * ? *)' });
    // Failing every hour is shown (JobFailed, no action); only a failure no earlier run reported notifies.
    expectNewFailureAlarms(template, 'digest');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Namespace: 'AWS/Lambda' });
  });

  it('may write only under the digest prefix of the archive and send only from the configured address', () => {
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('/pulse/digests/*');
    expect(policies).not.toContain('s3:DeleteObject');
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['ses:SendEmail', 'ses:SendRawEmail'],
            Condition: { StringEquals: { 'ses:FromAddress': config.mail.from } },
          }),
        ]),
      },
    });
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(findings).toEqual([]);
  });
});
