import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarm, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

export interface EncryptedAlarmTopicProps {
  readonly displayName: string;
}

/**
 * An SNS topic that CloudWatch alarms can publish to although it is KMS-encrypted and TLS-only.
 *
 * - The AWS-managed `alias/aws/sns` key cannot be used: its policy does not admit CloudWatch, so alarm notifications
 *   would be silently dropped. A customer-managed key is required, and its policy admits CloudWatch.
 * - The topic's own policy admits CloudWatch too (`admitAlarms`): as soon as anything (an EventBridge target, a
 *   TLS-only rule) gives the topic a policy, that policy replaces SNS's default one, which let the account's services
 *   publish. Without this statement every alarm would fire into nothing. Only the stack's own alarms, by ARN, may
 *   publish (confused-deputy guard).
 * - `allowEventRule` admits one EventBridge rule the same way (by its ARN).
 * - `NotificationsFailed`: SNS could not deliver a notification to a subscriber (an email address that bounces, an
 *   endpoint that is down). It notifies the same topic, so it reaches the subscribers that still work, and the
 *   dashboard shows it.
 */
export class EncryptedAlarmTopic extends Construct {
  public readonly topic: Topic;
  public readonly encryptionKey: Key;
  public readonly notificationsFailed: Alarm;

  constructor(scope: Construct, id: string, props: EncryptedAlarmTopicProps) {
    super(scope, id);
    this.encryptionKey = new Key(this, 'Key', {
      description: `Encrypts the ${props.displayName} SNS topic`,
      enableKeyRotation: true,
      // The longest wait KMS allows before a scheduled deletion (which key-deletion-alarm.ts reports) takes effect.
      pendingWindow: Duration.days(30),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // CloudWatch encrypts the message with the topic key when an alarm fires.
    this.encryptionKey.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');

    this.topic = new Topic(this, 'Topic', {
      displayName: props.displayName,
      masterKey: this.encryptionKey,
      enforceSSL: true,
    });
    this.notificationsFailed = new Alarm(this, 'NotificationsFailed', {
      alarmDescription: `Pulse alarms: SNS could not deliver an alarm notification to a subscriber (see the topic's subscriptions)`,
      metric: this.topic.metricNumberOfNotificationsFailed({ statistic: 'Sum', period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.notificationsFailed.addAlarmAction(new SnsAction(this.topic));
  }

  /**
   * Lets these CloudWatch alarms publish, by their exact ARNs (a name pattern like `<stack>-*` would also admit the
   * alarms of a stack whose name starts with this one's). Call once, with every alarm of the stack.
   */
  admitAlarms(alarms: readonly IAlarm[]): void {
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisStack',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnEquals: { 'aws:SourceArn': alarms.map((a) => a.alarmArn) },
        },
      }),
    );
  }

  /** Lets one EventBridge rule publish (and encrypt with the topic's key). */
  allowEventRule(ruleArn: string): void {
    this.encryptionKey.grant(new ServicePrincipal('events.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { ArnEquals: { 'aws:SourceArn': ruleArn } },
      }),
    );
  }
}
