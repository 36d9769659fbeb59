/**
 * Every Pulse handler run from its synthesized bundle the way Lambda runs it (bundled-stack.ts): one synth with real
 * bundling of the example production config pointed at the local peers, then each function's `index.mjs` in a child
 * process against the emulator, dynalite, s3rver (behind a proxy that answers version ids) and the SMTP sink (Secrets
 * Manager and SQS: local AWS-JSON stubs; SES v2: a stub relaying to the sink). Covered per function: a normal run, a
 * rerun that does nothing again; the copier at the service's session limit and hashing an archived object by its
 * version; the stack secret still holding its placeholder. Last, every AWS SDK command the containers sent is
 * judged against the synthesized stack's IAM (test/iam/): each must be allowed.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClientFor, LEDGER_SORT_KEY } from '../../../src/adapters/aws/dynamodb-ledger.ts';
import { sesEventFor } from '../../../src/adapters/local/sink-mail-events.ts';
import { CHART_ASSET_FILES } from '../../../src/charts/assets.ts';
import { DELIVERY_TAG, ledgerKeyOfTag } from '../../../src/core/delivery/delivery-tag.ts';
import { signedIn } from '../../helpers/emulator-session.ts';
import { CfnResolver, TEST_TARGET } from '../../iam/cfn-resolver.ts';
import { deployedIam } from '../../iam/deployed-iam.ts';
import { PULSE_FUNCTIONS } from '../../iam/must-not.ts';
import { describeDenial, type Judgement, judgeRecordedCalls } from '../../iam/recorded-calls.ts';
import {
  type BundledPulse,
  type FunctionName,
  type Invocation,
  MAIL_CONFIGURATION_SET,
  SECRET_ARN,
  SERVICE_SESSION_LIMIT,
  startBundledPulse,
} from './bundled-stack.ts';

let pulse: BundledPulse;
beforeAll(async () => {
  pulse = await startBundledPulse();
}, 180_000);
afterAll(async () => {
  await pulse?.close();
});

const scheduled = {};
const mailsTo = () => pulse.peers.sink.messages().map((m) => m.to.join(','));
const keys = async (prefix: string) => {
  const listed = await pulse.peers.s3.send(
    new ListObjectsV2Command({ Bucket: pulse.peers.bucket, Prefix: prefix, MaxKeys: 1000 }),
  );
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
};
const text = async (key: string) => {
  const got = await pulse.peers.s3.send(new GetObjectCommand({ Bucket: pulse.peers.bucket, Key: key }));
  return got.Body!.transformToString();
};
const user = () => pulse.peers.emulator.credentials.userName;
const sessions = () => pulse.peers.emulator.state.sessions;
/** The one result of a one-event invocation; fails the test with what the handler threw. */
function only(inv: Invocation): unknown {
  expect(inv.results).toHaveLength(1);
  const [r] = inv.results;
  if (!r || !('result' in r)) throw new Error(`the handler threw: ${JSON.stringify(r)}\n${inv.stderr}`);
  return r.result;
}
const jobMetric = (inv: Invocation) => inv.metrics.map((m) => ({ job: m.job, JobFailed: m.JobFailed }));

