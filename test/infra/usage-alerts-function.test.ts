/**
 * The usage alerts' function in the synthesized stack (lib/stacks/pulse-stack.ts `addUsageAlerts`): present only
 * when `usageAlerts` has rules; hourly at :40 UTC with the hourly mailing jobs' alarms; its template and the chart
 * renderer's files in its bundle; and exactly the rights its adapters use: its ledger items, its series states
 * (get and put only), the suppression list, SES as the sender, the stack's secret, and in the archive the creation
 * of its evidence objects only (no read, no other folder) with the bucket key's data keys to encrypt them.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { expectNewFailureAlarms, productionConfig, synthPulse } from './synth-pulse.ts';

const config = productionConfig();
const { template, findings, stack } = synthPulse({ props: { config } });

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
type Resource = { Properties: Record<string, any> };

function usageAlertsFunction(): Resource {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: 'usage-alerts' }) } },
  });
  expect(Object.keys(fns)).toHaveLength(1);
  return Object.values(fns)[0] as Resource;
}

function statements(): Record<string, unknown>[] {
  const role = usageAlertsFunction().Properties.Role['Fn::GetAtt'][0];
  return (Object.values(template.findResources('AWS::IAM::Policy')) as Resource[])
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

const leading = (keys: string[]) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } });

describe('usage alerts function', () => {
  it('runs on Node 24 / arm64 with its template, the chart assets, the table, the secret and the archive bucket', () => {
    expect(config.usageAlerts?.rules.map((r) => r.id)).toEqual(['desktop-active-drop', 'new-clients-weekly']);
    const fn = usageAlertsFunction();
    expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 600 });
    expect(fn.Properties.MemorySize).toBe(512);
    const env = fn.Properties.Environment.Variables;
    expect(env.PULSE_TEMPLATES_DIR).toBe('/var/task/templates');
    expect(env.PULSE_CHART_ASSETS_DIR).toBe('/var/task/chart-assets');
    expect(env.PULSE_STATE_TABLE).toBeDefined();
    expect(env.PULSE_ARCHIVE_BUCKET).toEqual({
      Ref: stack.getLogicalId(stack.archiveBucket.node.defaultChild as never),
    });
    expect(env.PULSE_SERVICE_SECRET_ARN).toBeDefined();
    // Bounces of its emails come back through the stack's configuration set (mail-events).
    expect(env.PULSE_SES_CONFIGURATION_SET).toBeDefined();
    expect(stack.usageAlerts).toBeDefined();
  });

  it('runs hourly at :40 UTC within 10 minutes, with the hourly mailing jobs’ alarms and a 3-hour heartbeat', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Name: 'Pulse-usage-alerts',
      ScheduleExpression: 'cron(40 * * * ? *)',
      ScheduleExpressionTimezone: 'Etc/UTC',
      FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 10 },
    });
    expectNewFailureAlarms(template, 'usage-alerts');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('^Pulse usage-alerts: no run finished in 3 hours'),
      EvaluationPeriods: 3,
    });
  });

  it('may touch its ledger items and series states only, read the suppression list, send as the sender', () => {
    const all = statements();
    const dynamo = all.filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    expect(dynamo.map((s) => ({ Action: s.Action, Condition: s.Condition }))).toEqual([
      {
        Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        Condition: leading(['usage-alert#*', 'usage-alert-problem#*', 'failure-seen#usage-alerts#*']),
      },
      { Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Condition: leading(['usage-alert-state#*']) },
      { Action: 'dynamodb:GetItem', Condition: leading(['mail-suppressed']) },
    ]);
    expect(all).toContainEqual(
      expect.objectContaining({
        Action: ['ses:SendEmail', 'ses:SendRawEmail'],
        Condition: { StringEquals: { 'ses:FromAddress': config.mail.from } },
      }),
    );
    const text = JSON.stringify(all);
    // One secret: the stack's (the config names no channel for its rules).
    expect(text.match(/secretsmanager:GetSecretValue/g)).toHaveLength(1);
    expect(text).not.toMatch(/dynamodb:(Scan|Query|BatchWriteItem|\*)|notice-unknown#/);
  });

  it('may create objects under its evidence folder of the archive only, and never read one', () => {
    const all = statements();
    const s3 = all.filter((s) => JSON.stringify(s.Action).includes('s3:'));
    const evidence = `${config.archive!.prefix}/usage-alerts/evidence/*`;
    expect(s3).toEqual([
      expect.objectContaining({
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [expect.anything(), `/${evidence}`]] },
      }),
      expect.objectContaining({ Action: 's3:ListBucket', Condition: { StringLike: { 's3:prefix': evidence } } }),
    ]);
    const kms = all.filter((s) => JSON.stringify(s.Action).includes('kms:'));
    expect(kms.map((s) => s.Action)).toEqual(['kms:GenerateDataKey']);
  });

  it('is left out of a stack whose config has no usage rules', () => {
    const { usageAlerts: _u, ...rest } = config;
    const without = synthPulse({ props: { config: rest } });
    expect(without.stack.usageAlerts).toBeUndefined();
    const text = JSON.stringify(without.template.toJSON());
    expect(text).not.toContain('"PULSE_JOB":"usage-alerts"');
    expect(text).not.toContain('usage-alert-state#');
  });

  it('passes the cdk-nag AwsSolutions checks', () => {
    expect(findings).toEqual([]);
  });
});
