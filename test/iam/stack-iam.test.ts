/**
 * The example production config's stack (a plain synth, no bundling) judged by IAM's rules (simulate.ts): every
 * delivery AWS services make on Pulse's behalf is allowed — CloudWatch alarms and the key-deletion rule publishing
 * to the encrypted alarm topic, Scheduler assuming each schedule's role and that role invoking its function and
 * dead-lettering, S3 invoking the license sync, Lambda using each function's role for its destination, its event
 * source and its own log group — and every row of must-not.ts is denied: what no function may do, and the services
 * acting for a source that is not the stack's (confused deputy). The calls the handlers themselves make are judged
 * in test/functions/bundled/bundled-handlers.test.ts, from a recording of a real run.
 */
import { describe, expect, it } from 'vitest';
import { productionConfig, synthPulse } from '../infra/synth-pulse.ts';
import { CfnResolver, type CfnTemplate, TEST_TARGET } from './cfn-resolver.ts';
import { deployedIam } from './deployed-iam.ts';
import { mustNotRows, PULSE_FUNCTIONS, serviceMustNotRows } from './must-not.ts';
import { type IamRequest, type Principal, simulate } from './simulate.ts';

const config = productionConfig();
const synth = synthPulse();
const template = synth.template.toJSON() as CfnTemplate;
const resolver = new CfnResolver(template, { ...TEST_TARGET, stackName: synth.stack.stackName });
const iam = deployedIam(resolver);
const { account, partition, region } = resolver.target;

interface Check {
  name: string;
  principal: Principal;
  request: IamRequest;
}

type Props = Record<string, unknown>;
const props = (id: string) => (resolver.resource(id).Properties ?? {}) as Props;
const values = (v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => resolver.string(x));
const service = (name: string): Principal => ({ arn: name });