describe('the synthesized bundles', () => {
  it('each function has its asset: index.mjs, its pulse.config.json, its templates', () => {
    for (const [name, fn] of Object.entries(pulse.functions)) {
      expect(existsSync(join(fn.assetDir, 'index.mjs')), name).toBe(true);
      // The deploy-time secret setup reads no config: its custom resource's properties say what to do.
      expect(existsSync(join(fn.assetDir, 'pulse.config.json')), name).toBe(name !== 'secret-setup');
    }
    expect(existsSync(join(pulse.functions.digest.assetDir, 'templates/digest.html'))).toBe(true);
    // Every function that mails renders an owner's notice (held, unknown or bounced delivery) from this template.
    for (const fn of ['digest', 'license-alerts', 'license-report', 'mail-events'] as const)
      expect(existsSync(join(pulse.functions[fn].assetDir, 'templates/failure-notice.html')), fn).toBe(true);
    expect(existsSync(join(pulse.functions.digest.assetDir, 'templates/digest-report.html'))).toBe(true);
    // The chart renderer's wasm and fonts ship beside the JS of the functions that draw (docs/aws.md "Digest charts").
    for (const fn of ['digest', 'usage-alerts'] as const)
      for (const name of Object.keys(CHART_ASSET_FILES))
        expect(existsSync(join(pulse.functions[fn].assetDir, 'chart-assets', name)), `${fn} ${name}`).toBe(true);
    expect(existsSync(join(pulse.functions['usage-alerts'].assetDir, 'templates/usage-alert.html'))).toBe(true);
    expect(Object.keys(pulse.functions).sort()).toEqual(
      [
        'archive-copy',
        'archive-plan',
        'archive-verify',
        'digest',
        'license-alerts',
        'license-report',
        'license-sync',
        'usage-alerts',
        'mail-events',
        'secret-setup',
      ].sort(),
    );
  });
});

describe('placeholder credentials in the stack secret', () => {
  const upload = {
    Records: [{ s3: { bucket: { name: 'pulse-archive' }, object: { key: 'pulse/license-sync/incoming/1/k.csv' } } }],
  };
  it.each([
    ['digest', 'digest', scheduled],
    ['archive-plan', 'archive', scheduled],
    ['license-alerts', 'license-alerts', scheduled],
    ['license-report', 'license-report', scheduled],
    ['usage-alerts', 'usage-alerts', scheduled],
    ['license-sync', 'licenses-sync', upload],
    ['archive-copy', 'archive', { Records: [{ messageId: 'm-1', body: '{}' }] }],
  ] as const)(
    '%s: refused before any request reaches the service; one log line and JobFailed',
    async (fn, job, event) => {
      pulse.secrets.set(SECRET_ARN, pulse.placeholderSecret());
      try {
        const before = pulse.proxy.connections;
        const mails = mailsTo().length;
        const inv = await pulse.invoke(fn, [event]);
        const returned = only(inv);
        if (fn === 'archive-copy') expect(returned).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-1' }] });
        else expect(Array.isArray(returned) ? returned[0] : returned).toMatchObject({ job, ok: false });
        expect(pulse.proxy.connections - before).toBe(0);
        expect(mailsTo()).toHaveLength(mails);
        const errors = inv.logs.filter((l) => l.level === 'ERROR');
        expect(errors).toHaveLength(1);
        expect(errors[0]!.message).toContain(`secret ${SECRET_ARN} are still the placeholder`);
        expect(jobMetric(inv)).toEqual([{ job, JobFailed: 1 }]);
        expect(inv.stdout + inv.stderr).not.toContain('generated-0123456789');
      } finally {
        pulse.secrets.set(SECRET_ARN, pulse.realSecret());
      }
    },
    60_000,
  );
});

describe('digest', () => {
  it('a scheduled run sends to every recipient through the SMTP sink; a rerun sends nothing', async () => {
    const first = await pulse.invoke('digest', [scheduled]);
    const result = only(first);
    expect(result).toMatchObject({ job: 'digest', ok: true });
    expect(
      mailsTo()
        .filter((to) => /ceo@|cpo@/.test(to))
        .sort(),
    ).toEqual(['ceo@example.com', 'cpo@example.com']);
    expect(jobMetric(first)).toEqual([{ job: 'digest', JobFailed: 0 }]);
    // The full report and the charts: the bundle's renderer read its wasm and fonts from chart-assets/.
    const archived = await keys('pulse/digests/');
    expect(archived.filter((k) => k.endsWith('/index.html'))).toHaveLength(1);
    expect(archived.filter((k) => k.endsWith('.png')).length).toBeGreaterThan(4);

    const before = mailsTo().length;
    const again = await pulse.invoke('digest', [scheduled]);
    expect(only(again)).toMatchObject({ job: 'digest', ok: true });
    expect(mailsTo()).toHaveLength(before);
  }, 120_000);
});

