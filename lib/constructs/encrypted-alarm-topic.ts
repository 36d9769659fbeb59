import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

export interface EncryptedAlarmTopicProps {
  readonly displayName: string;
}

/**
 * An SNS topic that CloudWatch alarms can publish to although it is KMS-encrypted and TLS-only.
 * The AWS-managed `alias/aws/sns` key cannot be used: its policy does not admit CloudWatch,
 * so alarm notifications would be silently dropped. A customer-managed key is required.
 */
export class EncryptedAlarmTopic extends Construct {
  public readonly topic: Topic;
  public readonly encryptionKey: Key;

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
  }
}
