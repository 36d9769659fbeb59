import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { MAIL_EVENT_METRICS, MAIL_EVENTS_JOB } from '../../src/app/job-metric.ts';
import { jobMetric } from './pulse-function.ts';
import { QueueWorker } from './queue-worker.ts';

/** The SES events Pulse reads (src/mail-events/ses-event.ts), as EventBridge's detail types name them. */
export const MAIL_EVENT_DETAIL_TYPES = ['Email Bounced', 'Email Complaint Received', 'Email Rejected'];

export interface MailEventsProps {
  readonly alarmTopic: ITopic;
  /** The worker's environment and its part of the config (lib/function-config.ts). */
  readonly environment: Record<string, string>;
  readonly config: object;
}

/**
 * What SES says after a send: every Pulse email goes out with this configuration set, whose bounce, complaint and
 * reject events (a drop by the account's suppression list is a bounce) SES publishes to the account's default
 * event bus; a rule takes this configuration set's events to a queue, drained by the mail-events function
 * (functions/mail-events: record on the delivery, count, suppress the address, tell the owner once). The queue keeps
 * an event the function could not settle (3 deliveries, then its dead-letter queue, alarmed); an event EventBridge
 * could not put on the queue goes to that dead-letter queue too.
 *
 * `MailBounced` fires on each hour with a bounce, complaint or reject (`Pulse/Bounced + Complained + Rejected` of the
 * mail-events job ≥ 1) and returns to OK the next hour: each new one notifies.
 */
export class MailEvents extends Construct {
  public readonly configurationSet: ConfigurationSet;
  public readonly worker: QueueWorker;
  public readonly rule: Rule;
  public readonly bounced: Alarm;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', {});
    this.configurationSet.addEventDestination('ToEventBridge', {
      // SES publishes to the default bus only.
      destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT, EmailSendingEvent.REJECT],
    });
    this.worker = new QueueWorker(this, 'Worker', {
      handler: MAIL_EVENTS_JOB,
      environment: { ...props.environment, PULSE_TEMPLATES_DIR: '/var/task/templates' },
      config: props.config,
      // The owners' notices are rendered from the failure-notice template (src/mail-events/mail-event-notice.ts).
      assets: { 'templates/compiled/failure-notice.html': 'templates/failure-notice.html' },
      alarmTopic: props.alarmTopic,
      // A batch of ten events: a few ledger writes and at most one notice each.
      timeout: Duration.minutes(2),
      batchSize: 10,
      maxConcurrency: 2,
      maxReceiveCount: 3,
    });
    this.rule = new Rule(this, 'Rule', {
      description: "Pulse: SES's bounce, complaint and reject events of Pulse's configuration set",
      eventPattern: {
        source: ['aws.ses'],
        detailType: MAIL_EVENT_DETAIL_TYPES,
        detail: { mail: { tags: { 'ses:configuration-set': [this.configurationSet.configurationSetName] } } },
      },
    });
    // The queue's policy admits this rule alone (aws:SourceArn), for the queue and its dead-letter queue.
    this.rule.addTarget(new SqsQueue(this.worker.queue, { deadLetterQueue: this.worker.deadLetterQueue }));

    const usingMetrics = Object.fromEntries(
      Object.keys(MAIL_EVENT_METRICS).map((name) => [
        name.toLowerCase(),
        jobMetric(this, name, MAIL_EVENTS_JOB, Duration.hours(1)),
      ]),
    );
    this.bounced = new Alarm(this, 'MailBounced', {
      alarmDescription:
        'Pulse mail-events: an email bounced, was complained about or rejected (the owner was told; docs/alarms.md)',
      metric: new MathExpression({
        expression: Object.keys(usingMetrics).join(' + '),
        usingMetrics,
        period: Duration.hours(1),
        label: 'bounced + complained + rejected',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.bounced.addAlarmAction(new SnsAction(props.alarmTopic));
  }
}
