/**
 * Which channel secrets each function may read, from the config: the Secrets Manager secrets of the channels its job
 * posts to and nothing else, so the function that tells an owner of a bounce cannot read a digest channel's webhook
 * URL. A channel whose secret comes from the environment gets no grant: the functions' environment holds no channel
 * secret, so the stack warns instead. No AWS CDK import, like grants.ts: the tests check these directly.
 */
import type { ChannelConfig, PulseConfig } from '../../src/config/schema.ts';

/** The functions that post to channels, by PULSE_JOB. */
export const CHANNEL_POSTERS = [
  'digest',
  'license-alerts',
  'license-report',
  'usage-alerts',
  'mail-events',
  'archive-plan',
  'archive-copy',
] as const;
export type ChannelPoster = (typeof CHANNEL_POSTERS)[number];

/**
 * The ids of the channels a function posts to: its deliveries' channels, and the notice channels for those that send
 * owner notices (the digest: a held digest, an unknown delivery; the license jobs: an unknown delivery; the mail
 * events: a bounce or complaint, and nothing else). The usage alerts post to their rules' channels and send no
 * notices (no owner notice yet: src/usage-alerts/tell-changes.ts). The archive's two steps, either of which may finish
 * a run, post its event to `archive.channels` and send no notices (a run's failure is its JobFailed alarm).
 */
export function channelIdsPostedBy(config: PulseConfig, fn: ChannelPoster): string[] {
  const notices = config.notices?.channels ?? [];
  const archiveEvents = () => config.archive?.channels ?? [];
  const posts: Record<ChannelPoster, () => string[]> = {
    digest: () => [...config.digests.flatMap((d) => d.channels), ...notices],
    'license-alerts': () => [...(config.licenses?.routing ?? []).flatMap((r) => r.channels), ...notices],
    'license-report': () => [...(config.licenses?.report?.channels ?? []), ...notices],
    'usage-alerts': () => (config.usageAlerts?.rules ?? []).flatMap((r) => r.channels),
    'mail-events': () => notices,
    'archive-plan': archiveEvents,
    'archive-copy': archiveEvents,
  };
  return [...new Set(posts[fn]())];
}

export function channelsPostedBy(config: PulseConfig, fn: ChannelPoster): ChannelConfig[] {
  const ids = new Set(channelIdsPostedBy(config, fn));
  return config.channels.filter((c) => ids.has(c.id));
}

/** A secret id that would make the grant a wildcard (deploy only: lib/deploy-config.ts). */
export class UngrantableSecretIdError extends Error {
  override name = 'UngrantableSecretIdError';
}

/**
 * The Secrets Manager secret ids of `channels` (as the config names them, each once); env-sourced ones have none.
 * Secret names never hold `*` or `?`, which in a grant would reach other secrets: such an id is refused.
 */
export function channelSecretIds(channels: readonly ChannelConfig[]): string[] {
  const ids = new Set<string>();
  for (const { id, secret } of channels) {
    if (secret.source !== 'secretsManager') continue;
    if (/[*?]/.test(secret.secretId))
      throw new UngrantableSecretIdError(
        `channels ${id}: secret.secretId ${JSON.stringify(secret.secretId)} holds * or ?, which no secret's name ` +
          "does; in the functions' rights it would match other secrets: give the secret's name or ARN",
      );
    ids.add(secret.secretId);
  }
  return [...ids];
}

/** The synth warning of channels the functions post to whose secret is meant to come from the environment. */
export function channelSecretsFromEnvWarning(ids: readonly string[]): string {
  const [channel, secret, it] =
    ids.length === 1 ? ['Channel', 'its secret comes', 'it'] : ['Channels', 'their secrets come', 'them'];
  return (
    `${channel} ${ids.join(', ')}: ${secret} from the environment (secret.source "env"), but no function's ` +
    `environment holds a channel secret, so every post to ${it} fails in AWS ("not set"). Give each a Secrets ` +
    'Manager secret: "secret": { "source": "secretsManager", "secretId": "<name or ARN>" }; the functions may then ' +
    'read that secret.'
  );
}
