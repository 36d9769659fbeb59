/**
 * Where a channel's URL (and a webhook's signing secret) comes from: an environment variable for local runs
 * (`EnvChannelSecrets`) or a Secrets Manager secret in AWS (`SecretsManagerChannelSecrets`), each read on every call
 * so a rotated secret is picked up. A channel configured for the other source is refused, not looked up elsewhere:
 * a run must read the secret the config names. What the value must hold is checked in channel-endpoint.ts.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { channelEnvVar } from '../config/channels-schema.ts';
import type { ChannelEndpoint, ChannelRef, ChannelSecrets } from '../ports/channels.ts';
import { readSecretJson, SecretFormatError } from './aws/secrets.ts';
import { ChannelSecretError, parseChannelEndpoint } from './channel-endpoint.ts';

export { ChannelSecretError } from './channel-endpoint.ts';

/** The channel's secret is in a source this run does not read (Secrets Manager in a local run, or the reverse). */
export class ChannelSecretSourceError extends ChannelSecretError {
  override name = 'ChannelSecretSourceError';
}

/** Where a channel's secret is, as errors and `pulse doctor` name it. */
export function whereIs(channel: ChannelRef): string {
  return channel.secret.source === 'env'
    ? `environment variable ${channel.secret.var ?? channelEnvVar(channel.id)}`
    : `Secrets Manager secret ${channel.secret.secretId}`;
}

/**
 * `{"url", "signingSecret"?}` as JSON in the channel's variable (default PULSE_CHANNEL_<ID>); for Slack and Teams
 * the bare URL too.
 */
export class EnvChannelSecrets implements ChannelSecrets {
  readonly #env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  async endpointOf(channel: ChannelRef): Promise<ChannelEndpoint> {
    if (channel.secret.source !== 'env') {
      throw new ChannelSecretSourceError(
        `channel ${channel.id}: its secret is the ${whereIs(channel)}, but this run reads channel secrets from the environment`,
      );
    }
    const where = whereIs(channel);
    const value = this.#env[channel.secret.var ?? channelEnvVar(channel.id)]?.trim();
    if (value === undefined || value === '') throw new ChannelSecretError(`channel ${channel.id}: ${where} is not set`);
    if (!value.startsWith('{')) {
      if (channel.kind === 'webhook') {
        throw new ChannelSecretError(
          `channel ${channel.id}: ${where} is not a JSON object; a webhook needs {"url", "signingSecret"}`,
        );
      }
      return parseChannelEndpoint(channel, { url: value }, where);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      // No cause: V8's SyntaxError message quotes the text, i.e. the secret.
      throw new ChannelSecretError(`channel ${channel.id}: ${where} is not valid JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ChannelSecretError(`channel ${channel.id}: ${where} is not a JSON object`);
    }
    return parseChannelEndpoint(channel, parsed as Record<string, unknown>, where);
  }
}

/** `{"url", "signingSecret"?}` in the channel's Secrets Manager secret (SecretString JSON). */
export class SecretsManagerChannelSecrets implements ChannelSecrets {
  readonly #client: SecretsManagerClient;

  constructor(client: SecretsManagerClient) {
    this.#client = client;
  }

  async endpointOf(channel: ChannelRef): Promise<ChannelEndpoint> {
    if (channel.secret.source !== 'secretsManager') {
      throw new ChannelSecretSourceError(
        `channel ${channel.id}: its secret is the ${whereIs(channel)}, but this run reads channel secrets from Secrets Manager`,
      );
    }
    const { secretId } = channel.secret;
    let json: Record<string, unknown>;
    try {
      json = await readSecretJson(this.#client, secretId);
    } catch (e) {
      // SecretFormatError names the secret and the fault; an SDK error (not found, access denied) names no value.
      const why = e instanceof SecretFormatError ? e.message : `secret ${secretId} not read: ${describe(e)}`;
      throw new ChannelSecretError(`channel ${channel.id}: ${why}`);
    }
    return parseChannelEndpoint(channel, json, whereIs(channel));
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
