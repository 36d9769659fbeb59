/**
 * `pulse doctor`'s channel lines over the real secret adapters: the environment, and Secrets Manager through a real
 * SDK client against the AWS-JSON peer on 127.0.0.1. Each URL form per kind passes, warns or fails (the retired
 * Office 365 connectors fail), a secret that is missing or malformed fails with the reason an exit code is made of,
 * a channel no section names is a warning, and no line, error or cause carries the URL's path, query or the
 * signing secret.
 */
import { inspect } from 'node:util';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvChannelSecrets } from '../../src/adapters/channel-secrets.ts';
import { channelPortsFor } from '../../src/app/channels.ts';
import { PulseConfig } from '../../src/config/schema.ts';
import { ChannelCheckError, channelChecks, ENV_IN_AWS, UNUSED } from '../../src/doctor/channel-checks.ts';
import { RETIRED_CONNECTOR } from '../../src/doctor/channel-url-form.ts';
import type { CheckResult } from '../../src/doctor/check-result.ts';
import { type AwsJsonStub, getSecretValue, startAwsJsonStub } from '../helpers/aws-json-stub.ts';

const SIGNING = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
/** Every URL's path and query carries this: the credential part, never to be printed. */
const LEAK = 'T0LEAKY/B0LEAKY/pathcredential42';
const env0 = `https://hooks.slack.com/services/${LEAK}`;

/** A config with `channels` and a digest that names `used` of them. */
function configWith(channels: object[], used: string[]): PulseConfig {
  return PulseConfig.parse({
    service: { baseUrl: 'https://api.example.com', origin: 'https://dash.example.com', credentials: { source: 'env' } },
    products: [{ id: '12345678901' }],
    mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: 'localhost' } },
    digests: [
      {
        id: 'weekly',
        productIds: ['12345678901'],
        channels: used,
        schedule: { day: 'monday', time: '08:00', timeZone: 'UTC' },
        owner: 'ops@example.com',
      },
    ],
    channels,
    notices: { channels: used.slice(0, 1) },
  });
}

async function collect(
  config: PulseConfig,
  secrets: EnvChannelSecrets | ReturnType<typeof channelPortsFor>['secrets'],
) {
  const results: CheckResult[] = [];
  for await (const r of channelChecks(config, secrets)) results.push(r);
  return results;
}

/** Every way a result reaches a person: the line, its error and the error's cause, printed and inspected. */
function renderings(r: CheckResult): string {
  const e = r.error as (Error & { cause?: unknown }) | undefined;
  return [JSON.stringify(r), r.detail, e?.stack ?? '', inspect(e, { depth: 5 }), inspect(e?.cause, { depth: 5 })].join(
    '\n',
  );
}

const FORMS: [kind: string, url: string, status: CheckResult['status'], detail: RegExp][] = [
  ['slack', `https://hooks.slack.com/services/${LEAK}`, 'ok', /^host hooks\.slack\.com, secret from /],
  ['slack', `https://hooks.slack.com/triggers/${LEAK}`, 'ok', /^host hooks\.slack\.com, /],
  ['slack', `https://hooks.slack.com/other/${LEAK}`, 'warn', /: not an incoming webhook \(\/services\/…\)/],
  [
    'slack',
    `https://slack-proxy.example.com/${LEAK}`,
    'warn',
    /^host slack-proxy\.example\.com, .*: not hooks\.slack\.com/,
  ],
  ['slack', `http://127.0.0.1:4100/${LEAK}`, 'warn', /^host 127\.0\.0\.1:4100, .*: plain http to a loopback host/],
  [
    'teams',
    `https://prod-12.westeurope.logic.azure.com:443/workflows/${LEAK}?sig=sigleak123`,
    'ok',
    /^host prod-12\.westeurope\.logic\.azure\.com, /,
  ],
  [
    'teams',
    `https://default0a1b.c2.environment.api.powerplatform.com/powerautomate/${LEAK}?sig=sigleak123`,
    'ok',
    /^host default0a1b\.c2\.environment\.api\.powerplatform\.com, /,
  ],
  ['teams', `https://teams-proxy.example.com/${LEAK}`, 'warn', /: not a Teams Workflows host/],
  [
    'teams',
    `https://contoso.webhook.office.com/webhookb2/${LEAK}`,
    'fail',
    /^host contoso\.webhook\.office\.com, .*: an Office 365 connector URL: Microsoft retired/,
  ],
  [
    'teams',
    `https://outlook.office.com/webhook/${LEAK}`,
    'fail',
    /^host outlook\.office\.com, .*: an Office 365 connector URL/,
  ],
  ['webhook', `https://receiver.example.com/${LEAK}`, 'ok', /^host receiver\.example\.com, /],
];

