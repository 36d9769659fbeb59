/**
 * `pulse doctor` over real sockets: the emulator, dynalite, s3rver and the SMTP sink on 127.0.0.1 (AWS SDK clients
 * reach the local peers through the SDK's own AWS_ENDPOINT_URL_* variables, as a workstation would reach AWS).
 * SES and Secrets Manager have no local peer: aws-sdk-client-mock stands in for them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetAccountCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../../src/adapters/aws/dynamodb-suppressions.ts';
import { s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { PLACEHOLDER_USER_NAME } from '../../src/adapters/aws/secrets.ts';
import {
  ensureBucket,
  ensureTable,
  type RunningPeer,
  startDynalite,
  startS3rver,
} from '../../src/adapters/local/peer-servers.ts';
import { type SmtpSink, startSmtpSink } from '../../src/adapters/local/smtp-sink.ts';
import { type AwsQueryStub, startAwsQueryStub, xml } from '../helpers/aws-query-stub.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

const BUCKET = 'pulse-doctor-archive';
const TABLE = 'pulse-doctor-state';
let emu: Emulator;
let dir: string;
let dynamo: RunningPeer;
let s3: RunningPeer;
let sink: SmtpSink;
let env: Record<string, string>;
const saved = { ...process.env };
const ses = mockClient(SESv2Client);
const sm = mockClient(SecretsManagerClient);

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(join(tmpdir(), 'pulse-doctor-'));
  dynamo = await startDynalite();
  s3 = await startS3rver({ directory: join(dir, 's3') });
  sink = await startSmtpSink({ outboxDir: join(dir, 'outbox') });
  const s3Client = s3ClientFor({ endpoint: s3.endpoint });
  await ensureBucket(s3Client, BUCKET);
  s3Client.destroy();
  const doc = dynamoDocumentClientFor({ endpoint: dynamo.endpoint });
  await ensureTable(doc, TABLE);
  doc.destroy();
  // What the AWS CLI's environment would hold on a workstation, pointed at the local peers.
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  });
  env = { PULSE_USER: emu.credentials.userName, PULSE_PASSWORD: emu.credentials.password };
});
afterAll(async () => {
  process.env = saved;
  await sink?.close();
  await s3?.close();
  await dynamo?.close();
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  ses.reset();
  sm.reset();
});

/** A config for the test peers; `patch` replaces top-level sections (undefined removes one). */
async function configFile(patch: Record<string, unknown> = {}): Promise<string> {
  const config: Record<string, unknown> = {
    service: {
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      headerPrefix: emu.headerPrefix,
      credentials: { source: 'env' },
    },
    products: emu.products.slice(0, 2).map((p) => ({ id: p.productId, name: p.productName })),
    mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: sink.host, port: sink.port } },
    archive: { bucket: BUCKET, prefix: 'pulse' },
    state: { tableName: TABLE },
    licenses: { owner: { address: 'ops@example.com', timeZone: 'UTC' } },
    ...patch,
  };
  for (const [k, v] of Object.entries(config)) if (v === undefined) delete config[k];
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(config));
  return file;
}

const doctor = async (file: string, extraEnv: Record<string, string> = {}) => {
  const out = await pulseMain(['doctor', '--config', file], { ...env, ...extraEnv });
  const lines = out.stdout.trimEnd().split('\n');
  const line = (name: string) => lines.find((l) => l.slice(2).startsWith(`${name}:`));
  return { ...out, lines, line };
};

