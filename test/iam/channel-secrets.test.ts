/**
 * Channel secrets judged by IAM's rules (simulate.ts) on the stack synthesized from a config with channels on every
 * section (test/infra/channels-config.ts): each function may GetSecretValue exactly the secrets of the channels its
 * job posts to, by name, complete or partial ARN, and is denied every other channel's; an env-sourced channel has no
 * secret anyone may read; the archive's two steps alone may keep the ledger items of its run events
 * (`archive-event#…`), and only when `archive.channels` names a channel. Then a recorded case, as the bundled
 * handlers' proof does it: the channel ports every Lambda builds (src/app/channels.ts) read each function's channels
 * from a Secrets Manager stub, the SDK calls are recorded by the same recorder
 * (test/functions/bundled/sdk-call-recorder.mjs) and judged like a real run's.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_SORT_KEY } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { ChannelSecretError } from '../../src/adapters/channel-secrets.ts';
import { channelPortsFor } from '../../src/app/channels.ts';
import { channelAddress } from '../../src/core/channels/channel-targets.ts';
import { archiveEventLedgerKey, digestLedgerKey, licenseReportLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { type AwsJsonStub, getSecretValue, startAwsJsonStub } from '../helpers/aws-json-stub.ts';
import { CHANNEL_SECRETS, type ChannelId, channelsConfig, POSTS_TO } from '../infra/channels-config.ts';
import { productionConfig, synthPulse } from '../infra/synth-pulse.ts';
import { iamRequestsFor, type SdkCall } from './aws-requests.ts';
import { CfnResolver, type CfnTemplate, TEST_TARGET } from './cfn-resolver.ts';
import { type DeployedIam, deployedIam } from './deployed-iam.ts';
import { PULSE_FUNCTIONS } from './must-not.ts';
import { deployedResources, describeDenial, type Judgement, judgeRecordedCalls } from './recorded-calls.ts';
import { simulate } from './simulate.ts';

const config = channelsConfig();
const synth = synthPulse({ props: { config } });
const resolver = new CfnResolver(synth.template.toJSON() as CfnTemplate, {
  ...TEST_TARGET,
  stackName: synth.stack.stackName,
});
const iam = deployedIam(resolver);
const { region } = resolver.target;

/** The IAM request of a GetSecretValue naming `secretId`, as aws-requests.ts maps a recorded call. */
const getSecretValueOf = (fn: string, secretId: string) =>
  iamRequestsFor(
    { fn, service: 'Secrets Manager', command: 'GetSecretValueCommand', region, input: { SecretId: secretId } },
    deployedResources(iam, new Map()),
  );

describe('each function may read exactly its channels’ secrets', () => {
  // An env-sourced channel has no secret: a secret of its id stands for the one an operator might create.
  const secretIdOf = (id: ChannelId) => {
    const secret = CHANNEL_SECRETS[id];
    return secret.source === 'secretsManager' ? secret.secretId : `pulse/channels/${id}`;
  };
  const checks = [...iam.functions.keys()].flatMap((fn) =>
    (Object.keys(CHANNEL_SECRETS) as ChannelId[]).map((id) => {
      const allowed = CHANNEL_SECRETS[id].source === 'secretsManager' && (POSTS_TO[fn] ?? []).includes(id);
      return { fn, id, allowed, request: getSecretValueOf(fn, secretIdOf(id))[0]! };
    }),
  );

  it('judges every function of the stack against every channel', () => {
    expect([...iam.functions.keys()].sort()).toEqual([...PULSE_FUNCTIONS].sort());
    expect(checks).toHaveLength(PULSE_FUNCTIONS.length * Object.keys(CHANNEL_SECRETS).length);
    console.log(
      `IAM channel secrets: ${checks.length} function/secret pairs simulated, ` +
        `${checks.filter((c) => c.allowed).length} allowed, ${checks.filter((c) => !c.allowed).length} denied`,
    );
  });

  it.each(checks.map((c) => [`${c.fn} ${c.allowed ? 'may' : 'must not'} read ${c.id}`, c] as const))(
    '%s',
    async (_name, check) => {
      const f = iam.functions.get(check.fn)!;
      const verdict = await simulate(iam, { arn: f.principal, roleArn: f.roleArn }, check.request);
      expect(verdict.decision, `${check.fn}: GetSecretValue on ${check.request.resource}`).toBe(
        check.allowed ? 'Allowed' : 'ImplicitlyDenied',
      );
    },
  );

  it('a name grants only that name’s secret, not one whose name starts with it', async () => {
    const f = iam.functions.get('mail-events')!;
    for (const other of ['pulse/channels/ops-notices-old', 'pulse/channels/ops-notices/x', 'pulse/channels/ops'])
      expect(
        (await simulate(iam, { arn: f.principal, roleArn: f.roleArn }, getSecretValueOf('mail-events', other)[0]!))
          .decision,
        other,
      ).not.toBe('Allowed');
  });
});