/** What the AWS services do with the stack's resources, each request as that service makes it. */
function serviceChecks(): Check[] {
  const checks: Check[] = [];
  const topics = resolver.resourcesOfType('AWS::SNS::Topic').map(([id]) => ({
    arn: resolver.ref(id),
    key: props(id).KmsMasterKeyId === undefined ? undefined : resolver.string(props(id).KmsMasterKeyId),
  }));
  const keyChecked = new Set<string>();
  const publishTo = (who: string, sourceArn: string, topicArn: string) => {
    const context = { 'aws:SourceAccount': account, 'aws:SourceArn': sourceArn };
    const topic = topics.find((t) => t.arn === topicArn);
    checks.push({
      name: `${who} (${sourceArn.split(':').at(-1)}) publishes to the topic`,
      principal: service(who),
      request: { action: 'sns:Publish', resource: topicArn, context },
    });
    // SNS encrypts with the topic's key for the publisher, with the publisher's rights on the key (the key policy
    // names no source: checked once per publisher).
    if (topic?.key && !keyChecked.has(`${who} ${topic.key}`) && keyChecked.add(`${who} ${topic.key}`))
      for (const action of ['kms:GenerateDataKey', 'kms:Decrypt'])
        checks.push({
          name: `${who} (${sourceArn.split(':').at(-1)}) uses the topic's key: ${action}`,
          principal: service(who),
          request: { action, resource: topic.key, context },
        });
  };

  // CloudWatch alarms notify the topic (AlarmActions, OKActions, InsufficientDataActions).
  for (const [id] of resolver.resourcesOfType('AWS::CloudWatch::Alarm')) {
    const p = props(id);
    const targets = new Set([...values(p.AlarmActions), ...values(p.OKActions), ...values(p.InsufficientDataActions)]);
    for (const topicArn of targets)
      if (topics.some((t) => t.arn === topicArn)) publishTo('cloudwatch.amazonaws.com', resolver.arn(id), topicArn);
  }
  // EventBridge rules with the topic as a target (the KMS key-deletion watch), or a queue (SES's mail events), and
  // the queue the rule's target dead-letters to.
  const queues = new Set(resolver.resourcesOfType('AWS::SQS::Queue').map(([id]) => resolver.arn(id)));
  for (const [id] of resolver.resourcesOfType('AWS::Events::Rule'))
    for (const target of (props(id).Targets as Props[] | undefined) ?? []) {
      const arn = resolver.string(target.Arn);
      if (topics.some((t) => t.arn === arn)) publishTo('events.amazonaws.com', resolver.arn(id), arn);
      const deadLetters = (target.DeadLetterConfig as Props | undefined)?.Arn;
      for (const queue of [arn, ...(deadLetters === undefined ? [] : [resolver.string(deadLetters)])])
        if (queues.has(queue))
          checks.push({
            name: `events.amazonaws.com (${resolver.arn(id).split('/').at(-1)}) sends to queue ${queue.split(':').at(-1)}`,
            principal: service('events.amazonaws.com'),
            request: {
              action: 'sqs:SendMessage',
              resource: queue,
              context: { 'aws:SourceAccount': account, 'aws:SourceArn': resolver.arn(id) },
            },
          });
    }

  // Scheduler assumes the schedule's role for the schedule group, which invokes the function and dead-letters.
  for (const [id] of resolver.resourcesOfType('AWS::Scheduler::Schedule')) {
    const p = props(id);
    const target = p.Target as Props;
    const roleArn = resolver.string(target.RoleArn);
    const group = p.GroupName === undefined ? 'default' : resolver.string(p.GroupName);
    const name = resolver.physicalName(id);
    checks.push({
      name: `scheduler.amazonaws.com assumes the role of schedule ${name}`,
      principal: service('scheduler.amazonaws.com'),
      request: {
        action: 'sts:AssumeRole',
        resource: roleArn,
        context: {
          'aws:SourceAccount': account,
          'aws:SourceArn': `arn:${partition}:scheduler:${region}:${account}:schedule-group/${group}`,
        },
      },
    });
    const session: Principal = {
      arn: `arn:${partition}:sts::${account}:assumed-role/${roleArn.split('/').at(-1)}/${name}`,
      roleArn,
    };
    checks.push({
      name: `schedule ${name}'s role invokes its function`,
      principal: session,
      request: { action: 'lambda:InvokeFunction', resource: resolver.string(target.Arn) },
    });
    const deadLetters = (target.DeadLetterConfig as Props | undefined)?.Arn;
    if (deadLetters !== undefined)
      checks.push({
        name: `schedule ${name}'s role sends to its dead-letter queue`,
        principal: session,
        request: { action: 'sqs:SendMessage', resource: resolver.string(deadLetters) },
      });
  }

  // S3 invokes the functions of the buckets' notifications, for that bucket.
  for (const [id] of resolver.resourcesOfType('Custom::S3BucketNotifications')) {
    const bucket = resolver.string(props(id).BucketName);
    const configuration = props(id).NotificationConfiguration as { LambdaFunctionConfigurations?: Props[] };
    for (const c of configuration.LambdaFunctionConfigurations ?? [])
      checks.push({
        name: `s3.amazonaws.com invokes ${resolver.string(c.LambdaFunctionArn).split(':').at(-1)} for bucket ${bucket}`,
        principal: service('s3.amazonaws.com'),
        request: {
          action: 'lambda:InvokeFunction',
          resource: resolver.string(c.LambdaFunctionArn),
          context: { 'aws:SourceAccount': account, 'aws:SourceArn': `arn:${partition}:s3:::${bucket}` },
        },
      });
  }

  // Lambda acts with the function's role: its on-failure destination, its event source, its log group.
  for (const f of iam.functions.values()) {
    const role: Principal = { arn: f.principal, roleArn: f.roleArn };
    if (f.onFailure)
      checks.push({
        name: `${f.job}: Lambda sends a failed run to its on-failure queue`,
        principal: role,
        request: { action: 'sqs:SendMessage', resource: f.onFailure },
      });
    for (const queue of f.eventSources)
      for (const action of [
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:ChangeMessageVisibility',
      ])
        checks.push({
          name: `${f.job}: its SQS event source ${action}`,
          principal: role,
          request: { action, resource: queue },
        });
    const stream = `arn:${partition}:logs:${region}:${account}:log-group:${f.logGroupName}:log-stream:2026/11/27/[$LATEST]0123456789abcdef`;
    for (const action of ['logs:CreateLogStream', 'logs:PutLogEvents'])
      checks.push({
        name: `${f.job}: ${action} in its own log group`,
        principal: role,
        request: { action, resource: stream },
      });
  }
  return checks;
}

const describeRequest = (r: IamRequest) =>
  `${r.action} on ${r.resource}${r.context ? ` ${JSON.stringify(r.context)}` : ''}`;