describe('archive: plan step and copiers', () => {
  it('the plan step queues one copy task per file through SQS', async () => {
    const inv = await pulse.invoke('archive-plan', [scheduled]);
    expect(only(inv)).toMatchObject({ job: 'archive', ok: true });
    expect(pulse.queued.length).toBeGreaterThan(0);
    expect(pulse.sqs.calls.every((c) => c.target === 'AmazonSQS.SendMessageBatch')).toBe(true);
    expect(jobMetric(inv)).toEqual([{ job: 'archive', JobFailed: 0 }]);
  }, 120_000);

  it('at the session limit a copier hands its batch back as item failures, without throwing', async () => {
    const others = [];
    while (sessions().liveSessionsOf(user()).length < SERVICE_SESSION_LIMIT)
      others.push(await signedIn(pulse.peers.emulator));
    try {
      const batch = pulse.queued.slice(0, 4);
      const inv = await pulse.invoke('archive-copy', [
        { Records: batch.map((m) => ({ messageId: m.id, body: m.body, eventSource: 'aws:sqs' })) },
      ]);
      expect(only(inv)).toEqual({ batchItemFailures: batch.map((m) => ({ itemIdentifier: m.id })) });
    } finally {
      sessions().endAll(user());
    }
  }, 60_000);

  it('copiers (one warm container) copy every queued file into the bucket; the run finishes with its manifest', async () => {
    const batches: unknown[] = [];
    for (let i = 0; i < pulse.queued.length; i += 4)
      batches.push({
        Records: pulse.queued.slice(i, i + 4).map((m) => ({ messageId: m.id, body: m.body, eventSource: 'aws:sqs' })),
      });
    const before = sessions().signIns;
    const inv = await pulse.invoke('archive-copy', batches);
    sessions().endAll(user());
    for (const r of inv.results) expect(r).toEqual({ result: { batchItemFailures: [] } });
    // One container, one session for all its batches.
    expect(sessions().signIns - before).toBe(1);
    expect(jobMetric(inv)).toEqual([{ job: 'archive', JobFailed: 0 }]);
    const archived = await keys('pulse/');
    expect(archived.filter((k) => !k.includes('/digests/')).length).toBeGreaterThanOrEqual(pulse.queued.length);

    expect(archived.filter((k) => k.startsWith('pulse/manifests/'))).toHaveLength(1);

    // A rerun: the next plan queues every listed file again; the copiers find each already archived.
    const queued = pulse.queued.length;
    expect(only(await pulse.invoke('archive-plan', [scheduled]))).toMatchObject({ job: 'archive', ok: true });
    const requeued = pulse.queued.slice(queued, queued + 4);
    expect(pulse.queued).toHaveLength(2 * queued);
    const rerun = await pulse.invoke('archive-copy', [
      { Records: requeued.map((m) => ({ messageId: m.id, body: m.body, eventSource: 'aws:sqs' })) },
    ]);
    sessions().endAll(user());
    expect(only(rerun)).toEqual({ batchItemFailures: [] });
    // Nothing copied again: the only new object is the new run's plan.
    const added = (await keys('pulse/')).filter((k) => !archived.includes(k));
    expect(added).toEqual([expect.stringMatching(/^pulse\/runs\/[^/]+\/plan\.json$/)]);
  }, 180_000);

  // Reads the manifest the test above wrote (tests in a file run in order).
  it('the daily check finds the manifest chain intact: JobSucceeded, no service call', async () => {
    const inv = await pulse.invoke('archive-verify', [scheduled]);
    expect(only(inv)).toMatchObject({ job: 'archive-verify', ok: true, errors: [] });
    expect(jobMetric(inv)).toEqual([{ job: 'archive-verify', JobFailed: 0 }]);
  });

  // The bucket is versioned (the proxy answers version ids): an archived object is judged by the version it was
  // checked as (src/archive/copy/archived-check.ts), which is GetObject with VersionId (IAM: s3:GetObjectVersion).
  it('a copier hashes an archived file by its version when its checksum file disagrees, and repairs that file', async () => {
    // A task of the second run that no copier has taken (the rerun above took its first four), of a ZIP export.
    const secondRun = pulse.queued.slice(pulse.queued.length / 2 + 4);
    const task = secondRun.find((m) => JSON.parse(m.body).file.kind !== 'clientData');
    if (!task) throw new Error(`no untaken export task left in the second run (${secondRun.length} tasks)`);
    const { key, fileName } = JSON.parse(task.body).file as { key: string; fileName: string };
    const checksumKey = `${key}.sha256`;
    const checksumFile = await text(checksumKey);
    // A different, valid SHA-256, not bound to the object (no token): the archived bytes must decide.
    const other = createHash('sha256').update('not the archived bytes').digest('hex');
    await pulse.peers.s3.send(
      new PutObjectCommand({ Bucket: pulse.peers.bucket, Key: checksumKey, Body: `${other}  ${fileName}\n` }),
    );
    const before = pulse.sdkCalls.length;
    const inv = await pulse.invoke('archive-copy', [
      { Records: [{ messageId: 'm-by-version', body: task.body, eventSource: 'aws:sqs' }] },
    ]);
    sessions().endAll(user());
    expect(only(inv)).toEqual({ batchItemFailures: [] });
    const version = pulse.s3.versionOf(pulse.peers.bucket, key);
    expect(version).toBeDefined();
    expect(pulse.sdkCalls.slice(before)).toContainEqual(
      expect.objectContaining({
        fn: 'archive-copy',
        command: 'GetObjectCommand',
        input: expect.objectContaining({ Bucket: pulse.peers.bucket, Key: key, VersionId: version }),
      }),
    );
    expect(inv.logs.map((l) => l.message)).toContain('archive: checksum file repaired');
    expect(await text(checksumKey)).toBe(checksumFile);
  }, 60_000);
});

