/**
 * Channel secrets from the environment and from Secrets Manager (a real SDK client against the AWS-JSON peer on
 * 127.0.0.1): the forms each accepts, a rotated secret picked up on the next call, a channel configured for the
 * other source refused, and every malformed secret named by channel, place and fault, never by any part of its value.
 */
import { inspect } from 'node:util';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ChannelSecretError,
  ChannelSecretSourceError,
  EnvChannelSecrets,
  SecretsManagerChannelSecrets,
} from '../../src/adapters/channel-secrets.ts';
import { isLoopbackHost } from '../../src/client/loopback-host.ts';
import { channelEnvVar } from '../../src/config/channels-schema.ts';
import type { ChannelRef } from '../../src/ports/channels.ts';
import { NotSentError } from '../../src/ports/not-sent.ts';
import { type AwsJsonStub, getSecretValue, startAwsJsonStub } from '../helpers/aws-json-stub.ts';

const SLACK_URL = 'https://hooks.slack.com/services/T0LEAK/B0LEAK/leakyleakyleaky';
/** 32 bytes, base64. */
const SIGNING = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const WEBHOOK_URL = 'https://receiver.example.com/pulse/leak-path';

const slack: ChannelRef = { id: 'ops-alerts', kind: 'slack', secret: { source: 'env' } };
const teams: ChannelRef = { id: 'sales', kind: 'teams', secret: { source: 'env', var: 'TEAMS_HOOK' } };
const webhook: ChannelRef = { id: 'billing', kind: 'webhook', secret: { source: 'env' } };

/** Every way an error can end up in a log or a report. */
const renderings = (e: unknown) => [String(e), (e as Error).stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)];

async function refusal(promise: Promise<unknown>, leaks: string[]): Promise<Error> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ChannelSecretError);
  expect(e).toBeInstanceOf(NotSentError);
  for (const text of renderings(e)) for (const leak of leaks) expect(text).not.toContain(leak);
  return e as Error;
}