describe('the archive’s run events: its two steps alone may keep their ledger items, and only with archive.channels', () => {
  const ARCHIVERS = ['archive-plan', 'archive-copy'];
  const eventKey = archiveEventLedgerKey('2026-11-27T02-20-00.000Z', channelAddress('archive-hook'));
  /** The IAM requests of the ledger's four calls on `pk` (src/adapters/aws/dynamodb-ledger.ts), as aws-requests.ts maps them. */
  const ledgerCalls = (of: DeployedIam, fn: string, pk: string) => {
    const [table] = [...of.tables.keys()];
    const key = { pk, sk: LEDGER_SORT_KEY };
    return (
      [
        ['GetCommand', { TableName: table, Key: key }],
        ['PutCommand', { TableName: table, ItemKey: key }],
        ['UpdateCommand', { TableName: table, Key: key }],
        ['DeleteCommand', { TableName: table, Key: key }],
      ] as const
    ).flatMap(([command, input]) =>
      iamRequestsFor({ fn, service: 'DynamoDB', command, region, input }, deployedResources(of, new Map())),
    );
  };
  const decisions = async (of: DeployedIam, fn: string, pk: string) => {
    const f = of.functions.get(fn)!;
    const requests = ledgerCalls(of, fn, pk);
    expect(requests.map((r) => r.action)).toEqual([
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
    ]);
    for (const r of requests) expect(r.context).toEqual({ 'dynamodb:LeadingKeys': [pk] });
    return Promise.all(
      requests.map(
        async (r) => `${r.action} ${(await simulate(of, { arn: f.principal, roleArn: f.roleArn }, r)).decision}`,
      ),
    );
  };
  const all = (decision: string) =>
    ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'].map((a) => `dynamodb:${a} ${decision}`);

  it('the event key is the one announce-run.ts writes', () => {
    expect(eventKey).toBe('archive-event#2026-11-27T02-20-00.000Z#channel:archive-hook');
    expect(config.archive!.channels).toContain('archive-hook');
  });

  it.each(ARCHIVERS)('%s may get, put, update and delete a run event’s item', async (fn) => {
    expect(await decisions(iam, fn, eventKey)).toEqual(all('Allowed'));
  });

  it.each([...PULSE_FUNCTIONS].filter((fn) => !ARCHIVERS.includes(fn)))(
    '%s may not touch a run event’s item',
    async (fn) => {
      expect(await decisions(iam, fn, eventKey)).toEqual(all('ImplicitlyDenied'));
    },
  );

  it.each(ARCHIVERS)('%s may not touch the digest’s or the license report’s deliveries', async (fn) => {
    for (const pk of [
      digestLedgerKey('exec-weekly', '2026-W48', 'ceo@example.com'),
      licenseReportLedgerKey('2026-W48', 'ceo@example.com'),
    ])
      expect(await decisions(iam, fn, pk), pk).toEqual(all('ImplicitlyDenied'));
  });

  describe('without archive channels (the example production config)', () => {
    const plain = synthPulse({ props: { config: productionConfig() } });
    const plainIam = deployedIam(
      new CfnResolver(plain.template.toJSON() as CfnTemplate, { ...TEST_TARGET, stackName: plain.stack.stackName }),
    );

    it('has no archive channels', () => {
      expect(productionConfig().archive!.channels).toEqual([]);
    });

    it.each(ARCHIVERS)('%s may not touch a run event’s item: no channels, no grant', async (fn) => {
      expect(await decisions(plainIam, fn, eventKey)).toEqual(all('ImplicitlyDenied'));
    });
  });
});