describe('license alerts', () => {
  it('a run sends the routed alerts; a rerun sends nothing', async () => {
    const before = mailsTo().length;
    const first = await pulse.invoke('license-alerts', [{ detail: { now: true } }]);
    expect(only(first)).toMatchObject({ job: 'license-alerts', ok: true });
    const sent = mailsTo().slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(
      sent.filter((to) => /growth@|subscriptions@/.test(to)),
      sent.join(' '),
    ).not.toEqual([]);
    expect(jobMetric(first)).toEqual([{ job: 'license-alerts', JobFailed: 0 }]);

    const after = mailsTo().length;
    expect(only(await pulse.invoke('license-alerts', [{ detail: { now: true } }]))).toMatchObject({ ok: true });
    expect(mailsTo()).toHaveLength(after);
  }, 120_000);
});

describe('license report', () => {
  it('a scheduled run snapshots the registry and sends the report; a rerun sends nothing', async () => {
    const before = mailsTo().length;
    const first = await pulse.invoke('license-report', [scheduled]);
    expect(only(first)).toMatchObject({ job: 'license-report', ok: true });
    expect(mailsTo().length).toBeGreaterThan(before);
    expect(await keys('pulse/license-reports/')).not.toEqual([]);

    const after = mailsTo().length;
    expect(only(await pulse.invoke('license-report', [scheduled]))).toMatchObject({ ok: true });
    expect(mailsTo()).toHaveLength(after);
  }, 120_000);
});