describe('EnvChannelSecrets', () => {
  it('reads JSON or, for Slack and Teams, the bare URL from PULSE_CHANNEL_<ID> or the named variable', async () => {
    const secrets = new EnvChannelSecrets({
      PULSE_CHANNEL_OPS_ALERTS: ` ${SLACK_URL}\n`,
      TEAMS_HOOK: JSON.stringify({ url: 'https://prod.westeurope.logic.azure.com/workflows/abc?sig=x' }),
      PULSE_CHANNEL_BILLING: JSON.stringify({ url: WEBHOOK_URL, signingSecret: SIGNING }),
    });
    expect(await secrets.endpointOf(slack)).toEqual({ url: SLACK_URL });
    expect(await secrets.endpointOf(teams)).toEqual({
      url: 'https://prod.westeurope.logic.azure.com/workflows/abc?sig=x',
    });
    expect(await secrets.endpointOf(webhook)).toEqual({ url: WEBHOOK_URL, signingSecret: SIGNING });
  });

  it('accepts loopback http (local runs) and a Slack URL outside hooks.slack.com (Enterprise Grid, proxies)', async () => {
    const secrets = new EnvChannelSecrets({
      A: 'http://127.0.0.1:4100/slack/ops',
      B: 'http://localhost:4100/teams/x',
      C: 'http://[::1]:4100/hook',
      D: 'https://slack-proxy.corp.example/hooks/ops',
    });
    for (const v of ['A', 'B', 'C', 'D']) {
      const ref: ChannelRef = { id: 'ops', kind: 'slack', secret: { source: 'env', var: v } };
      expect((await secrets.endpointOf(ref)).url).toMatch(/^https?:\/\//);
    }
    expect(['127.8.9.10', 'LOCALHOST', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(['128.0.0.1', 'localhost.example.com', '10.0.0.1', '[::2]'].some(isLoopbackHost)).toBe(false);
  });

  it('reads the variable on every call, so a changed value is picked up', async () => {
    const env: NodeJS.ProcessEnv = { PULSE_CHANNEL_OPS_ALERTS: SLACK_URL };
    const secrets = new EnvChannelSecrets(env);
    expect((await secrets.endpointOf(slack)).url).toBe(SLACK_URL);
    env.PULSE_CHANNEL_OPS_ALERTS = 'https://hooks.slack.com/services/T/B/rotated';
    expect((await secrets.endpointOf(slack)).url).toBe('https://hooks.slack.com/services/T/B/rotated');
  });

  it('names the channel, the variable and the fault of every bad form, never the value', async () => {
    const leakyWebhook = (fields: Record<string, unknown>) => JSON.stringify({ url: WEBHOOK_URL, ...fields });
    const cases: [ChannelRef, string | undefined, string][] = [
      [slack, undefined, 'channel ops-alerts: environment variable PULSE_CHANNEL_OPS_ALERTS is not set'],
      [slack, '   ', 'channel ops-alerts: environment variable PULSE_CHANNEL_OPS_ALERTS is not set'],
      [
        slack,
        'http://hooks.slack.com/services/T0LEAK/B0LEAK/leakyleakyleaky',
        'channel ops-alerts: environment variable PULSE_CHANNEL_OPS_ALERTS has a "url" that must be https (plain http only to a loopback host, for local runs)',
      ],
      [
        slack,
        'hooks.slack.com/services/T0LEAK/leakyleakyleaky',
        'channel ops-alerts: environment variable PULSE_CHANNEL_OPS_ALERTS has a "url" that is not a URL',
      ],
      [
        slack,
        '{"url": "https://hooks.slack.com/services/T0LEAK/leakyleakyleaky"',
        'channel ops-alerts: environment variable PULSE_CHANNEL_OPS_ALERTS is not valid JSON',
      ],
      [
        teams,
        JSON.stringify({ uri: 'https://leak.example/leakyleakyleaky' }),
        'channel sales: environment variable TEAMS_HOOK has no "url" (a non-empty string)',
      ],
      [
        webhook,
        WEBHOOK_URL,
        'channel billing: environment variable PULSE_CHANNEL_BILLING is not a JSON object; a webhook needs {"url", "signingSecret"}',
      ],
      [
        webhook,
        JSON.stringify({ url: WEBHOOK_URL }),
        'channel billing: environment variable PULSE_CHANNEL_BILLING has no "signingSecret" (whsec_ and base64), which a webhook needs',
      ],
      [
        webhook,
        leakyWebhook({ signingSecret: 'leakyleakyleakyleakyleakyleakyleaky' }),
        'channel billing: environment variable PULSE_CHANNEL_BILLING has an unusable "signingSecret": the webhook channel\'s signing secret is malformed (it does not start with whsec_): expected whsec_ and the base64 of 24 to 64 bytes',
      ],
      [
        webhook,
        leakyWebhook({ signingSecret: 'whsec_leaky!leaky!leaky!leaky!leaky!' }),
        'channel billing: environment variable PULSE_CHANNEL_BILLING has an unusable "signingSecret": the webhook channel\'s signing secret is malformed (what follows whsec_ is not base64): expected whsec_ and the base64 of 24 to 64 bytes',
      ],
      [
        webhook,
        leakyWebhook({ signingSecret: `whsec_${Buffer.from('leakyleakyleaky').toString('base64')}` }),
        'channel billing: environment variable PULSE_CHANNEL_BILLING has an unusable "signingSecret": the webhook channel\'s signing secret is malformed (its key is 15 bytes): expected whsec_ and the base64 of 24 to 64 bytes',
      ],
      [
        webhook,
        JSON.stringify([WEBHOOK_URL]),
        'channel billing: environment variable PULSE_CHANNEL_BILLING is not a JSON object; a webhook needs {"url", "signingSecret"}',
      ],
      [
        webhook,
        '{"leaky": true} trailing leakyleakyleaky',
        'channel billing: environment variable PULSE_CHANNEL_BILLING is not valid JSON',
      ],
    ];
    for (const [ref, value, message] of cases) {
      const name = ref.secret.source === 'env' ? (ref.secret.var ?? channelEnvVar(ref.id)) : '';
      const secrets = new EnvChannelSecrets(value === undefined ? {} : { [name]: value });
      const e = await refusal(secrets.endpointOf(ref), [
        'leak',
        'T0LEAK',
        Buffer.from('leakyleakyleaky').toString('base64'),
      ]);
      expect(e.message).toBe(message);
    }
  });

  it('refuses a channel whose secret is in Secrets Manager', async () => {
    const ref: ChannelRef = { id: 'ops', kind: 'slack', secret: { source: 'secretsManager', secretId: 'pulse/ops' } };
    const e = await refusal(new EnvChannelSecrets({ PULSE_CHANNEL_OPS: SLACK_URL }).endpointOf(ref), ['leaky']);
    expect(e).toBeInstanceOf(ChannelSecretSourceError);
    expect(e.message).toBe(
      'channel ops: its secret is the Secrets Manager secret pulse/ops, but this run reads channel secrets from the environment',
    );
  });
});

describe('SecretsManagerChannelSecrets', () => {
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
  beforeEach(() => stored.clear());

  const sm = (id: string, kind: ChannelRef['kind'], secretId: string): ChannelRef => ({
    id,
    kind,
    secret: { source: 'secretsManager', secretId },
  });

  it('reads {"url"} and {"url", "signingSecret"} on every call, so a rotated secret is picked up', async () => {
    const secrets = new SecretsManagerChannelSecrets(client);
    stored.set('pulse/billing', JSON.stringify({ url: WEBHOOK_URL, signingSecret: SIGNING }));
    stored.set('pulse/ops', JSON.stringify({ url: SLACK_URL }));
    expect(await secrets.endpointOf(sm('billing', 'webhook', 'pulse/billing'))).toEqual({
      url: WEBHOOK_URL,
      signingSecret: SIGNING,
    });
    expect(await secrets.endpointOf(sm('ops', 'slack', 'pulse/ops'))).toEqual({ url: SLACK_URL });

    const rotated = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    stored.set('pulse/billing', JSON.stringify({ url: WEBHOOK_URL, signingSecret: rotated }));
    expect((await secrets.endpointOf(sm('billing', 'webhook', 'pulse/billing'))).signingSecret).toBe(rotated);
    expect(stub.calls.filter((c) => c.input.SecretId === 'pulse/billing')).toHaveLength(2);
  });

  it('names the channel, the secret id and the fault, never the value; a missing secret is not found', async () => {
    const secrets = new SecretsManagerChannelSecrets(client);
    const cases: [ChannelRef, string | undefined, RegExp][] = [
      [sm('ops', 'slack', 'pulse/ops'), SLACK_URL, /^channel ops: secret pulse\/ops is not valid JSON$/],
      [
        sm('ops', 'slack', 'pulse/ops'),
        JSON.stringify([SLACK_URL]),
        /^channel ops: secret pulse\/ops is not a JSON object$/,
      ],
      [
        sm('ops', 'slack', 'pulse/ops'),
        JSON.stringify({ url: SLACK_URL.replace('https:', 'http:') }),
        /^channel ops: Secrets Manager secret pulse\/ops has a "url" that must be https/,
      ],
      [
        sm('billing', 'webhook', 'pulse/billing'),
        JSON.stringify({ url: WEBHOOK_URL, signingSecret: 'whsec_bGVha3k=' }),
        /^channel billing: Secrets Manager secret pulse\/billing has an unusable "signingSecret": .* \(its key is 5 bytes\)/,
      ],
      [
        sm('gone', 'teams', 'pulse/gone'),
        undefined,
        /^channel gone: secret pulse\/gone not read: ResourceNotFoundException: Secrets Manager can't find pulse\/gone$/,
      ],
    ];
    for (const [ref, value, message] of cases) {
      stored.clear();
      if (value !== undefined && ref.secret.source === 'secretsManager') stored.set(ref.secret.secretId, value);
      const e = await refusal(secrets.endpointOf(ref), ['leak', 'T0LEAK', 'bGVha3k']);
      expect(e.message).toMatch(message);
    }
  });

  it('refuses a channel whose secret is an environment variable', async () => {
    const calls = stub.calls.length;
    const e = await refusal(new SecretsManagerChannelSecrets(client).endpointOf(slack), ['leaky']);
    expect(e).toBeInstanceOf(ChannelSecretSourceError);
    expect(e.message).toBe(
      'channel ops-alerts: its secret is the environment variable PULSE_CHANNEL_OPS_ALERTS, but this run reads channel secrets from Secrets Manager',
    );
    expect(stub.calls).toHaveLength(calls);
  });
});
