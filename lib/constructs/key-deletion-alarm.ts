import { Validations } from 'aws-cdk-lib';
import { EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { EncryptedAlarmTopic } from './encrypted-alarm-topic.ts';

/** The KMS calls that make a key unusable: now (DisableKey) or after its waiting period (ScheduleKeyDeletion). */
export const KEY_DELETION_EVENTS = ['ScheduleKeyDeletion', 'DisableKey'] as const;

export interface KeyDeletionAlarmProps {
  /** The keys watched: a call on any of them notifies the topic. */
  readonly keys: readonly IKey[];
  /** Where the notification goes; this rule (and only it) is allowed to publish there. */
  readonly alarms: EncryptedAlarmTopic;
}

/**
 * "KMS key pending deletion": an EventBridge rule on CloudTrail's record of `ScheduleKeyDeletion` or `DisableKey`
 * for one of Pulse's keys, straight to the alarm topic. A deleted archive key makes every archived object unreadable
 * for good, Object Lock or not; the key's waiting period (30 days) is the time to `cancel-key-deletion`.
 *
 * CloudTrail management events reach EventBridge ("AWS API Call via CloudTrail") in every account without a trail
 * of one's own (the event history). The rule matches the key by the ARN CloudTrail records in the event's
 * `resources`, or by the key id or ARN the caller passed (`requestParameters.keyId`). If the alarm topic's own key is disabled, SNS cannot
 * deliver this notification either: DisableKey of that key is also watched, but the email may not arrive (its
 * deletion, pending for 30 days, still does).
 */
export class KeyDeletionAlarm extends Construct {
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, props: KeyDeletionAlarmProps) {
    super(scope, id);
    this.rule = new Rule(this, 'Rule', {
      description: 'Pulse: a KMS key of the stack was scheduled for deletion or disabled',
      eventPattern: {
        source: ['aws.kms'],
        detailType: ['AWS API Call via CloudTrail'],
        detail: {
          eventSource: ['kms.amazonaws.com'],
          eventName: [...KEY_DELETION_EVENTS],
          // The key as CloudTrail records it (its ARN in `resources`), or as the caller named it (id or ARN).
          $or: [
            { resources: { ARN: props.keys.map((k) => k.keyArn) } },
            { requestParameters: { keyId: props.keys.flatMap((k) => [k.keyArn, k.keyId]) } },
          ],
        },
      },
    });
    // The topic admits this rule by its ARN (and its key lets EventBridge encrypt the message). Not the SnsTopic
    // target of aws-events-targets: it grants every rule of every account publishing, without a condition.
    props.alarms.allowEventRule(this.rule.ruleArn);
    // No other angle brackets in the text: EventBridge reads `<name>` as a placeholder.
    const key = EventField.fromPath('$.detail.requestParameters.keyId');
    const input = RuleTargetInput.fromText(
      `Pulse: KMS key pending deletion or disabled. ${EventField.fromPath('$.detail.eventName')} on ${key} by ` +
        `${EventField.fromPath('$.detail.userIdentity.arn')} at ${EventField.time}. Unless intended: ` +
        `aws kms cancel-key-deletion --key-id ${key}, then aws kms enable-key --key-id ${key} (docs/alarms.md).`,
    );
    this.rule.addTarget({ bind: () => ({ arn: props.alarms.topic.topicArn, input }) });
    Validations.of(this.rule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'The target is the alarm topic itself: an event it cannot take would land in a dead-letter queue whose only ' +
        'alarm goes to this same topic. The key waits 30 days before deletion, and CloudTrail keeps the event.',
    });
  }
}