describe('what the AWS services do for the stack is allowed', () => {
  const checks = serviceChecks();
  it('covers every kind of delivery the stack wires up', () => {
    const has = (p: string) => checks.some((c) => c.name.includes(p));
    for (const p of ['cloudwatch.amazonaws.com', 'events.amazonaws.com', 'scheduler.amazonaws.com', 's3.amazonaws.com'])
      expect(has(p), p).toBe(true);
    const withLogs = new Set(checks.filter((c) => c.name.includes('own log group')).map((c) => c.name.split(':')[0]));
    expect([...withLogs]).toEqual(expect.arrayContaining([...PULSE_FUNCTIONS]));
    expect(checks.some((c) => c.name.includes('event source'))).toBe(true);
    // SES's bounce events reach the mail-events queue (and its dead-letter queue) through their EventBridge rule.
    expect(checks.filter((c) => /events\.amazonaws\.com .* sends to queue/.test(c.name))).toHaveLength(2);
  });
  it.each(checks.map((c) => [c.name, c] as const))('%s', async (_name, check) => {
    const verdict = await simulate(iam, check.principal, check.request);
    expect(verdict.decision, `${check.principal.arn}: ${describeRequest(check.request)}`).toBe('Allowed');
  });
});

describe('the usage alerts keep their evidence', () => {
  // The rest of what the handlers call is judged from a recording (bundled-handlers.test.ts); this names the one
  // write the must-not rows fence in, so the fence is not all there is.
  it('may create an evidence object under its folder, encrypted with the bucket key', async () => {
    const f = iam.functions.get('usage-alerts')!;
    const [, bucket] = [...iam.buckets].find(([, b]) => b.keyArn !== undefined)!;
    const key = `${config.archive!.prefix}/usage-alerts/evidence/2026-11-27/2026-11-27T10-40-00.000Z-0123456789ab.json`;
    for (const request of [
      { action: 's3:PutObject', resource: `${bucket.arn}/${key}` },
      { action: 'kms:GenerateDataKey', resource: bucket.keyArn! },
    ]) {
      const verdict = await simulate(iam, { arn: f.principal, roleArn: f.roleArn }, request);
      expect(verdict.decision, describeRequest(request)).toBe('Allowed');
    }
  });
});

describe('least privilege: what no function may do is denied', () => {
  const rows = mustNotRows({ iam, prefix: config.archive?.prefix ?? 'pulse', mailFrom: config.mail.from });
  it.each(rows.map((r) => [`${r.fn}: ${describeRequest(r.request)}`, r] as const))('%s', async (_name, row) => {
    const f = iam.functions.get(row.fn);
    if (!f) throw new Error(`no function ${row.fn} in the template`);
    const verdict = await simulate(iam, { arn: f.principal, roleArn: f.roleArn }, row.request);
    expect(verdict.decision, `${row.fn} must not: ${describeRequest(row.request)} — ${row.why}`).not.toBe('Allowed');
  });
});

describe('confused deputy: the services act for the stack’s own sources only', () => {
  it.each(serviceMustNotRows(iam).map((r) => [`${r.service}: ${describeRequest(r.request)}`, r] as const))(
    '%s',
    async (_name, row) => {
      const verdict = await simulate(iam, service(row.service), row.request);
      expect(verdict.decision, `${row.service} must not: ${describeRequest(row.request)} — ${row.why}`).not.toBe(
        'Allowed',
      );
    },
  );
});

describe('the usage alerts function reaches its own state items', () => {
  const [table] = [...iam.tables.values()];
  const usage = iam.functions.get('usage-alerts');
  // A notice to a rule's owner that the rule cannot be judged, claimed and settled like every delivery; and a
  // recipient's unknown deliveries (read and put whole, like a series state).
  const own: [string, string[]][] = [
    [
      'usage-alert-problem#desktop-active-drop#12345678901#0123456789abcdef',
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    ],
    ['usage-alert-state#unknown#cpo@example.com', ['dynamodb:GetItem', 'dynamodb:PutItem']],
  ];
  it.each(own.flatMap(([key, actions]) => actions.map((action) => [`${action} ${key}`, action, key] as const)))(
    '%s',
    async (_name, action, key) => {
      if (!table || !usage) throw new Error('no state table or usage alerts function in the template');
      const request = { action, resource: table.arn, context: { 'dynamodb:LeadingKeys': [key] } };
      const verdict = await simulate(iam, { arn: usage.principal, roleArn: usage.roleArn }, request);
      expect(verdict.decision, describeRequest(request)).toBe('Allowed');
    },
  );
});