describe('recorded: the Lambdas’ channel ports read each function’s channels, and every read is allowed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-channel-calls-'));
  const callsFile = join(dir, 'sdk-calls.jsonl');
  /** Each secret's value as the stub answers it, by the id the config names (the stub sees the id as sent). */
  const values = new Map<string, string>();
  const calls: SdkCall[] = [];
  const refused = new Map<string, string>();
  let stub: AwsJsonStub;
  let judgement: Judgement;

  beforeAll(async () => {
    process.env.PULSE_SDK_CALLS_FILE = callsFile;
    // The bundled handlers' recorder: it wraps the SDK client's `send` in this process as in a container.
    await import(new URL('../functions/bundled/sdk-call-recorder.mjs', import.meta.url).href);
    for (const channel of config.channels)
      if (channel.secret.source === 'secretsManager')
        values.set(
          channel.secret.secretId,
          JSON.stringify({
            url: `https://hooks.example.com/${channel.id}/${randomBytes(12).toString('hex')}`,
            ...(channel.kind === 'webhook' ? { signingSecret: `whsec_${randomBytes(32).toString('base64')}` } : {}),
          }),
        );
    stub = await startAwsJsonStub({ 'secretsmanager.GetSecretValue': getSecretValue(values) });
    let seen = 0;
    for (const [fn, ids] of Object.entries(POSTS_TO)) {
      // One client per function, as each container has; no channel variable in its environment, as in Lambda.
      const client = new SecretsManagerClient({
        region,
        endpoint: stub.url,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      });
      const { secrets } = channelPortsFor(client, {});
      for (const id of ids)
        await secrets.endpointOf(config.channels.find((c) => c.id === id)!).catch((e: unknown) => {
          if (!(e instanceof ChannelSecretError)) throw e;
          refused.set(`${fn} ${id}`, e.message);
        });
      client.destroy();
      const lines = readFileSync(callsFile, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      for (const line of lines.slice(seen)) calls.push({ fn, ...(JSON.parse(line) as Omit<SdkCall, 'fn'>) });
      seen = lines.length;
    }
    judgement = await judgeRecordedCalls(iam, new Map(), calls);
  });
  afterAll(async () => {
    await stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records one GetSecretValue per Secrets Manager channel a function posts to, naming the config’s id', () => {
    const expected = Object.entries(POSTS_TO).flatMap(([fn, ids]) =>
      ids.flatMap((id) => {
        const secret = CHANNEL_SECRETS[id];
        return secret.source === 'secretsManager' ? [`${fn} ${secret.secretId}`] : [];
      }),
    );
    expect(calls.map((c) => `${c.fn} ${c.input.SecretId}`)).toEqual(expected);
    expect(new Set(calls.map((c) => `${c.service} ${c.command}`))).toEqual(
      new Set(['Secrets Manager GetSecretValueCommand']),
    );
    expect(stub.calls).toHaveLength(expected.length);
  });

  it('an env-sourced channel is read from the environment, which a Lambda lacks: no AWS call, "not set"', () => {
    expect([...refused]).toEqual([
      ['license-alerts desk-local', 'channel desk-local: environment variable PULSE_CHANNEL_DESK_LOCAL is not set'],
    ]);
  });

  it('every recorded read is allowed by the synthesized stack', () => {
    expect(judgement.unmapped.map((u) => u.reason)).toEqual([]);
    expect(judgement.judged).toHaveLength(calls.length);
    expect(judgement.judged.filter((j) => j.verdict.decision !== 'Allowed').map(describeDenial)).toEqual([]);
  });

  it('records no secret value', () => {
    const recorded = readFileSync(callsFile, 'utf8');
    expect(recorded).not.toContain('SecretString');
    for (const value of values.values())
      for (const part of Object.values(JSON.parse(value) as Record<string, string>))
        expect(recorded).not.toContain(part);
  });
});
