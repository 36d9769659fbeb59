/**
 * What no Pulse function may do, whatever its job needs, and what no AWS service may do on the stack's resources for
 * a source other than the stack's own: one row per forbidden request, with the reason it must be refused. The IAM
 * tests (stack-iam.test.ts) evaluate every row against the synthesized stack with the same simulator as the allowed
 * calls, and each must come out denied. To forbid something more, add a row here.
 */
import type { DeployedIam } from './deployed-iam.ts';
import type { IamRequest } from './simulate.ts';

export interface MustNotRow {
  /** The function (PULSE_JOB) whose role must be refused. */
  fn: string;
  request: IamRequest;
  why: string;
}

/** The job functions of the example production config, by PULSE_JOB (the template may hold more: all are judged). */
export const PULSE_FUNCTIONS = [
  'digest',
  'archive-plan',
  'archive-copy',
  'archive-verify',
  'license-alerts',
  'license-report',
  'license-sync',
  'usage-alerts',
  'mail-events',
  'secret-setup',
] as const;

/** A ledger item (partition key) of each job that keeps state, as the jobs' key builders name them. */
const LEDGER_KEYS: Record<string, string[]> = {
  digest: ['digest#exec-weekly#2026-W48#ceo@example.com', 'notice-unknown#digest#exec-weekly#2026-W48#ceo@example.com'],
  'license-alerts': ['license-alert#growth@example.com#2026-11-27', 'notice-unknown#license-alerts#growth@example.com'],
  'license-report': [
    'license-report#2026-W48#ceo@example.com',
    'notice-unknown#license-report#2026-W48#ceo@example.com',
  ],
  'usage-alerts': [
    'usage-alert#desktop-active-drop#12345678901#-#2026-11-26#firing#cpo@example.com',
    'usage-alert-problem#desktop-active-drop#12345678901#0123456789abcdef',
    'failure-seen#usage-alerts#0123456789abcdef0123456789abcdef',
  ],
  archive: [
    'archive-run#2026-11-27T02:20:00Z',
    'archive-runs',
    'archive-event#2026-11-27T02-20-00.000Z#channel:archive-hook',
  ],
};
/**
 * Whose ledger items a function's job reads besides its own: the plan step and the copiers share the archive runs;
 * the mail-events function records SES's events on the senders' delivery items (it may read and update them, never
 * create or delete one: rows below).
 */
const READS_LEDGER_OF: Record<string, string[]> = {
  'archive-plan': ['archive'],
  'archive-copy': ['archive'],
  'mail-events': ['digest', 'license-alerts', 'license-report', 'usage-alerts'],
};
/** A usage alert series' state: the usage alerts' alone, even the mail events may not read it (no delivery). */
const USAGE_ALERT_STATE = 'usage-alert-state#desktop-active-drop#12345678901#-';
/** The senders (PULSE_JOB) of email to the config's recipients. */
const SENDERS = ['digest', 'license-alerts', 'license-report', 'usage-alerts'];

export interface MustNotContext {
  iam: DeployedIam;
  /** archive.prefix of the config. */
  prefix: string;
  /** mail.from of the config. */
  mailFrom: string;
}

