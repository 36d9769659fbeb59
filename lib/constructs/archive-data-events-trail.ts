import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { ReadWriteType, Trail } from 'aws-cdk-lib/aws-cloudtrail';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { assertWholeDays } from './assert-whole-days.ts';
import { MAX_OBJECT_LOCK_DAYS } from './write-once-archive-bucket.ts';

export interface ArchiveDataEventsTrailProps {
  /** The one bucket whose object reads and writes are logged. */
  readonly archiveBucket: IBucket;
  /** Where the trail bucket's own server access logs go (the archive's access-log bucket). */
  readonly accessLogsBucket: IBucket;
  /** Days the trail's log files are kept. */
  readonly retentionDays: number;
}

/**
 * CloudTrail S3 data events (`deploy.cloudTrailDataEvents`): who read or wrote which archived object, and when. A
 * single-region trail logging read and write data events of the archive bucket only (no management events: the
 * account's event history has those), with log file validation, into its own SSE-S3-encrypted, TLS-only, private
 * bucket that expires the files after `retentionDays` and is retained with the stack's other evidence.
 */
export class ArchiveDataEventsTrail extends Construct {
  public readonly trail: Trail;
  public readonly logBucket: Bucket;

  constructor(scope: Construct, id: string, props: ArchiveDataEventsTrailProps) {
    super(scope, id);
    assertWholeDays('retentionDays', props.retentionDays, MAX_OBJECT_LOCK_DAYS);
    const retention = Duration.days(props.retentionDays);
    this.logBucket = new Bucket(this, 'Logs', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // A log file overwritten or deleted stays, as a noncurrent version, for as long as the others.
      versioned: true,
      lifecycleRules: [{ expiration: retention, noncurrentVersionExpiration: retention }],
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'cloudtrail/',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.trail = new Trail(this, 'Trail', {
      bucket: this.logBucket as IBucket, // cast: IBucket's typings vs `exactOptionalPropertyTypes`
      isMultiRegionTrail: false,
      includeGlobalServiceEvents: false,
      managementEvents: ReadWriteType.NONE,
      enableFileValidation: true,
      sendToCloudWatchLogs: false,
    });
    this.trail.addS3EventSelector([{ bucket: props.archiveBucket }], {
      readWriteType: ReadWriteType.ALL,
      includeManagementEvents: false,
    });
  }
}