describe('channel lines from the environment', () => {
  it.each(FORMS)('%s %s: %s', async (kind, url, status, detail) => {
    const id = `c-${kind}`;
    const secret = JSON.stringify(kind === 'webhook' ? { url, signingSecret: SIGNING } : { url });
    const config = configWith([{ id, kind }], [id]);
    const [result] = await collect(
      config,
      new EnvChannelSecrets({
        PULSE_CHANNEL_C_SLACK: secret,
        PULSE_CHANNEL_C_TEAMS: secret,
        PULSE_CHANNEL_C_WEBHOOK: secret,
      }),
    );
    expect(result!.status).toBe(status);
    expect(result!.detail).toMatch(detail);
    expect(result!.detail).toContain(
      `secret from environment variable PULSE_CHANNEL_${id.toUpperCase().replace('-', '_')}`,
    );
    expect(result!.detail).toContain('used by digest weekly, notices');
    if (status === 'fail') {
      expect(result!.error).toBeInstanceOf(ChannelCheckError);
      expect((result!.error as ChannelCheckError).reason).toBe('secret');
      expect(result!.detail).toContain(RETIRED_CONNECTOR);
    }
    const text = renderings(result!);
    for (const leak of [LEAK, 'sigleak123', SIGNING, SIGNING.slice(6), url]) expect(text).not.toContain(leak);
  });

  it('names the channel by kind and id, and warns of one no section names', async () => {
    const env = {
      PULSE_CHANNEL_OPS: `https://hooks.slack.com/services/${LEAK}`,
      PULSE_CHANNEL_SPARE: JSON.stringify({ url: `https://x.westeurope.logic.azure.com/workflows/${LEAK}` }),
    };
    const config = configWith(
      [
        { id: 'ops', kind: 'slack' },
        { id: 'spare', kind: 'teams' },
      ],
      ['ops'],
    );
    const [ops, spare] = await collect(config, new EnvChannelSecrets(env));
    expect(ops).toEqual({
      status: 'ok',
      name: 'Slack channel ops',
      detail:
        'host hooks.slack.com, secret from environment variable PULSE_CHANNEL_OPS; used by digest weekly, notices',
    });
    expect(spare).toEqual({
      status: 'warn',
      name: 'Teams channel spare',
      detail: `host x.westeurope.logic.azure.com, secret from environment variable PULSE_CHANNEL_SPARE: ${UNUSED}`,
    });
  });

  it("warns, for a deployment's config, of a used channel whose secret the stack's functions cannot read", async () => {
    const config = configWith(
      [
        { id: 'ops', kind: 'slack' },
        { id: 'spare', kind: 'slack' },
      ],
      ['ops'],
    );
    const env = { PULSE_CHANNEL_OPS: `https://hooks.slack.com/services/${LEAK}`, PULSE_CHANNEL_SPARE: env0 };
    const results: CheckResult[] = [];
    for await (const r of channelChecks(config, new EnvChannelSecrets(env), { deployed: true })) results.push(r);
    expect(results[0]).toEqual({
      status: 'warn',
      name: 'Slack channel ops',
      detail: `host hooks.slack.com, secret from environment variable PULSE_CHANNEL_OPS; used by digest weekly, notices: ${ENV_IN_AWS}`,
    });
    // Unused, so no function posts to it: only that is said.
    expect(results[1]!.detail).not.toContain(ENV_IN_AWS);
    // Not a deployment's: the environment is where local runs read it.
    expect((await collect(config, new EnvChannelSecrets(env)))[0]!.status).toBe('ok');
  });

  it('fails a secret that is missing or malformed, naming where it is and what to put there, never its value', async () => {
    const config = configWith(
      [
        { id: 'unset', kind: 'slack' },
        { id: 'not-https', kind: 'slack', secret: { source: 'env', var: 'NOT_HTTPS' } },
        { id: 'no-signing', kind: 'webhook' },
        { id: 'bad-signing', kind: 'webhook' },
      ],
      ['unset', 'not-https', 'no-signing', 'bad-signing'],
    );
    const env = {
      NOT_HTTPS: `http://hooks.slack.com/services/${LEAK}`,
      PULSE_CHANNEL_NO_SIGNING: JSON.stringify({ url: `https://receiver.example.com/${LEAK}` }),
      PULSE_CHANNEL_BAD_SIGNING: JSON.stringify({
        url: `https://receiver.example.com/${LEAK}`,
        signingSecret: `whsec_${LEAK}!!`,
      }),
    };
    const results = await collect(config, new EnvChannelSecrets(env));
    expect(results.map((r) => [r.status, r.name])).toEqual([
      ['fail', 'Slack channel unset'],
      ['fail', 'Slack channel not-https'],
      ['fail', 'webhook no-signing'],
      ['fail', 'webhook bad-signing'],
    ]);
    expect(results[0]!.detail).toBe(
      'environment variable PULSE_CHANNEL_UNSET is not set: put the channel\'s JSON {"url"} there (docs/channels.md)',
    );
    expect(results[1]!.detail).toMatch(/^environment variable NOT_HTTPS has a "url" that must be https/);
    expect(results[2]!.detail).toMatch(
      /^environment variable PULSE_CHANNEL_NO_SIGNING has no "signingSecret".*\{"url", "signingSecret"\}/,
    );
    expect(results[3]!.detail).toMatch(
      /^environment variable PULSE_CHANNEL_BAD_SIGNING has an unusable "signingSecret"/,
    );
    for (const r of results) {
      expect((r.error as ChannelCheckError).reason).toBe('secret');
      for (const leak of [LEAK, 'hooks.slack.com/services']) expect(renderings(r)).not.toContain(leak);
    }
  });
});