// Before the mail events' bounce: that suppresses an address the usage rules mail too.
describe('usage alerts', () => {
  const stateOf = async (productId: string) => {
    const db = dynamoDocumentClientFor({ endpoint: pulse.peers.dynamodbEndpoint });
    try {
      const key = { pk: `usage-alert-state#desktop-active-drop#${productId}#-`, sk: 'state' };
      return (await db.send(new GetCommand({ TableName: pulse.peers.tableName, Key: key }))).Item;
    } finally {
      db.destroy();
    }
  };
  it('a scheduled run tells the firing rule once, its charts inline; a rerun tells nothing', async () => {
    const before = pulse.peers.sink.messages().length;
    const first = await pulse.invoke('usage-alerts', [scheduled]);
    const result = only(first) as { ok: boolean; counts: Record<string, number> };
    expect(result, JSON.stringify(first.logs.filter((l) => l.level !== 'INFO'))).toMatchObject({
      job: 'usage-alerts',
      ok: true,
    });
    // The daily rule fires on each product (bundled-stack.ts): both in one email to its recipient, a chart each.
    expect(result.counts.firing).toBeGreaterThanOrEqual(2);
    const sent = pulse.peers.sink.messages().slice(before);
    const cpo = sent.filter((m) => m.to.includes('cpo@example.com'));
    expect(cpo).toHaveLength(1);
    expect(cpo[0]!.attachments).toBeGreaterThanOrEqual(2);
    expect(result.counts.emails).toBe(sent.length);
    expect(jobMetric(first)).toEqual([{ job: 'usage-alerts', JobFailed: 0 }]);
    for (const product of pulse.peers.emulator.products.slice(0, 2))
      expect(await stateOf(product.productId)).toMatchObject({ firing: true });
    // Its evidence, kept before the email went out and named in it.
    const evidence = await keys('pulse/usage-alerts/evidence/');
    expect(evidence).toHaveLength(1);
    expect(JSON.parse(await text(evidence[0]!))).toMatchObject({ kind: 'pulse.usage-alerts.evidence' });
    expect((result as unknown as { outputs: string[] }).outputs).toEqual([`s3://${pulse.peers.bucket}/${evidence[0]}`]);

    const after = mailsTo().length;
    const again = await pulse.invoke('usage-alerts', [scheduled]);
    expect(only(again)).toMatchObject({ ok: true, counts: expect.objectContaining({ firing: 0, emails: 0 }) });
    expect(mailsTo()).toHaveLength(after);
    expect(await keys('pulse/usage-alerts/evidence/')).toEqual(evidence);
  }, 120_000);
});