export function mustNotRows({ iam, prefix, mailFrom }: MustNotContext): MustNotRow[] {
  const { partition, region, account } = iam.resolver.target;
  const [bucketName, bucket] = [...iam.buckets].find(([, b]) => b.keyArn !== undefined) ?? [];
  if (!bucket || !bucketName) throw new Error('no KMS-encrypted archive bucket in the template');
  const object = (key: string) => `${bucket.arn}/${prefix}/${key}`;
  const [tableArn] = [...iam.tables.values()].map((t) => t.arn);
  const fnOf = (job: string) => {
    const f = iam.functions.get(job);
    if (!f) throw new Error(`no function ${job} in the template`);
    return f;
  };
  const logStream = (job: string) =>
    `arn:${partition}:logs:${region}:${account}:log-group:${fnOf(job).logGroupName}:log-stream:2026/11/27/[$LATEST]0123456789abcdef`;
  const identity = (name: string) => `arn:${partition}:ses:${region}:${account}:identity/${name}`;
  const rows: MustNotRow[] = [];
  const add = (fns: readonly string[], request: IamRequest, why: string) => {
    for (const fn of fns) rows.push({ fn, request, why });
  };
  const functions = [...iam.functions.keys()];
  const others = (fn: string) => functions.filter((f) => f !== fn);

  // The archive's plan step and copiers write the exports and run records only.
  const archivers = ['archive-plan', 'archive-copy'];
  add(
    archivers,
    { action: 's3:PutObject', resource: object('license-sync/incoming/12345678901/keys.csv') },
    'an upload there triggers the license sync, which writes into the service’s license registry',
  );
  add(
    archivers,
    { action: 's3:GetObject', resource: object('license-sync/incoming/12345678901/keys.csv') },
    'the license uploads are the license sync’s to read',
  );
  add(
    archivers,
    { action: 's3:PutObject', resource: object('digests/exec-weekly/2026-W48/index.html') },
    'the digest’s folder',
  );
  add(
    archivers,
    { action: 's3:PutObject', resource: object('license-registry/12345678901/2026-W48.csv.gz') },
    'the license report’s snapshots',
  );
  add(
    archivers,
    { action: 's3:ListBucket', resource: bucket.arn, context: { 's3:prefix': `${prefix}/license-sync/` } },
    'listing is limited to the function’s own prefixes',
  );

  // The license sync reads the uploads and writes the results, never an upload (it would trigger itself).
  add(
    ['license-sync'],
    { action: 's3:PutObject', resource: object('license-sync/incoming/12345678901/keys.csv') },
    'a file it wrote under incoming/ would trigger it again',
  );

  // Nothing archived is ever deleted or unlocked, by any function.
  for (const action of [
    's3:DeleteObject',
    's3:DeleteObjectVersion',
    's3:PutObjectRetention',
    's3:BypassGovernanceRetention',
  ])
    add(
      functions,
      { action, resource: object('digests/exec-weekly/2026-W48/index.html') },
      'the archive is write-once: Object Lock keeps what is written, and no role may try to change it',
    );

  // The digest lists its own folder only.
  add(
    ['digest'],
    { action: 's3:ListBucket', resource: bucket.arn, context: { 's3:prefix': `${prefix}/` } },
    'the digest lists its own folder only',
  );
  add(['digest'], { action: 's3:ListBucket', resource: bucket.arn }, 'a listing of the whole bucket');

  // The state table: each job's own items only (dynamodb:LeadingKeys).
  if (tableArn)
    for (const fn of functions)
      for (const [owner, keys] of Object.entries(LEDGER_KEYS))
        if (fn !== owner && !(READS_LEDGER_OF[fn] ?? []).includes(owner))
          for (const key of keys)
            add(
              [fn],
              { action: 'dynamodb:GetItem', resource: tableArn, context: { 'dynamodb:LeadingKeys': [key] } },
              `${owner}’s ledger items are not ${fn}’s to read`,
            );

  // The usage alerts' series states: read and overwritten by that job alone, never updated or deleted.
  if (tableArn) {
    for (const fn of functions.filter((f) => f !== 'usage-alerts'))
      for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem'])
        add(
          [fn],
          { action, resource: tableArn, context: { 'dynamodb:LeadingKeys': [USAGE_ALERT_STATE] } },
          `the usage alerts’ series states are not ${fn}’s`,
        );
    for (const action of ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'])
      add(
        ['usage-alerts'].filter((f) => functions.includes(f)),
        { action, resource: tableArn, context: { 'dynamodb:LeadingKeys': [USAGE_ALERT_STATE] } },
        'a series state is read and overwritten whole (a conditional put), never updated or deleted',
      );
  }

  // The usage alerts create their evidence and nothing else in the archive: no read (not even of the evidence), no
  // other folder, no listing beyond the evidence folder.
  const usage = ['usage-alerts'].filter((f) => functions.includes(f));
  const evidence = object('usage-alerts/evidence/2026-11-27/2026-11-27T10-40-00.000Z-0123456789ab.json');
  add(
    usage,
    { action: 's3:GetObject', resource: object('digests/exec-weekly/2026-W48/index.html') },
    'the usage alerts read nothing in the archive',
  );
  add(usage, { action: 's3:GetObject', resource: evidence }, 'the usage alerts only create their evidence');
  for (const key of [
    'digests/exec-weekly/2026-W48/index.html',
    'usage-alerts/other/x.json',
    'usage-alerts/evidence.json',
    '12345678901/clients/2026/11/clients.csv',
  ])
    add(
      usage,
      { action: 's3:PutObject', resource: object(key) },
      'the usage alerts write under their evidence folder only',
    );
  add(usage, { action: 's3:ListBucket', resource: bucket.arn }, 'a listing of the whole bucket');
  add(
    usage,
    { action: 's3:ListBucket', resource: bucket.arn, context: { 's3:prefix': `${prefix}/` } },
    'the usage alerts list their evidence folder at most',
  );
  // And no other function writes the evidence: it is the usage alerts' record.
  add(
    others('usage-alerts'),
    { action: 's3:PutObject', resource: evidence },
    'the usage alerts’ evidence is theirs to write',
  );

  // A bounce is recorded on its delivery; a delivery is never made or unmade by the mail events. The suppression
  // list is the mail events' to add to: a sender only reads it.
  if (tableArn && functions.includes('mail-events'))
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem'])
      for (const key of LEDGER_KEYS.digest!)
        add(
          ['mail-events'],
          { action, resource: tableArn, context: { 'dynamodb:LeadingKeys': [key] } },
          'the mail events update a delivery’s record, they never create or delete one',
        );
  if (tableArn)
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:UpdateItem'])
      add(
        SENDERS.filter((f) => functions.includes(f)),
        { action, resource: tableArn, context: { 'dynamodb:LeadingKeys': ['mail-suppressed'] } },
        'a sender reads the suppression list; only the mail events add to it, only an operator clears it',
      );

  // Secrets: the stack's own only, and only for the functions whose environment names it (those that sign in).
  add(
    functions,
    {
      action: 'secretsmanager:GetSecretValue',
      resource: `arn:${partition}:secretsmanager:${region}:${account}:secret:other/secret-AbCdEf`,
    },
    'a secret that is not the function’s',
  );
  const secretOf = (fn: string) => fnOf(fn).environment.PULSE_SERVICE_SECRET_ARN;
  const stackSecret = new Set(
    functions.flatMap((fn) => (secretOf(fn) === undefined ? [] : [iam.resolver.string(secretOf(fn))])),
  );
  const givenNoSecret = functions.filter((fn) => secretOf(fn) === undefined);
  for (const secret of stackSecret)
    add(
      givenNoSecret,
      { action: 'secretsmanager:GetSecretValue', resource: secret },
      'its environment names no secret: it never signs in to the service',
    );

  // Logs: each function's own log group only.
  for (const fn of functions)
    for (const other of others(fn)) {
      add([fn], { action: 'logs:PutLogEvents', resource: logStream(other) }, `writing into ${other}’s log`);
      add([fn], { action: 'logs:CreateLogStream', resource: logStream(other) }, `a stream in ${other}’s log group`);
    }

  // Mail: from the configured sender only.
  const domain = mailFrom.slice(mailFrom.lastIndexOf('@') + 1);
  const senders = SENDERS.filter((f) => functions.includes(f));
  for (const [resource, from] of [
    [identity(domain), `ceo@${domain}`],
    [identity(`ceo@${domain}`), `ceo@${domain}`],
    [identity('other.example'), 'pulse@other.example'],
  ] as const)
    add(
      senders,
      { action: 'ses:SendEmail', resource, context: { 'ses:FromAddress': from } },
      `sending as ${from}, not ${mailFrom}`,
    );

  return rows;
}

export interface ServiceMustNotRow {
  /** The service principal that must be refused (`events.amazonaws.com`, …). */
  service: string;
  request: IamRequest;
  why: string;
}

/**
 * Confused-deputy guards: a service may act on the stack's resources for the stack's own sources only (its alarms,
 * its key-deletion rule, its bucket, its schedule group), never for another account's or another resource's.
 */
export function serviceMustNotRows(iam: DeployedIam): ServiceMustNotRow[] {
  const { resolver } = iam;
  const { partition, region, account } = resolver.target;
  const stranger = '210987654321';
  const rows: ServiceMustNotRow[] = [];
  const strangerArn = (service: string, resource: string, inAccount = stranger) =>
    `arn:${partition}:${service}:${region}:${inAccount}:${resource}`;
  for (const [id] of resolver.resourcesOfType('AWS::SNS::Topic')) {
    const topic = resolver.ref(id);
    rows.push({
      service: 'cloudwatch.amazonaws.com',
      request: {
        action: 'sns:Publish',
        resource: topic,
        context: {
          'aws:SourceAccount': stranger,
          'aws:SourceArn': strangerArn('cloudwatch', `alarm:${resolver.target.stackName}-X`),
        },
      },
      why: "another account's alarm",
    });
    rows.push({
      service: 'cloudwatch.amazonaws.com',
      request: {
        action: 'sns:Publish',
        resource: topic,
        context: {
          'aws:SourceAccount': account,
          'aws:SourceArn': strangerArn('cloudwatch', 'alarm:Other-Alarm', account),
        },
      },
      why: 'an alarm of another stack of this account',
    });
    rows.push({
      service: 'cloudwatch.amazonaws.com',
      request: {
        action: 'sns:Publish',
        resource: topic,
        context: {
          'aws:SourceAccount': account,
          'aws:SourceArn': strangerArn(
            'cloudwatch',
            `alarm:${resolver.target.stackName}-staging-DigestErrors`,
            account,
          ),
        },
      },
      why: 'an alarm of a stack whose name starts with this one’s',
    });
    rows.push({
      service: 'events.amazonaws.com',
      request: {
        action: 'sns:Publish',
        resource: topic,
        context: {
          'aws:SourceAccount': account,
          'aws:SourceArn': strangerArn('events', 'rule/SomeoneElsesRule', account),
        },
      },
      why: 'an EventBridge rule other than the key-deletion watch',
    });
  }
  // The mail-events queue (any queue a rule of the stack sends to) takes that rule's events only.
  for (const [ruleId, rule] of resolver.resourcesOfType('AWS::Events::Rule'))
    for (const target of (rule.Properties?.Targets as { Arn: unknown }[] | undefined) ?? []) {
      const arn = resolver.string(target.Arn);
      if (!arn.includes(':sqs:')) continue;
      rows.push({
        service: 'events.amazonaws.com',
        request: {
          action: 'sqs:SendMessage',
          resource: arn,
          context: {
            'aws:SourceAccount': account,
            'aws:SourceArn': strangerArn('events', 'rule/SomeoneElsesRule', account),
          },
        },
        why: `a rule other than ${ruleId} (forged mail events would suppress addresses)`,
      });
    }
  for (const [id] of resolver.resourcesOfType('Custom::S3BucketNotifications')) {
    const configuration = resolver.resource(id).Properties?.NotificationConfiguration as {
      LambdaFunctionConfigurations?: { LambdaFunctionArn: unknown }[];
    };
    for (const c of configuration.LambdaFunctionConfigurations ?? [])
      rows.push({
        service: 's3.amazonaws.com',
        request: {
          action: 'lambda:InvokeFunction',
          resource: resolver.string(c.LambdaFunctionArn),
          context: { 'aws:SourceAccount': account, 'aws:SourceArn': `arn:${partition}:s3:::someone-elses-bucket` },
        },
        why: 'an event of another bucket',
      });
  }
  for (const [id] of resolver.resourcesOfType('AWS::Scheduler::Schedule')) {
    const target = resolver.resource(id).Properties?.Target as { RoleArn: unknown } | undefined;
    if (!target) throw new Error(`schedule ${id} has no target`);
    const roleArn = resolver.string(target.RoleArn);
    rows.push({
      service: 'scheduler.amazonaws.com',
      request: {
        action: 'sts:AssumeRole',
        resource: roleArn,
        context: { 'aws:SourceAccount': stranger, 'aws:SourceArn': strangerArn('scheduler', 'schedule-group/default') },
      },
      why: "another account's schedule group",
    });
  }
  return rows;
}