describe('channel lines from Secrets Manager', () => {
  const stored = new Map<string, string>();
  let stub: AwsJsonStub;
  let client: SecretsManagerClient;
  beforeAll(async () => {
    stub = await startAwsJsonStub({ 'secretsmanager.GetSecretValue': getSecretValue(stored) });
    client = new SecretsManagerClient({
      region: 'eu-central-1',
      endpoint: stub.url,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
  });
  afterAll(async () => {
    client?.destroy();
    await stub?.close();
  });

  it('reads each secret where the config says, and fails one that cannot be read', async () => {
    stored.set(
      'pulse/billing',
      JSON.stringify({ url: `https://receiver.example.com/${LEAK}`, signingSecret: SIGNING }),
    );
    const config = configWith(
      [
        { id: 'billing', kind: 'webhook', secret: { source: 'secretsManager', secretId: 'pulse/billing' } },
        { id: 'gone', kind: 'slack', secret: { source: 'secretsManager', secretId: 'pulse/gone' } },
      ],
      ['billing', 'gone'],
    );
    const [billing, gone] = await collect(config, channelPortsFor(client, {}).secrets);
    expect(billing).toEqual({
      status: 'ok',
      name: 'webhook billing',
      detail:
        'host receiver.example.com, secret from Secrets Manager secret pulse/billing; used by digest weekly, notices',
    });
    expect(gone!.status).toBe('fail');
    expect(gone!.detail).toMatch(
      /^secret pulse\/gone not read: ResourceNotFoundException: .*: put the channel's JSON \{"url"\} there/,
    );
    expect((gone!.error as ChannelCheckError).reason).toBe('secret');
    for (const r of [billing!, gone!]) for (const leak of [LEAK, SIGNING]) expect(renderings(r)).not.toContain(leak);
    // Read, never written: GetSecretValue only.
    expect(new Set(stub.calls.map((c) => c.target))).toEqual(new Set(['secretsmanager.GetSecretValue']));
  });
});
