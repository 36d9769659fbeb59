import {
  Annotations,
  ArnFormat,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Token,
  Validations,
} from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { Bucket, IBucket } from 'aws-cdk-lib/aws-s3';
import { EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { CHART_ASSET_FILES } from '../../src/charts/assets.ts';
import {
  type ArchiveConfig,
  archivePrefixOf,
  type ChannelConfig,
  DEFAULT_RETENTION,
  deployNames,
  type PulseConfig,
} from '../../src/config/schema.ts';
import { ArchiveDataEventsTrail } from '../constructs/archive-data-events-trail.ts';
import { EncryptedAlarmTopic } from '../constructs/encrypted-alarm-topic.ts';
import { KeyDeletionAlarm } from '../constructs/key-deletion-alarm.ts';
import { MailEvents } from '../constructs/mail-events.ts';
import { PulseDashboard } from '../constructs/pulse-dashboard.ts';
import { PulseFunction } from '../constructs/pulse-function.ts';
import { QueueWorker } from '../constructs/queue-worker.ts';
import { ReportingServiceSecret } from '../constructs/reporting-service-secret.ts';
import { ScheduledJob } from '../constructs/scheduled-job.ts';
import { WriteOnceArchiveBucket } from '../constructs/write-once-archive-bucket.ts';
import { functionConfig, type PulseFunctionName } from '../function-config.ts';
import {
  type ChannelPoster,
  channelSecretIds,
  channelSecretsFromEnvWarning,
  channelsPostedBy,
} from './channel-grants.ts';
import { DIGEST_TIMEOUT_SECONDS, FUNCTION_MEMORY_MB } from './function-memory.ts';
import {
  ARCHIVE_RUN_ACTIONS,
  archiveObjectPatterns,
  digestBrowserCopies,
  LEDGER_ACTIONS,
  MAIL_EVENTS_STATE,
  objectsUnder,
  STATE_KEYS,
  SUPPRESSION_KEYS,
  secretResourcePattern,
  senderIdentities,
  USAGE_ALERT_EVIDENCE_FOLDER,
  USAGE_ALERT_STATE_ACTIONS,
} from './grants.ts';
import {
  archivePlanTiming,
  archiveVerifyTiming,
  digestTiming,
  licenseAlertsTiming,
  licenseReportTiming,
  usageAlertsTiming,
} from './job-schedules.ts';
import { acknowledge, nagText } from './nag.ts';
import { copierConcurrency, LICENSE_SYNC_SESSIONS } from './session-budget.ts';

/** The functions that send email (through deliverOnce), so get the SES configuration set. */
const MAILING_FUNCTIONS: ReadonlySet<string> = new Set([
  'digest',
  'license-alerts',
  'license-report',
  'usage-alerts',
  'mail-events',
]);

/** The synth warning of a stack whose alarm topic nobody is subscribed to. */
export const NO_ALARM_SUBSCRIBER =
  'No one is subscribed to the alarm topic (deploy.alarmEmail is not set): every alarm would notify nobody. Set ' +
  'deploy.alarmEmail (and confirm the email AWS sends), or subscribe to the AlarmTopicArn output; `pulse doctor` ' +
  'checks the topic has a confirmed subscriber.';

/** The folder of a charting bundle (digest, usage alerts) that holds the chart renderer's wasm and fonts. */
const CHART_ASSETS = 'chart-assets';
/** The chart renderer's wasm and fonts, shipped beside the JS, not inlined into it (docs/aws.md "Digest charts"). */
const CHART_ASSET_BUNDLE = Object.fromEntries(
  Object.entries(CHART_ASSET_FILES).map(([name, from]) => [from, `${CHART_ASSETS}/${name}`]),
);

export interface PulseStackProps extends StackProps {
  /**
   * The validated pulse.config.json (lib/deploy-config.ts): its digests get the digest function, its archive the
   * archive functions, its licenses the license functions; each function gets its part in its bundle.
   */
  readonly config: PulseConfig;
}

/** Pulse's shared infrastructure; the scheduled functions are added on top of these resources. */
export class PulseStack extends Stack {
  public readonly reportingServiceSecret: ISecret;
  /** The deploy-time function that creates or adopts the secret (lib/constructs/reporting-service-secret.ts). */
  public readonly secretSetup: PulseFunction;
  public readonly archiveBucket: Bucket;
  public readonly stateTable: Table;
  public readonly alarmTopic: Topic;
  public readonly digest: ScheduledJob | undefined;
  public readonly archive: { plan: ScheduledJob; copier: QueueWorker; verify: ScheduledJob } | undefined;
  public readonly licenseReport: ScheduledJob | undefined;
  public readonly licenseSync: PulseFunction | undefined;
  /** The license sync's on-failure destination: S3 events whose sync failed after its retries. */
  public readonly licenseSyncFailedRuns: Queue | undefined;
  public readonly licenseAlerts: ScheduledJob | undefined;
  /** Present when `usageAlerts` has rules. */
  public readonly usageAlerts: ScheduledJob | undefined;
  public readonly keyDeletionAlarm: KeyDeletionAlarm;
  /** Bounces, complaints and rejects (SES transport in the stack's region): lib/constructs/mail-events.ts. */
  public readonly mailEvents: MailEvents | undefined;
  /** Present with `deploy.cloudTrailDataEvents`. */
  public readonly archiveDataEvents: ArchiveDataEventsTrail | undefined;
  readonly #config: PulseConfig;
  readonly #secretName: string;
  /** The channels the stack's functions post to, by id (each function's grant: allowChannelSecrets). */
  readonly #channelsPosted = new Map<string, ChannelConfig>();

  constructor(scope: Construct, id: string, props: PulseStackProps) {
    // The stack's name is the config's (deploy.stackName), whatever the construct id.
    const names = deployNames(props.config);
    super(scope, id, { ...props, stackName: names.stackName });
    const { config } = props;
    this.#config = config;
    this.#secretName = names.secretName;

    // A fixed name (deploy.secretName, by default one per stack), so operators (and the README's `put-secret-value`)
    // find it without reading the stack. Created with placeholder credentials at deploy time, or adopted when this
    // stack left it behind; operators overwrite both fields with the real Reporting Service credentials.
    const alarms = new EncryptedAlarmTopic(this, 'Alarms', { displayName: 'Pulse alarms' });
    this.alarmTopic = alarms.topic;
    const secret = new ReportingServiceSecret(this, 'ReportingServiceCredentials', {
      secretName: this.#secretName,
      alarmTopic: this.alarmTopic,
    });
    this.reportingServiceSecret = secret.secret;
    this.secretSetup = secret.setup;

    // The Object Lock from the config's archive section (365 days, COMPLIANCE unless it says otherwise); a config
    // without one still gets the bucket, with the defaults.
    const retention = config.archive?.retention ?? DEFAULT_RETENTION;
    const archive = new WriteOnceArchiveBucket(this, 'Archive', {
      retentionDays: retention.days,
      lockMode: retention.mode,
    });
    this.archiveBucket = archive.bucket;

    // L1-backed `Table` rather than `TableV2`: cdk-nag's PITR rule only inspects AWS::DynamoDB::Table.
    this.stateTable = new Table(this, 'StateTable', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'expiresAt',
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    if (!config.deploy?.alarmEmail)
      // Subscribers can be added outside the stack (console, another stack's endpoint): a warning, and `pulse doctor`
      // says whether the topic has a confirmed one.
      Annotations.of(this).addWarningV2('pulse:alarms-unsubscribed', NO_ALARM_SUBSCRIBER);
    else {
      const subscription = this.alarmTopic.addSubscription(new EmailSubscription(config.deploy.alarmEmail));
      Validations.of(subscription).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          "Alarm emails: a notification SNS cannot deliver raises the topic's NotificationsFailed alarm (to the " +
          'subscribers that still work, and on the dashboard); a dead-letter queue would hold alarms nobody reads.',
      });
    }
    // Pulse's customer-managed keys (the queues are SQS-managed, the secret uses Secrets Manager's own key).
    this.keyDeletionAlarm = new KeyDeletionAlarm(this, 'KeyDeletion', {
      keys: [archive.encryptionKey, alarms.encryptionKey],
      alarms,
    });
    if (config.deploy?.cloudTrailDataEvents)
      this.archiveDataEvents = new ArchiveDataEventsTrail(this, 'ArchiveDataEvents', {
        // Casts only because aws-cdk-lib's IBucket typings clash with `exactOptionalPropertyTypes`.
        archiveBucket: this.archiveBucket as IBucket,
        accessLogsBucket: archive.accessLogsBucket as IBucket,
        // As long as the objects whose reads and writes they record stay locked.
        retentionDays: retention.days,
      });

    this.mailEvents = this.addMailEvents(config);
    if (config.digests.length > 0) this.digest = this.addDigest(config);
    if (config.archive) this.archive = this.addArchive(config.archive, config.service.sessionBudget);
    if (config.licenses?.report) this.licenseReport = this.addLicenseReport(config);
    if (config.archive && config.licenses) {
      this.licenseSync = this.addLicenseSync(config.archive);
      this.licenseSyncFailedRuns = this.addLicenseSyncFailedRuns(this.licenseSync);
    }
    if (config.licenses) this.licenseAlerts = this.addLicenseAlerts(config);
    if ((config.usageAlerts?.rules ?? []).length > 0) this.usageAlerts = this.addUsageAlerts(config);
    this.warnOfChannelsFromEnv();
    // Every alarm of the stack (docs/alarms.md): admitted to the topic by ARN, shown on the dashboard.
    const alarmList = this.node.findAll().filter((c): c is Alarm => c instanceof Alarm);
    alarms.admitAlarms(alarmList);
    this.addOutputs(this.addDashboard(alarmList));
  }

  /** The operator's dashboard over every function, the copy queue and every dead-letter queue; its console URL. */
  private addDashboard(alarms: Alarm[]): string {
    const scheduled = [
      this.digest,
      this.archive?.plan,
      this.archive?.verify,
      this.licenseReport,
      this.licenseAlerts,
      this.usageAlerts,
    ].filter((job) => job !== undefined);
    const dashboard = new PulseDashboard(this, 'Dashboard', {
      functions: [
        ...scheduled.map((job) => job.fn),
        ...[this.archive?.copier.fn, this.licenseSync?.fn, this.mailEvents?.worker.fn].filter((f) => f !== undefined),
      ],
      ...(this.archive ? { copyQueue: this.archive.copier.queue } : {}),
      deadLetterQueues: [
        ...(this.archive ? [this.archive.copier.deadLetterQueue] : []),
        ...scheduled.flatMap((job) => [job.scheduleDeadLetters, job.failedRuns]),
        ...(this.licenseSyncFailedRuns ? [this.licenseSyncFailedRuns] : []),
        ...(this.mailEvents ? [this.mailEvents.worker.deadLetterQueue] : []),
      ],
      alarmTopic: this.alarmTopic,
      alarms,
    });
    return dashboard.dashboardUrl;
  }

  /** What an operator needs after deploy (docs/operations.md), printed by `cdk deploy` and in the stack's outputs. */
  private addOutputs(dashboardUrl: string): void {
    const outputs: [id: string, value: string, description: string][] = [
      [
        'ReportingServiceSecretName',
        this.#secretName,
        'Put the Reporting Service credentials here (JSON userName, password)',
      ],
      [
        'ArchiveBucketName',
        this.archiveBucket.bucketName,
        'The write-once archive (digests, exports, license reports)',
      ],
      ['StateTableName', this.stateTable.tableName, 'The delivery ledger and archive run records'],
      ['AlarmTopicArn', this.alarmTopic.topicArn, 'Every Pulse alarm notifies this topic: subscribe to it'],
      ['DashboardUrl', dashboardUrl, 'Runs, emails sent, files archived, failures, durations and the copy queue'],
    ];
    for (const [id, value, description] of outputs) new CfnOutput(this, id, { value, description });
  }

  /**
   * The environment of a function whose bundle holds `job`'s part of the config: only what CloudFormation names
   * (lib/function-config.ts, src/app/bundled-config.ts), so it stays small whatever the config holds.
   */
  private jobSetup(job: PulseFunctionName) {
    const configurationSet = this.mailEvents?.configurationSet.configurationSetName;
    return {
      config: functionConfig(job, this.#config, this.#secretName),
      environment: {
        PULSE_STATE_TABLE: this.stateTable.tableName,
        PULSE_ARCHIVE_BUCKET: this.archiveBucket.bucketName,
        PULSE_SERVICE_SECRET_ARN: this.reportingServiceSecret.secretArn,
        // Every email goes out with it, so SES reports its bounces (src/app/bundled-config.ts lays it over the config).
        ...(configurationSet && MAILING_FUNCTIONS.has(job) ? { PULSE_SES_CONFIGURATION_SET: configurationSet } : {}),
      },
    };
  }

  /**
   * SES's bounce, complaint and reject events back into Pulse (lib/constructs/mail-events.ts). SES only: an SMTP
   * server returns bounces to the sender's mailbox. The configuration set lives in the stack's region, so a transport
   * in another region (`mail.transport.region`) gets none: the synth warns that bounces are not seen there.
   */
  private addMailEvents(config: PulseConfig): MailEvents | undefined {
    const transport = config.mail.transport;
    if (transport.kind !== 'ses') return undefined;
    if (transport.region !== undefined && (Token.isUnresolved(this.region) || transport.region !== this.region)) {
      Annotations.of(this).addWarningV2(
        'pulse:bounces-unseen',
        `mail.transport.region ${transport.region} is not the stack's region: bounces and complaints are not reported ` +
          '(the configuration set would have to be in the SES region)',
      );
      return undefined;
    }
    const setup = this.jobSetup('mail-events');
    const mailEvents = new MailEvents(this, 'MailEvents', {
      alarmTopic: this.alarmTopic,
      config: setup.config,
      environment: { PULSE_STATE_TABLE: this.stateTable.tableName },
    });
    const fn = mailEvents.worker.fn;
    // Its own notices go out with the configuration set too (a bounced notice is recorded, never noticed again).
    fn.addEnvironment('PULSE_SES_CONFIGURATION_SET', mailEvents.configurationSet.configurationSetName);
    for (const { actions, keys } of MAIL_EVENTS_STATE) this.allowState(fn, actions, keys);
    this.allowMail(fn, config, mailEvents.configurationSet.configurationSetName);
    this.allowChannelSecrets(fn, 'mail-events');
    return mailEvents;
  }

  /**
   * The export archive, fanned out: a daily plan step sends one copy task per file to a queue, drained by copiers
   * (as many at once as the session budget leaves them: session-budget.ts).
   */
  private addArchive(archive: ArchiveConfig, sessionBudget: number) {
    const copier = new QueueWorker(this, 'ArchiveCopy', {
      handler: 'archive-copy',
      ...this.jobSetup('archive-copy'),
      alarmTopic: this.alarmTopic,
      // A batch of four daily exports well within the limit.
      timeout: Duration.minutes(15),
      memorySize: FUNCTION_MEMORY_MB.archiveCopy,
      batchSize: 4,
      maxConcurrency: copierConcurrency(sessionBudget),
      // A batch handed back at the session limit uses a delivery: 5 leave room for two such and still dead-letter a
      // failing task within 5 × the visibility timeout (7.5 h), before a plan step finishes its run as stale (12 h).
      maxReceiveCount: 5,
    });
    const setup = this.jobSetup('archive-plan');
    const plan = new ScheduledJob(this, 'ArchivePlan', {
      job: 'archive',
      handler: 'archive-plan',
      ...archivePlanTiming(),
      alarmTopic: this.alarmTopic,
      timeout: Duration.minutes(15),
      config: setup.config,
      environment: { ...setup.environment, PULSE_COPY_QUEUE_URL: copier.queue.queueUrl },
    });
    copier.queue.grantSendMessages(plan.fn);
    const patterns = archiveObjectPatterns(
      archive,
      this.#config.products.map((p) => p.id),
    );
    const objects =
      'Objects of the archive only (the exports of each configured product or kind, plans, manifests, coverage)';
    for (const fn of [plan.fn, copier.fn]) {
      this.reportingServiceSecret.grantRead(fn);
      this.allowState(fn, ARCHIVE_RUN_ACTIONS, STATE_KEYS.archiveRuns);
      // Whichever step finishes a run tells archive.channels (and the runs before it that a channel missed).
      if (archive.channels.length > 0) this.allowState(fn, LEDGER_ACTIONS, STATE_KEYS.archiveEvents);
    }
    this.allowChannelSecrets(plan.fn, 'archive-plan');
    this.allowChannelSecrets(copier.fn, 'archive-copy');
    // No delete, no retention changes anywhere: the bucket's Object Lock keeps what is written; a republished file
    // becomes a new version.
    this.allowObjects(plan.fn, {
      // It sees which exports are archived (listing, HEAD), writes the run's plan, and finishes a stale run.
      grants: [
        { patterns: patterns.exports, actions: ['s3:GetObject'] },
        { patterns: [...patterns.plans, ...patterns.finished], actions: ['s3:PutObject', 's3:GetObject'] },
      ],
      keyActions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      reason: `${objects}: it reads the exports and writes the plans and manifests.`,
    });
    this.allowObjects(copier.fn, {
      grants: [
        // GetObjectVersion: an archived object is judged by the version it was checked as
        // (src/archive/copy/archived-check.ts). Abort: a failed verification leaves no parts behind.
        {
          patterns: patterns.exports,
          actions: ['s3:PutObject', 's3:GetObject', 's3:GetObjectVersion', 's3:AbortMultipartUpload'],
        },
        { patterns: patterns.plans, actions: ['s3:GetObject'] },
        { patterns: patterns.finished, actions: ['s3:PutObject', 's3:GetObject'] },
      ],
      keyActions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      reason: `${objects}: it writes the exports and manifests and reads the plans.`,
    });
    return { plan, copier, verify: this.addArchiveVerify(archive) };
  }

  /**
   * The manifest chain checked daily (src/archive/verify-chain.ts): a break reports `JobFailed`, whose alarm
   * says "archive manifest chain broken". Read-only: the manifests (GetObject), the bucket's listing and the key's
   * decrypt; no service, no secret, no table.
   */
  private addArchiveVerify(archive: ArchiveConfig): ScheduledJob {
    const { config } = this.jobSetup('archive-verify');
    const verify = new ScheduledJob(this, 'ArchiveVerify', {
      job: 'archive-verify',
      ...archiveVerifyTiming(),
      alarmTopic: this.alarmTopic,
      jobFailedMeaning:
        'archive manifest chain broken: a manifest was deleted, altered or inserted (docs/alarms.md; the log names each break)',
      timeout: Duration.minutes(5),
      config,
      environment: { PULSE_ARCHIVE_BUCKET: this.archiveBucket.bucketName },
    });
    this.allowObjects(verify.fn, {
      grants: [{ patterns: [objectsUnder(archive.prefix, 'manifests')], actions: ['s3:GetObject'] }],
      keyActions: ['kms:Decrypt'],
      reason: 'Reads the run manifests only: one object per archive run.',
    });
    return verify;
  }

  /** The weekly digest: hourly, so every recipient gets it at their own send time (the job sends once). */
  private addDigest(config: PulseConfig): ScheduledJob {
    const job = new ScheduledJob(this, 'Digest', {
      job: 'digest',
      notifyOn: 'newFailure',
      ...digestTiming(config),
      alarmTopic: this.alarmTopic,
      memorySize: FUNCTION_MEMORY_MB.digest,
      // From a measurement (function-memory.ts): a week's 20 digests × 50 recipients in one hour, with a margin.
      timeout: Duration.seconds(DIGEST_TIMEOUT_SECONDS),
      ...this.withChartAssets(this.withTemplates(this.jobSetup('digest'))),
      assets: {
        'templates/compiled/digest.html': 'templates/digest.html',
        'templates/compiled/digest-report.html': 'templates/digest-report.html',
        'templates/compiled/failure-notice.html': 'templates/failure-notice.html',
        ...CHART_ASSET_BUNDLE,
      },
    });
    this.reportingServiceSecret.grantRead(job.fn);
    this.allowState(job.fn, LEDGER_ACTIONS, STATE_KEYS.digest);
    // Least privilege on the write-once archive: read and create objects under the digest prefix, nothing else.
    this.allowObjects(job.fn, {
      grants: [{ patterns: [objectsUnder(this.#archivePrefix, 'digests')], actions: ['s3:PutObject', 's3:GetObject'] }],
      keyActions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      reason: 'Objects under the digest prefix only.',
    });
    this.allowMail(job.fn, config);
    this.allowChannelSecrets(job.fn, 'digest');
    return job;
  }

  /**
   * The weekly license registry report: hourly, like the digest (the job waits for the report's schedule and sends
   * once per week and recipient). It may read and create objects under its two prefixes only (snapshots and sent
   * reports, never delete), touch only its own ledger items, and send only from the configured address.
   */
  private addLicenseReport(config: PulseConfig): ScheduledJob {
    const job = new ScheduledJob(this, 'LicenseReport', {
      job: 'license-report',
      notifyOn: 'newFailure',
      ...licenseReportTiming(config),
      alarmTopic: this.alarmTopic,
      // A registry of a million keys streams through gzip into /tmp and then to S3 in a few minutes.
      timeout: Duration.minutes(15),
      memorySize: 1024,
      ...this.withTemplates(this.jobSetup('license-report')),
      // The owner's notice of an unknown or bounced delivery is a failure-notice template too.
      assets: {
        'templates/compiled/license-report.html': 'templates/license-report.html',
        'templates/compiled/failure-notice.html': 'templates/failure-notice.html',
      },
    });
    this.reportingServiceSecret.grantRead(job.fn);
    this.allowState(job.fn, LEDGER_ACTIONS, STATE_KEYS.licenseReport);
    this.allowObjects(job.fn, {
      grants: [
        {
          patterns: [
            objectsUnder(this.#archivePrefix, 'license-registry'),
            objectsUnder(this.#archivePrefix, 'license-reports'),
          ],
          // Abort: a snapshot upload that fails leaves no parts behind.
          actions: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'],
        },
      ],
      keyActions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      reason:
        'Objects under the license report prefixes only: one snapshot per product and week, one folder per report.',
    });
    this.allowMail(job.fn, config);
    this.allowChannelSecrets(job.fn, 'license-report');
    return job;
  }

  /** In AWS the archive is always the stack's bucket (bundled-config.ts), under the configured or default prefix. */
  get #archivePrefix(): string {
    return archivePrefixOf(this.#config);
  }

  private withTemplates(setup: ReturnType<PulseStack['jobSetup']>) {
    return { ...setup, environment: { ...setup.environment, PULSE_TEMPLATES_DIR: '/var/task/templates' } };
  }

  private withChartAssets(setup: ReturnType<PulseStack['jobSetup']>) {
    return { ...setup, environment: { ...setup.environment, PULSE_CHART_ASSETS_DIR: `/var/task/${CHART_ASSETS}` } };
  }

  /**
   * The state table's items a job may touch: `actions` (those its adapters call) on the items whose partition key
   * matches `leadingKeys`, not the whole table.
   */
  private allowState(fn: IFunction, actions: readonly string[], leadingKeys: readonly string[]): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [...actions],
        resources: [this.stateTable.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] } },
      }),
    );
  }

  /** cdk-nag's finding for each object pattern (a `*` in a resource), acknowledged with why it is as narrow as it gets. */
  private acknowledgeObjects(fn: IFunction, patterns: string[], reason: string): void {
    acknowledge(
      fn.role ?? fn,
      patterns.map((p): [string, string] => [
        `AwsSolutions-IAM5[Resource::${nagText(this, this.archiveBucket.arnForObjects(p))}]`,
        reason,
      ]),
    );
  }

  /**
   * Each grant's `actions` on the archive's objects under its `patterns` only (never delete), the listing of them only
   * (ListBucket with an `s3:prefix` condition), and `keyActions` on the bucket's key. S3 answers HEAD or GET of a
   * missing key with 403 rather than 404 to a caller that may not list the bucket as a whole; the archive store
   * then tells "missing" from "refused" by listing that one key (src/adapters/aws/s3-archive-store.ts).
   */
  private allowObjects(
    fn: IFunction,
    access: { grants: { patterns: string[]; actions: string[] }[]; keyActions: string[]; reason: string },
  ): void {
    for (const { patterns, actions } of access.grants)
      fn.addToRolePolicy(
        new PolicyStatement({ actions, resources: patterns.map((p) => this.archiveBucket.arnForObjects(p)) }),
      );
    const patterns = [...new Set(access.grants.flatMap((g) => g.patterns))];
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.archiveBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': patterns.length === 1 ? patterns[0] : patterns } },
      }),
    );
    this.archiveBucket.encryptionKey?.grant(fn, ...access.keyActions);
    this.acknowledgeObjects(fn, patterns, access.reason);
  }

  /**
   * The mail transport's rights, and only its own: SES sending as the configured sender's identities (its domain or
   * the address itself) in the transport's region, with the stack's configuration set; for SMTP the credentials
   * secret if one is configured, no SES. And the suppression list's reads every sender makes.
   */
  private allowMail(
    fn: IFunction,
    config: PulseConfig,
    configurationSet = this.mailEvents?.configurationSet.configurationSetName,
  ): void {
    const transport = config.mail.transport;
    // Every sender reads the suppression list before it claims a delivery (src/core/delivery/deliver-once.ts).
    this.allowState(fn, ['dynamodb:GetItem'], SUPPRESSION_KEYS);
    if (transport.kind === 'ses') {
      const region = transport.region ?? this.region;
      const sesArn = (resource: string, name: string) =>
        this.formatArn({ service: 'ses', region, resource, resourceName: name });
      // SES authorizes a send against the identity and, when the message names one, the configuration set.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [
            ...senderIdentities(config).map((identity) => sesArn('identity', identity)),
            ...(configurationSet ? [sesArn('configuration-set', configurationSet)] : []),
          ],
          conditions: { StringEquals: { 'ses:FromAddress': config.mail.from } },
        }),
      );
      return;
    }
    if (transport.credentialsSecretId)
      this.allowSecretReads(fn, [transport.credentialsSecretId], 'The SMTP credentials secret');
  }

  /**
   * GetSecretValue on the secrets of the channels `poster` posts to (channel-grants.ts), nothing else; a channel
   * whose secret is in the environment gets none (warnOfChannelsFromEnv).
   */
  private allowChannelSecrets(fn: IFunction, poster: ChannelPoster): void {
    const channels = channelsPostedBy(this.#config, poster);
    for (const channel of channels) this.#channelsPosted.set(channel.id, channel);
    this.allowSecretReads(fn, channelSecretIds(channels), 'A channel secret');
  }

  /** A channel the functions post to whose secret is in the environment cannot work in Lambda: the synth says so. */
  private warnOfChannelsFromEnv(): void {
    const fromEnv = [...this.#channelsPosted.values()].filter((c) => c.secret.source === 'env').map((c) => c.id);
    if (fromEnv.length > 0)
      Annotations.of(this).addWarningV2('pulse:channel-secret-from-env', channelSecretsFromEnvWarning(fromEnv));
  }

  /**
   * GetSecretValue on each secret, given by name, partial or complete ARN (grants.ts `secretResourcePattern`): a
   * name's pattern ends in the six characters Secrets Manager appends, which cdk-nag is told (`what` names it).
   */
  private allowSecretReads(fn: IFunction, secretIds: readonly string[], what: string): void {
    if (secretIds.length === 0) return;
    const patterns = [
      ...new Set(
        secretIds.map((id) =>
          secretResourcePattern(id, (name) =>
            this.formatArn({
              service: 'secretsmanager',
              resource: 'secret',
              resourceName: name,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ),
        ),
      ),
    ];
    fn.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: patterns }));
    acknowledge(
      fn.role ?? fn,
      patterns
        .filter((p) => p.endsWith('-??????'))
        .map((p): [string, string] => [
          `AwsSolutions-IAM5[Resource::${nagText(this, p)}]`,
          `${what}, by name or partial ARN: the six characters stand for the suffix Secrets Manager appends.`,
        ]),
    );
  }

  /**
   * License registry sync: a CSV uploaded under `<prefix>/license-sync/incoming/` triggers it (S3 event notification);
   * it reads only there and writes only the result files under `…/results/` (never under incoming/, so it cannot
   * trigger itself). No table: the sync keeps no state, the registry's diff is what makes a rerun safe.
   */
  private addLicenseSync(archive: ArchiveConfig): PulseFunction {
    const sync = new PulseFunction(this, 'LicenseSync', {
      handler: 'license-sync',
      ...this.jobSetup('license-sync'),
      alarmTopic: this.alarmTopic,
      // 100,000 rows take seconds; the limit is for a very large file against a slow service.
      timeout: Duration.minutes(15),
      memorySize: 1024,
      jobFailedAlarm: 'licenses-sync',
      // One upload at a time: each run holds a service session, and the session budget gives the sync one
      // (session-budget.ts). Uploads S3 delivers meanwhile wait in Lambda's async queue (throttled events are
      // retried there for up to the 6 hours of maxEventAge) instead of signing in beside it.
      reservedConcurrency: LICENSE_SYNC_SESSIONS,
    });
    const [incoming, results] = [
      objectsUnder(archive.prefix, 'license-sync', 'incoming'),
      objectsUnder(archive.prefix, 'license-sync', 'results'),
    ];
    this.reportingServiceSecret.grantRead(sync.fn);
    this.archiveBucket.encryptionKey?.grant(sync.fn, 'kms:GenerateDataKey', 'kms:Decrypt');
    sync.fn.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.archiveBucket.arnForObjects(incoming)] }),
    );
    sync.fn.addToRolePolicy(
      new PolicyStatement({
        // The result is streamed as a multipart upload; abort lets a failed run leave no parts behind.
        actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
        resources: [this.archiveBucket.arnForObjects(results)],
      }),
    );
    this.archiveBucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(sync.fn), {
      prefix: incoming.slice(0, -1),
      suffix: '.csv',
    });
    this.acknowledgeObjects(
      sync.fn,
      [incoming],
      'Reads the uploaded CSVs only: any file name under the incoming folder.',
    );
    this.acknowledgeObjects(
      sync.fn,
      [results],
      'Writes the result files only: one per uploaded CSV, under the results folder.',
    );
    // CDK's own singleton that configures bucket notifications at deploy time (it never runs afterwards).
    const notifications = this.node.tryFindChild('BucketNotificationsHandler050a0587b7544547bf325f094a3db834');
    if (notifications)
      acknowledge(notifications, [
        [
          'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          "CDK's own bucket-notifications handler (it sets the bucket's notification configuration during deploys " +
            'and never runs otherwise); CDK gives its role the managed basic-execution policy (logs).',
        ],
      ]);
    return sync;
  }

  /**
   * S3 invokes the sync asynchronously: after its retries a failed upload's event (bucket and key) is kept 14 days in
   * an encrypted queue, alarmed while it holds one, so the file can be synced again (re-invoke with the event).
   */
  private addLicenseSyncFailedRuns(sync: PulseFunction): Queue {
    const failedRuns = new Queue(sync, 'FailedRuns', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    sync.fn.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(failedRuns),
    });
    const isDeadLetterQueue = 'This queue is itself the on-failure destination of the license sync function.';
    for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy'])
      Validations.of(failedRuns).acknowledge({ id, reason: isDeadLetterQueue });
    Validations.of(sync.fn).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason: 'Async invocations (S3) have an on-failure destination (the failed-runs queue), which supersedes a DLQ.',
    });
    new Alarm(sync, 'RunFailed', {
      alarmDescription: 'Pulse license-sync: a sync failed after its retries (see the failed-runs queue for the file)',
      metric: failedRuns.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    }).addAlarmAction(new SnsAction(this.alarmTopic));
    return failedRuns;
  }

  /**
   * License alerts: hourly, so every recipient is told at its own local send time (the job sends each alert once).
   * The ledger items it may touch are its own (`license-alert#…`): a leading-key condition, not the whole table.
   */
  private addLicenseAlerts(config: PulseConfig): ScheduledJob {
    const job = new ScheduledJob(this, 'LicenseAlerts', {
      job: 'license-alerts',
      notifyOn: 'newFailure',
      ...licenseAlertsTiming(config),
      alarmTopic: this.alarmTopic,
      timeout: Duration.minutes(15),
      memorySize: FUNCTION_MEMORY_MB.licenseAlerts,
      ...this.withTemplates(this.jobSetup('license-alerts')),
      // The owner's notice of an unknown delivery is a failure-notice template too.
      assets: {
        'templates/compiled/license-alert.html': 'templates/license-alert.html',
        'templates/compiled/failure-notice.html': 'templates/failure-notice.html',
      },
    });
    this.reportingServiceSecret.grantRead(job.fn);
    this.allowState(job.fn, LEDGER_ACTIONS, STATE_KEYS.licenseAlerts);
    this.allowMail(job.fn, config);
    this.allowChannelSecrets(job.fn, 'license-alerts');
    return job;
  }

  /**
   * Usage alerts: hourly, so a rule's period is told within the hour its settle delay passes (each change once). Its
   * ledger items and series states are its own (leading keys). In the archive it only creates each run's evidence
   * under its folder (a conditional put: If-None-Match needs no read), kept by the bucket's Object Lock as the
   * archive is; it reads nothing there.
   */
  private addUsageAlerts(config: PulseConfig): ScheduledJob {
    const job = new ScheduledJob(this, 'UsageAlerts', {
      job: 'usage-alerts',
      notifyOn: 'newFailure',
      ...usageAlertsTiming(),
      alarmTopic: this.alarmTopic,
      // A run is a handful of report calls; the margin is for the service's retries and a run that tells many.
      timeout: Duration.minutes(10),
      memorySize: FUNCTION_MEMORY_MB.usageAlerts,
      ...this.withChartAssets(this.withTemplates(this.jobSetup('usage-alerts'))),
      assets: {
        'templates/compiled/usage-alert.html': 'templates/usage-alert.html',
        // Each alert's evidence chart is drawn by the digest's renderer.
        ...CHART_ASSET_BUNDLE,
      },
    });
    this.reportingServiceSecret.grantRead(job.fn);
    this.allowState(job.fn, LEDGER_ACTIONS, STATE_KEYS.usageAlerts);
    this.allowState(job.fn, USAGE_ALERT_STATE_ACTIONS, STATE_KEYS.usageAlertStates);
    // An alert links to its product in the full digest report only where a reader can open it (a public base URL):
    // then it looks whether that week's report is there (HEAD, the browser copy only), and reads nothing else.
    const linksReports = config.archive?.publicBaseUrl !== undefined && config.digests.length > 0;
    this.allowObjects(job.fn, {
      grants: [
        { patterns: [objectsUnder(this.#archivePrefix, ...USAGE_ALERT_EVIDENCE_FOLDER)], actions: ['s3:PutObject'] },
        ...(linksReports ? [{ patterns: [digestBrowserCopies(this.#archivePrefix)], actions: ['s3:GetObject'] }] : []),
      ],
      keyActions: ['kms:GenerateDataKey'],
      reason: linksReports
        ? 'Creates objects under the usage alerts’ evidence folder only, and looks up the digests’ browser copies it links to.'
        : 'Creates objects under the usage alerts’ evidence folder only: one per run that tells a change.',
    });
    // Only the digests' ids and products: their recipients are not this function's business.
    if (linksReports)
      job.fn.addEnvironment(
        'PULSE_REPORT_DIGESTS',
        JSON.stringify(config.digests.map((d) => ({ id: d.id, productIds: d.productIds }))),
      );
    this.allowMail(job.fn, config);
    this.allowChannelSecrets(job.fn, 'usage-alerts');
    return job;
  }
}
