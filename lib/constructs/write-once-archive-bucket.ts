import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectLockRetention } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { MAX_RETENTION_DAYS } from '../../src/config/schema.ts';
import { assertWholeDays } from './assert-whole-days.ts';

/** S3 Object Lock accepts a default retention of at most 100 years (the config's `archive.retention.days` too). */
export const MAX_OBJECT_LOCK_DAYS = MAX_RETENTION_DAYS;

export interface WriteOnceArchiveBucketProps {
  /** Days every new object version stays immutable (Object Lock default retention). */
  readonly retentionDays: number;
  /**
   * COMPLIANCE: nobody, not even the account root, can delete or shorten the lock.
   * GOVERNANCE: principals with s3:BypassGovernanceRetention can: for non-production accounts only.
   * @default 'COMPLIANCE'
   */
  readonly lockMode?: 'COMPLIANCE' | 'GOVERNANCE';
  /** Days access-log objects are kept. @default 90 */
  readonly accessLogRetentionDays?: number;
}

/**
 * A write-once (WORM) archive bucket plus the separate bucket that receives its server access logs.
 * Both are retained on stack deletion: an archive must outlive the stack that created it.
 */
export class WriteOnceArchiveBucket extends Construct {
  public readonly bucket: Bucket;
  public readonly accessLogsBucket: Bucket;
  public readonly encryptionKey: Key;

  constructor(scope: Construct, id: string, props: WriteOnceArchiveBucketProps) {
    super(scope, id);
    assertWholeDays('retentionDays', props.retentionDays, MAX_OBJECT_LOCK_DAYS);
    const logDays = props.accessLogRetentionDays ?? 90;
    assertWholeDays('accessLogRetentionDays', logDays, MAX_OBJECT_LOCK_DAYS);
    const retention = Duration.days(props.retentionDays);

    // Access-log delivery does not support SSE-KMS destinations, hence S3-managed keys here.
    this.accessLogsBucket = new Bucket(this, 'AccessLogs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      lifecycleRules: [{ expiration: Duration.days(logDays), noncurrentVersionExpiration: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // Logging the log bucket into itself would loop; into a third bucket would only move the problem.
    Validations.of(this.accessLogsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the server-access-log destination of the archive bucket.',
    });

    // A dedicated key keeps archive read access a separate, auditable grant from plain S3 permissions.
    this.encryptionKey = new Key(this, 'Key', {
      description: 'Encrypts the Pulse write-once export archive',
      enableKeyRotation: true,
      // The longest wait KMS allows: a deletion scheduled by mistake (lib/constructs/key-deletion-alarm.ts raises
      // the alarm) can be cancelled for 30 days; once deleted, every archived object is unreadable for good.
      pendingWindow: Duration.days(30),
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      objectLockEnabled: true,
      objectLockDefaultRetention:
        props.lockMode === 'GOVERNANCE'
          ? ObjectLockRetention.governance(retention)
          : ObjectLockRetention.compliance(retention),
      versioned: true, // Object Lock requires versioning.
      encryption: BucketEncryption.KMS,
      encryptionKey: this.encryptionKey,
      bucketKeyEnabled: true, // one KMS call per bucket key instead of per object: cheaper at volume.
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Cast only because aws-cdk-lib's IBucket typings clash with `exactOptionalPropertyTypes`.
      serverAccessLogsBucket: this.accessLogsBucket as IBucket,
      serverAccessLogsPrefix: 'archive/',
      lifecycleRules: [
        // Overwrites keep the locked version as noncurrent; once its lock has lapsed it may go.
        { noncurrentVersionExpiration: retention, abortIncompleteMultipartUploadAfter: Duration.days(7) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
