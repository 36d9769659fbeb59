/**
 * The stack's side of bounces (lib/constructs/mail-events.ts, docs/alarms.md "Bounces and complaints"): an SES
 * configuration set every mailing function sends with, its bounce, complaint and reject events through EventBridge
 * to the mail-events queue (and its dead-letter queue), the function's rights, and the MailBounced alarm. SMTP, or
 * SES in another region than the stack's, gets none (and the synth says so for the second).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { MAIL_EVENT_DETAIL_TYPES } from '../../lib/constructs/mail-events.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { productionConfig, synthPulse } from './synth-pulse.ts';

const { stack, template, findings } = synthPulse();
const configurationSet = Object.keys(template.findResources('AWS::SES::ConfigurationSet'))[0]!;
const env = (job: string) => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  return Object.values(fns)[0]!.Properties.Environment.Variables as Record<string, unknown>;
};
// biome-ignore lint/suspicious/noExplicitAny: CloudFormation properties are untyped JSON.
const statementsOf = (job: string): Record<string, any>[] => {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { Environment: { Variables: Match.objectLike({ PULSE_JOB: job }) } },
  });
  const role = Object.values(fns)[0]!.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
};

describe('mail events (SES transport)', () => {
  it("sends SES's bounce, complaint and reject events of the configuration set to the default event bus", () => {
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      ConfigurationSetName: { Ref: configurationSet },
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: Match.arrayEquals(['bounce', 'complaint', 'reject']),
        EventBridgeDestination: { EventBusArn: Match.anyValue() },
      },
    });
    expect(JSON.stringify(template.findResources('AWS::SES::ConfigurationSetEventDestination'))).toContain(
      ':event-bus/default',
    );
  });

  it("takes only this configuration set's events to the mail-events queue, dead-lettering what it cannot deliver", () => {
    const queue = stack.getLogicalId(stack.mailEvents!.worker.queue.node.defaultChild as never);
    const deadLetters = stack.getLogicalId(stack.mailEvents!.worker.deadLetterQueue.node.defaultChild as never);
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.ses'],
        'detail-type': MAIL_EVENT_DETAIL_TYPES,
        detail: { mail: { tags: { 'ses:configuration-set': [{ Ref: configurationSet }] } } },
      },
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [queue, 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetters, 'Arn'] } },
        }),
      ],
    });
    // The SQS event source reports partial batches: only the records the function hands back come again.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('gives every mailing function the configuration set, and SES rights on it', () => {
    for (const job of ['digest', 'license-alerts', 'license-report', 'usage-alerts', 'mail-events']) {
      expect(env(job).PULSE_SES_CONFIGURATION_SET, job).toEqual({ Ref: configurationSet });
      const ses = statementsOf(job).find((s) => JSON.stringify(s.Action).includes('ses:SendEmail'));
      expect(JSON.stringify(ses?.Resource), job).toContain(':configuration-set/');
    }
    expect(env('archive-plan').PULSE_SES_CONFIGURATION_SET).toBeUndefined();
  });

  it('lets the mail-events function add to the suppression list, record on deliveries and send its notices only', () => {
    const dynamo = statementsOf('mail-events').filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    expect(dynamo.map((s) => [s.Action, s.Condition['ForAllValues:StringLike']['dynamodb:LeadingKeys']])).toEqual([
      [['dynamodb:GetItem', 'dynamodb:PutItem'], ['mail-suppressed']],
      [['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], ['notice-mail#*']],
      [
        ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        [
          'digest#*',
          'digest-held#*',
          'digest-preview#*',
          'license-alert#*',
          'license-report#*',
          'usage-alert#*',
          'usage-alert-problem#*',
          'notice-unknown#*',
        ],
      ],
      // (Its read of the suppression list as a sender, before it claims a notice, is the first statement's.)
    ]);
    // No Reporting Service, no archive.
    expect(JSON.stringify(statementsOf('mail-events'))).not.toMatch(/secretsmanager|s3:/);
  });

  it('alarms on each hour with a bounce, complaint or reject of this stack', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('^Pulse mail-events: an email bounced'),
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'bounced + complained + rejected' }),
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: 'Pulse',
              MetricName: 'Bounced',
              Dimensions: [
                { Name: 'job', Value: 'mail-events' },
                { Name: 'stack', Value: 'Pulse' },
              ],
            },
          }),
        }),
      ]),
    });
  });

  it('passes cdk-nag', () => {
    expect(findings).toEqual([]);
  });
});

describe('no mail events without SES in the stack region', () => {
  const withTransport = (transport: PulseConfig['mail']['transport']) => {
    const config = productionConfig();
    return synthPulse({ props: { config: { ...config, mail: { ...config.mail, transport } } } });
  };

  it('SMTP: no configuration set, no mail-events function (an SMTP server returns bounces to the sender)', () => {
    const smtp = withTransport({ kind: 'smtp', host: 'smtp.example.com', port: 587, secure: false });
    expect(smtp.stack.mailEvents).toBeUndefined();
    smtp.template.resourceCountIs('AWS::SES::ConfigurationSet', 0);
    expect(smtp.findings).toEqual([]);
  });

  it('SES in another region: none, and the synth says bounces are not reported', () => {
    const elsewhere = withTransport({ kind: 'ses', region: 'eu-west-1' });
    expect(elsewhere.stack.mailEvents).toBeUndefined();
    expect(elsewhere.warnings).toEqual(['Construct Annotations Annotation::pulse:bounces-unseen warning Pulse']);
  });
});