describe('pulse doctor', () => {
  it('passes every check against the emulator, dynalite, s3rver and the SMTP sink (nothing sent)', async () => {
    const [first, second] = emu.products;
    const { code, lines, line, stderr } = await doctor(await configFile());
    expect(stderr).toBe('');
    expect(line('service reachable')).toMatch(/^✓ service reachable: http:\/\/127\.0\.0\.1:\d+ answered in \d+ ms$/);
    expect(line('origin')).toBe(`✓ origin: ${emu.origin} accepted`);
    expect(line('sign-in')).toBe(
      `✓ sign-in: signed in as ${emu.credentials.userName} (credentials from $PULSE_USER and $PULSE_PASSWORD)`,
    );
    for (const p of [first!, second!]) {
      expect(line(`product ${p.productId}`)).toMatch(/^✓ .*accessible \(\d+ event categories\)$/);
      expect(line(`product ${p.productId} licenses`)).toMatch(/^✓ .*license key search answers$/);
      for (const kind of ['customEvents', 'exceptions', 'clientData'])
        expect(line(`product ${p.productId} ${kind}`)).toMatch(/^✓ /);
    }
    // The first product has no raw data export: the archive records that, so it is worth knowing, not a failure.
    expect(line(`product ${first!.productId} rawEvents`)).toMatch(/^! .*no raw data export feature/);
    expect(line(`product ${second!.productId} rawEvents`)).toMatch(/^✓ /);
    expect(line('sign-out')).toBe('✓ sign-out: session ended');
    expect(line(`archive bucket ${BUCKET}`)).toBe(`✓ archive bucket ${BUCKET}: reachable (HeadBucket)`);
    expect(line(`state table ${TABLE}`)).toBe(`✓ state table ${TABLE}: ACTIVE (DescribeTable)`);
    expect(line('suppressed addresses')).toBe('✓ suppressed addresses: none: every recipient is mailed');
    expect(line('SES')).toBe('- SES: not configured (mail.transport is SMTP)');
    expect(line(`SMTP ${sink.host}:${sink.port}`)).toMatch(/^✓ .*connected, EHLO answered \(nothing sent\)$/);
    // Without a deployed stack to read (no --stack, no deploy section), the alarm topic is not known.
    expect(line('alarm topic')).toBe(
      '- alarm topic: not checked: name the deployed stack (--stack, or deploy.stackName in the config)',
    );
    expect(lines.at(-1)).toMatch(/^doctor: no check failed \(\d+ passed, 1 warnings, 2 skipped\)$/);
    expect(code).toBe(0);
    expect(sink.messages()).toHaveLength(0);
    // The doctor's session was ended: the emulator holds none for the user.
    expect(emu.state.sessions.liveSessionsOf(emu.credentials.userName)).toHaveLength(0);
  });

  it('a wrong password fails the sign-in line with the reason and exit code 3, never printing the password', async () => {
    const { code, line, stdout } = await doctor(await configFile(), { PULSE_PASSWORD: 'wrong-password-123' });
    expect(line('sign-in')).toMatch(
      /^✗ sign-in: credentials from \$PULSE_USER and \$PULSE_PASSWORD: .*: check the user name and password \(service\.credentials\)$/,
    );
    const ids = emu.products.slice(0, 2).map((p) => p.productId);
    expect(line(`products ${ids.join(', ')}`)).toBe(`- products ${ids.join(', ')}: not checked: not signed in`);
    expect(line('sign-out')).toBe('- sign-out: not checked: not signed in');
    expect(stdout).not.toContain('wrong-password-123');
    expect(code).toBe(3);
  });

  it('a product the service does not know fails that line (exit 4); the others still pass', async () => {
    const known = emu.products[1]!.productId;
    const file = await configFile({ products: [{ id: '55555555555' }, { id: known }], archive: undefined });
    const { code, line } = await doctor(file);
    expect(line('product 55555555555')).toMatch(
      /^✗ product 55555555555: .*unknown product 55555555555.*: check products\[\]\.id and the user's access/,
    );
    expect(line('product 55555555555 licenses')).toBe(
      '- product 55555555555 licenses: not checked: the product is not accessible',
    );
    expect(line(`product ${known}`)).toMatch(/^✓ /);
    expect(line('archive bucket')).toBe('- archive bucket: not configured (no "archive" section)');
    expect(code).toBe(4);
  });

  it('an unreachable service fails the reachable line fast (exit 5); the AWS checks still run', async () => {
    const port = await closedPort();
    const file = await configFile({
      service: { baseUrl: `http://127.0.0.1:${port}`, origin: emu.origin, credentials: { source: 'env' } },
    });
    const started = Date.now();
    const { code, line } = await doctor(file);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(line('service reachable')).toMatch(
      new RegExp(`^✗ service reachable: http://127\\.0\\.0\\.1:${port}: .*check service\\.baseUrl and the network`),
    );
    expect(line('sign-in')).toBe('- sign-in: not checked: the service is not reachable');
    expect(line(`state table ${TABLE}`)).toMatch(/^✓ /);
    expect(code).toBe(5);
  });

  it('an Origin the service does not allow fails the origin line (exit 3); sign-in is not tried', async () => {
    const file = await configFile({
      service: { baseUrl: emu.baseUrl, origin: 'https://elsewhere.example.com', credentials: { source: 'env' } },
    });
    const { code, line } = await doctor(file);
    expect(line('service reachable')).toMatch(/^✓ service reachable: .* answered HTTP 403$/);
    expect(line('origin')).toMatch(
      /^✗ origin: https:\/\/elsewhere\.example\.com refused: .*service\.origin must be the dashboard origin/,
    );
    expect(line('sign-in')).toBe('- sign-in: not checked: the service refused the first request');
    expect(code).toBe(3);
  });

  it('an invalid config fails the config line with the field path (exit 2) and checks nothing else', async () => {
    const file = await configFile({ products: [{ id: 'not-a-number' }] });
    const { code, lines } = await doctor(file);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `✗ config: ${file}: invalid configuration products[0].id: a product id is a string of digits`,
    );
    expect(code).toBe(2);
  });

  it("the stack's placeholder secret fails the sign-in line with how to set it (exit 3), before any sign-in", async () => {
    sm.on(GetSecretValueCommand, { SecretId: 'pulse/reporting' }).resolves({
      SecretString: JSON.stringify({ userName: PLACEHOLDER_USER_NAME, password: 'generated-0123456789' }),
    });
    const file = await configFile({
      service: {
        baseUrl: emu.baseUrl,
        origin: emu.origin,
        headerPrefix: emu.headerPrefix,
        credentials: { source: 'secretsManager', secretId: 'pulse/reporting' },
      },
    });
    const { code, line, stdout } = await doctor(file);
    expect(line('sign-in')).toBe(
      '✗ sign-in: credentials from secret pulse/reporting: the Reporting Service credentials in secret ' +
        'pulse/reporting are still the placeholder: set them with `aws secretsmanager put-secret-value ' +
        '--secret-id pulse/reporting --secret-string file://credentials.json` (JSON {"userName", "password"}; ' +
        'docs/operations.md)',
    );
    expect(stdout).not.toContain('generated-0123456789');
    expect(code).toBe(3);
  });

  describe('SES (mocked: no local peer)', () => {
    const sesConfig = () =>
      configFile({ mail: { from: 'pulse@example.com', transport: { kind: 'ses', region: 'eu-west-1' } } });

    it('a verified sender and an account out of the sandbox pass', async () => {
      ses.on(GetEmailIdentityCommand, { EmailIdentity: 'pulse@example.com' }).resolves({
        VerificationStatus: 'SUCCESS',
        VerifiedForSendingStatus: true,
      });
      ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: true, SendingEnabled: true });
      const { code, line } = await doctor(await sesConfig());
      expect(line('SES identity pulse@example.com')).toBe('✓ SES identity pulse@example.com: verified in eu-west-1');
      expect(line('SES account in eu-west-1')).toBe('✓ SES account in eu-west-1: production access, sending enabled');
      expect(line('SMTP')).toBe('- SMTP: not configured (mail.transport is SES)');
      expect(code).toBe(0);
    });

    it('a sender verified through its domain passes', async () => {
      ses
        .on(GetEmailIdentityCommand, { EmailIdentity: 'pulse@example.com' })
        .rejects(Object.assign(new Error('not found'), { name: 'NotFoundException' }));
      ses.on(GetEmailIdentityCommand, { EmailIdentity: 'example.com' }).resolves({
        VerificationStatus: 'SUCCESS',
        VerifiedForSendingStatus: true,
      });
      ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: true, SendingEnabled: true });
      const { code, line } = await doctor(await sesConfig());
      expect(line('SES identity pulse@example.com')).toBe(
        '✓ SES identity pulse@example.com: verified in eu-west-1 (domain example.com)',
      );
      expect(code).toBe(0);
    });

    it('an unverified sender fails with what to do (exit 1)', async () => {
      ses.on(GetEmailIdentityCommand).resolves({ VerificationStatus: 'PENDING', VerifiedForSendingStatus: false });
      ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: true, SendingEnabled: true });
      const { code, line } = await doctor(await sesConfig());
      expect(line('SES identity pulse@example.com')).toBe(
        '✗ SES identity pulse@example.com: pulse@example.com is not verified in eu-west-1 (status PENDING): ' +
          'finish the verification (the link in the email, or the DKIM records of the domain)',
      );
      expect(code).toBe(1);
    });

    it('an account in the SES sandbox fails with how to leave it (exit 1)', async () => {
      ses.on(GetEmailIdentityCommand).resolves({ VerificationStatus: 'SUCCESS', VerifiedForSendingStatus: true });
      ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: false, SendingEnabled: true });
      const { code, line } = await doctor(await sesConfig());
      expect(line('SES identity pulse@example.com')).toMatch(/^✓ /);
      expect(line('SES account in eu-west-1')).toBe(
        '✗ SES account in eu-west-1: in the SES sandbox: mail goes only to verified addresses; request production ' +
          'access (`aws sesv2 put-account-details`, docs/operations.md)',
      );
      expect(code).toBe(1);
    });
  });

  it('lists each address Pulse no longer mails, with since when, why, which delivery and the clear command', async () => {
    const table = 'pulse-doctor-suppressions';
    const doc = dynamoDocumentClientFor({ endpoint: dynamo.endpoint });
    await ensureTable(doc, table);
    const list = new DynamoDbSuppressionList({ client: doc, tableName: table });
    await list.add({
      address: 'Bounced@Example.com',
      since: '2026-11-16T07:02:11.000Z',
      reason: 'bounce',
      detail: 'Permanent bounce (General); bounced@example.com: smtp; 550 5.1.1 user unknown',
      deliveryKey: 'digest#exec-weekly#2026-W46#bounced@example.com',
    });
    await list.add({
      address: 'complained@example.com',
      since: '2026-11-17T09:00:00.000Z',
      reason: 'complaint',
      detail: 'Complaint (abuse)',
      deliveryKey: 'license-report#2026-W46#complained@example.com',
    });
    doc.destroy();
    const out = await pulseMain(['doctor', '--config', await configFile(), '--table', table], env);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.includes('suppressed'))).toEqual([
      '! suppressed bounced@example.com: not mailed since 2026-11-16T07:02:11.000Z, after a hard bounce of ' +
        'digest#exec-weekly#2026-W46#bounced@example.com (Permanent bounce (General); bounced@example.com: smtp; ' +
        '550 5.1.1 user unknown); clear it with `pulse mail clear-suppression bounced@example.com`',
      '! suppressed complained@example.com: not mailed since 2026-11-17T09:00:00.000Z, after a complaint of ' +
        'license-report#2026-W46#complained@example.com (Complaint (abuse)); clear it with ' +
        '`pulse mail clear-suppression complained@example.com`',
    ]);
    // Worth knowing, not a failure.
    expect(lines.at(-1)).toMatch(/^doctor: no check failed \(\d+ passed, 3 warnings, 2 skipped\)$/);
    expect(out.code).toBe(0);
  });

  describe('the deployed stack and who hears its alarms (CloudFormation and SNS peers on 127.0.0.1)', () => {
    const TOPIC = 'arn:aws:sns:eu-central-1:123456789012:Pulse-doctor-AlarmsTopic3A2DFEBA-1A2B3C';
    let subscriptions: { protocol: string; endpoint: string; arn: string }[] = [];
    let cloudFormation: AwsQueryStub;
    let sns: AwsQueryStub;
    beforeAll(async () => {
      cloudFormation = await startAwsQueryStub('http://cloudformation.amazonaws.com/doc/2010-05-15/', {
        DescribeStacks: (params) => {
          const name = params.get('StackName');
          if (name !== 'Pulse-doctor')
            return { status: 400, code: 'ValidationError', message: `Stack with id ${name} does not exist` };
          const outputs = { ArchiveBucketName: BUCKET, StateTableName: TABLE, AlarmTopicArn: TOPIC };
          const members = Object.entries(outputs)
            .map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${xml(v)}</OutputValue></member>`)
            .join('');
          return {
            result: `<Stacks><member><StackName>${name}</StackName><StackStatus>UPDATE_COMPLETE</StackStatus><CreationTime>2026-11-20T10:00:00Z</CreationTime><Outputs>${members}</Outputs></member></Stacks>`,
          };
        },
      });
      sns = await startAwsQueryStub('http://sns.amazonaws.com/doc/2010-03-31/', {
        ListSubscriptionsByTopic: (params) => {
          if (params.get('TopicArn') !== TOPIC)
            return { status: 404, code: 'NotFound', message: 'Topic does not exist' };
          const members = subscriptions
            .map(
              (s) =>
                `<member><TopicArn>${TOPIC}</TopicArn><Protocol>${s.protocol}</Protocol><SubscriptionArn>${s.arn}</SubscriptionArn><Owner>123456789012</Owner><Endpoint>${xml(s.endpoint)}</Endpoint></member>`,
            )
            .join('');
          return { result: `<Subscriptions>${members}</Subscriptions>` };
        },
      });
      Object.assign(process.env, {
        AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url,
        AWS_ENDPOINT_URL_SNS: sns.url,
      });
    });
    afterAll(async () => {
      await cloudFormation.close();
      await sns.close();
    });
    /** A deployment's config: its deploy section names the stack, whose outputs name the bucket and table. */
    const deployed = (stackName = 'Pulse-doctor') =>
      configFile({ archive: { bucket: 'not-this-one', prefix: 'pulse' }, state: undefined, deploy: { stackName } });

    it("reads the stack's outputs, checks its bucket and table, and names pending subscribers", async () => {
      subscriptions = [
        { protocol: 'email', endpoint: 'oncall@example.com', arn: `${TOPIC}:1111` },
        { protocol: 'https', endpoint: 'https://hooks.example.com/T0/secret-token', arn: `${TOPIC}:2222` },
        { protocol: 'email', endpoint: 'new-hire@example.com', arn: 'PendingConfirmation' },
      ];
      const { code, line, stdout } = await doctor(await deployed());
      expect(line('stack Pulse-doctor'), stdout).toBe(
        '✓ stack Pulse-doctor: UPDATE_COMPLETE (DescribeStacks): its bucket, table and alarm topic are checked below',
      );
      expect(line(`archive bucket ${BUCKET}`)).toBe(`✓ archive bucket ${BUCKET}: reachable (HeadBucket)`);
      expect(line(`state table ${TABLE}`)).toBe(`✓ state table ${TABLE}: ACTIVE (DescribeTable)`);
      expect(line('alarm topic Pulse-doctor-AlarmsTopic3A2DFEBA-1A2B3C')).toBe(
        '! alarm topic Pulse-doctor-AlarmsTopic3A2DFEBA-1A2B3C: 2 confirmed subscribers (1 email, 1 https); ' +
          '1 pending confirmation (new-hire@example.com): receives nothing until its link is clicked',
      );
      // An endpoint URL may carry a token: never printed.
      expect(stdout).not.toContain('hooks.example.com');
      expect(code).toBe(0);
    });

    it('fails when nobody would hear an alarm, saying how to subscribe (exit 1)', async () => {
      subscriptions = [{ protocol: 'email', endpoint: 'oncall@example.com', arn: 'PendingConfirmation' }];
      const { code, line } = await doctor(await deployed());
      expect(line('alarm topic Pulse-doctor-AlarmsTopic3A2DFEBA-1A2B3C')).toBe(
        '✗ alarm topic Pulse-doctor-AlarmsTopic3A2DFEBA-1A2B3C: no confirmed subscriber: every alarm notifies nobody; ' +
          '1 pending confirmation (oncall@example.com): receives nothing until its link is clicked. Subscribe with ' +
          'deploy.alarmEmail (and confirm the email AWS sends), or: aws sns subscribe --topic-arn ' +
          `${TOPIC} --protocol email --notification-endpoint ADDRESS`,
      );
      expect(code).toBe(1);
    });

    it('a stack not deployed yet is worth knowing: the config names are checked instead', async () => {
      const { line } = await doctor(await deployed('Pulse-not-yet'));
      expect(line('stack Pulse-not-yet')).toBe(
        '! stack Pulse-not-yet: not deployed (yet): `npx cdk deploy -c config=FILE`; the config names are checked instead',
      );
      expect(line('archive bucket not-this-one')).toMatch(/^✗ archive bucket not-this-one: does not exist/);
      expect(line('state table')).toBe('- state table: not configured (no "state" section)');
      expect(line('alarm topic')).toMatch(/^- alarm topic: not checked/);
    });
  });

  it('is listed in `pulse --help` and has its own help', async () => {
    expect((await pulseMain(['--help'])).stdout).toMatch(/^ {2}doctor {5}Check a deployment's config/m);
    const help = await pulseMain(['doctor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: pulse doctor \[--config FILE\]/);
  });
});

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
