import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { expectNewFailureAlarms, productionConfig, synthPulse } from './synth-pulse.ts';

const config = productionConfig();
const { template, findings, stack } = synthPulse({ props: { config } });

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Resource = { Properties: Record<string, any> };

const reportFunction = (): [string, Resource] => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: 'license-report' }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return Object.entries(fns)[0] as [string, Resource];
};

/** The statements of the policy attached to the report function's role. */
function reportStatements(): Record<string, unknown>[] {
  const [, fn] = reportFunction();
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  return policies
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

describe('license report function', () => {
  it('runs on Node 24 / arm64 with the config, table, bucket and its template', () => {
    const [, fn] = reportFunction();
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 900 });
    const env = fn.Properties.Environment.Variables;
    expect(env.PULSE_TEMPLATES_DIR).toBe('/var/task/templates');
    expect(env.PULSE_STATE_TABLE).toBeDefined();
    expect(env.PULSE_ARCHIVE_BUCKET).toBeDefined();
    expect(env.PULSE_SERVICE_SECRET_ARN).toBeDefined();
    expect(stack.licenseReport).toBeDefined();
  });

  it('runs hourly and alarms on function errors and on reported job failures', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(15 * * * ? *)' });
    // Failing every hour is shown (JobFailed, no action); only a failure no earlier run reported notifies.
    expectNewFailureAlarms(template, 'license-report');
  });

  it('may touch only its ledger items, read and create only under its two archive prefixes, send only as the sender', () => {
    const statements = reportStatements();
    const text = JSON.stringify(statements);
    expect(text).toContain('/pulse/license-registry/*');
    expect(text).toContain('/pulse/license-reports/*');
    expect(text).not.toContain('/pulse/*"');
    expect(text).not.toContain('/pulse/digests/');
    expect(text).not.toMatch(/s3:DeleteObject|s3:PutObjectRetention|s3:\*|dynamodb:\*|dynamodb:Scan|dynamodb:Query/);
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          Condition: {
            'ForAllValues:StringLike': {
              'dynamodb:LeadingKeys': [
                'license-report#*',
                'notice-unknown#license-report#*',
                'failure-seen#license-report#*',
              ],
            },
          },
        }),
        expect.objectContaining({
          Action: ['ses:SendEmail', 'ses:SendRawEmail'],
          Condition: { StringEquals: { 'ses:FromAddress': config.mail.from } },
        }),
      ]),
    );
  });

  it('is left out of a stack whose config has no license report', () => {
    const { licenses: _l, ...rest } = config;
    expect(synthPulse({ props: { config: rest } }).stack.licenseReport).toBeUndefined();
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(findings).toEqual([]);
  });
});