describe('license sync', () => {
  it('an S3 event for an uploaded CSV writes its result file; a rerun changes nothing', async () => {
    const product = pulse.peers.emulator.products[0]!.productId;
    const key = `pulse/license-sync/incoming/${product}/bundled keys.csv`;
    await pulse.peers.s3.send(
      new PutObjectCommand({
        Bucket: pulse.peers.bucket,
        Key: key,
        Body: 'licenseKey,licenseType,expiryDate\r\nBUNDLED-1,trial,2027-05-01\r\n',
      }),
    );
    const event = {
      Records: [
        {
          eventSource: 'aws:s3',
          eventName: 'ObjectCreated:Put',
          s3: {
            bucket: { name: pulse.peers.bucket },
            object: { key: encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+') },
          },
        },
      ],
    };
    const first = await pulse.invoke('license-sync', [event]);
    expect(only(first)).toEqual([
      expect.objectContaining({ job: 'licenses-sync', ok: true, counts: expect.objectContaining({ inserted: 1 }) }),
    ]);
    expect(await keys(`pulse/license-sync/results/${product}/`)).toEqual([
      `pulse/license-sync/results/${product}/bundled keys.result.csv`,
    ]);
    const again = await pulse.invoke('license-sync', [event]);
    expect(only(again)).toEqual([
      expect.objectContaining({ ok: true, counts: expect.objectContaining({ inserted: 0, unchanged: 1 }) }),
    ]);
  }, 120_000);
});

describe('mail events', () => {
  it("a digest's hard bounce: recorded on its delivery, the address suppressed, the owner told once through SES", async () => {
    // A digest email the tests above sent through SES, with the stack's configuration set and its delivery's tag.
    const sent = pulse.ses.sent.find((m) => m.input.Destination?.ToAddresses?.includes('ceo@example.com'));
    expect(sent, 'the digest to ceo@example.com went through SES').toBeDefined();
    expect(sent!.input.ConfigurationSetName).toBe(MAIL_CONFIGURATION_SET);
    const tag = sent!.input.EmailTags?.find((t) => t.Name === DELIVERY_TAG)?.Value;
    expect(tag).toBeDefined();
    const event = sesEventFor(
      'bounce',
      'ceo@example.com',
      {
        messageId: sent!.messageId,
        from: 'pulse@example.com',
        to: ['ceo@example.com'],
        deliveryTag: tag,
        sentAt: new Date(),
      },
      new Date(),
    );
    const record = { messageId: 'm-bounce', body: JSON.stringify(event), eventSource: 'aws:sqs' };
    const before = pulse.ses.sent.length;
    const first = await pulse.invoke('mail-events', [{ Records: [record] }]);
    expect(only(first), JSON.stringify(first.logs.filter((l) => l.level !== 'INFO'))).toEqual({
      batchItemFailures: [],
    });
    expect(first.metrics).toEqual([expect.objectContaining({ job: 'mail-events', Bounced: 1, JobFailed: 0 })]);
    // The owner's notice, with the configuration set too (a bounce of it would be recorded, never noticed again).
    const notices = pulse.ses.sent.slice(before);
    expect(notices.map((m) => m.input.Destination?.ToAddresses)).toEqual([[expect.stringMatching(/@/)]]);
    expect(notices[0]!.input.ConfigurationSetName).toBe(MAIL_CONFIGURATION_SET);
    const db = dynamoDocumentClientFor({ endpoint: pulse.peers.dynamodbEndpoint });
    const ledger = await db.send(
      new GetCommand({ TableName: pulse.peers.tableName, Key: { pk: ledgerKeyOfTag(tag!), sk: LEDGER_SORT_KEY } }),
    );
    expect(ledger.Item?.state).toBe('done');
    expect(JSON.stringify(ledger.Item?.mailEvents)).toContain('bounce');
    expect(await pulse.peers.suppressions.get('ceo@example.com')).toMatchObject({ reason: 'bounce' });
    db.destroy();

    // SQS delivers the same record again: nothing new, no second notice.
    const again = await pulse.invoke('mail-events', [{ Records: [record] }]);
    expect(only(again)).toEqual({ batchItemFailures: [] });
    expect(pulse.ses.sent.length).toBe(before + 1);
  }, 60_000);
});

describe('the credentials secret at deploy time (custom resource)', () => {
  let cloudFormation: Server;
  const answers: Record<string, unknown>[] = [];
  beforeAll(async () => {
    cloudFormation = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        answers.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => cloudFormation.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => cloudFormation.close(resolve)));
  const create = (stackName: string) => ({
    RequestType: 'Create',
    ResponseURL: `http://127.0.0.1:${(cloudFormation.address() as { port: number }).port}/presigned`,
    StackId: `arn:aws:cloudformation:us-east-1:123456789012:stack/${stackName}/1`,
    RequestId: 'r-1',
    LogicalResourceId: 'ReportingServiceCredentials',
    ResourceProperties: { SecretName: 'pulse/reporting-service', StackName: stackName, Description: 'Pulse' },
  });

  it('creates the secret, adopts it when the stack is created again, refuses it to another stack', async () => {
    await pulse.invoke('secret-setup', [create('Pulse'), create('Pulse'), create('Pulse-eu')]);
    expect(answers.map((a) => [a.Status, (a.Data as Record<string, string>).Outcome])).toEqual([
      ['SUCCESS', 'created'],
      ['SUCCESS', 'adopted'],
      ['FAILED', undefined],
    ]);
    expect(answers[2]!.Reason).toContain('already exists and belongs to the stack "Pulse"');
    expect(pulse.secretStore.get('pulse/reporting-service')?.tags).toEqual([{ Key: 'pulse:stack', Value: 'Pulse' }]);
  });
});

// Runs last: it judges every AWS SDK command the tests above made the containers send (sdk-call-recorder.mjs).
describe('IAM: every AWS call the handlers made is allowed by the synthesized stack', () => {
  /** The functions the tests above run: every function of the stack. */
  const INVOKED = PULSE_FUNCTIONS satisfies readonly FunctionName[];
  let judgement: Judgement;
  beforeAll(async () => {
    const iam = deployedIam(new CfnResolver(pulse.template, { ...TEST_TARGET, stackName: pulse.stackName }));
    judgement = await judgeRecordedCalls(iam, pulse.standIns, pulse.sdkCalls);
  }, 60_000);

  it('the recorder wraps the one SDK client class every bundle resolves', () => {
    // The bundles import @aws-sdk/* from the project's node_modules (cdk.out/node_modules is a link to it); each
    // client must extend the smithy Client the recorder patches, or its calls would go unrecorded.
    const fromAsset = createRequire(join(pulse.outdir, 'node_modules', 'index.js'));
    const patched = createRequire(new URL('./sdk-call-recorder.mjs', import.meta.url)).resolve('@smithy/core/client');
    for (const client of [
      '@aws-sdk/client-s3',
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/client-sqs',
      '@aws-sdk/client-sesv2',
    ])
      expect(createRequire(fromAsset.resolve(client)).resolve('@smithy/core/client'), client).toBe(patched);
  });

  it('every function made AWS calls, and the calls the defects are about were made', () => {
    const by = (fn: string) => pulse.sdkCalls.filter((c) => c.fn === fn);
    for (const fn of INVOKED) expect(by(fn).length, fn).toBeGreaterThan(0);
    expect(new Set(pulse.sdkCalls.map((c) => c.fn))).toEqual(new Set(INVOKED));
    expect(by('archive-copy')).toContainEqual(
      expect.objectContaining({
        command: 'GetObjectCommand',
        input: expect.objectContaining({ VersionId: expect.any(String) }),
      }),
    );
    for (const fn of ['digest', 'license-alerts', 'license-report', 'usage-alerts'])
      expect(
        by(fn).map((c) => `${c.service} ${c.command}`),
        fn,
      ).toContain('SESv2 SendEmailCommand');
    // The usage alerts' evidence: one conditional put, judged below with the rest.
    expect(by('usage-alerts')).toContainEqual(
      expect.objectContaining({
        command: 'PutObjectCommand',
        input: expect.objectContaining({ Key: expect.stringMatching(/^pulse\/usage-alerts\/evidence\//) }),
      }),
    );
    // Only what identifies the resource is recorded: never a body, a secret value or a message.
    const recorded = JSON.stringify(pulse.sdkCalls);
    for (const never of ['"Body"', '"SecretString"', '"Content"', '"Entries":[', '"MessageBody"', pulse.realSecret()])
      expect(recorded).not.toContain(never);
  });

  it('every recorded command has a row in test/iam/aws-requests.ts', () => {
    expect(judgement.unmapped.map((u) => u.reason)).toEqual([]);
  });

  it('covers the action/resource pairs the runs needed', () => {
    const pairs = new Set(judgement.judged.map((j) => `${j.request.action} ${j.request.resource}`));
    const actions = new Set(judgement.judged.map((j) => j.request.action));
    const commands = new Map<string, number>();
    for (const c of pulse.sdkCalls)
      commands.set(`${c.service} ${c.command}`, (commands.get(`${c.service} ${c.command}`) ?? 0) + 1);
    console.log(
      `IAM: ${pulse.sdkCalls.length} recorded SDK calls (${[...commands].map(([c, n]) => `${c} ×${n}`).join(', ')}) → ` +
        `${judgement.judged.length} distinct requests, ${pairs.size} distinct action/resource pairs, ` +
        `${actions.size} actions: ${[...actions].sort().join(', ')}`,
    );
    expect(pairs.size).toBeGreaterThanOrEqual(40);
    for (const action of [
      's3:GetObject',
      's3:GetObjectVersion',
      's3:PutObject',
      's3:ListBucket',
      'kms:Decrypt',
      'kms:GenerateDataKey',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'secretsmanager:GetSecretValue',
      'sqs:SendMessage',
      'ses:SendEmail',
      'dynamodb:UpdateItem',
      'secretsmanager:CreateSecret',
      'secretsmanager:DescribeSecret',
    ])
      expect(actions, action).toContain(action);
  });

  it.each(INVOKED)('%s: every AWS call it made is allowed', (fn) => {
    const denied = judgement.judged.filter((j) => j.fn === fn && j.verdict.decision !== 'Allowed');
    expect(denied.map(describeDenial), `${fn}: calls the stack's IAM would refuse`).toEqual([]);
  });
});
