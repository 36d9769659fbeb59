/**
 * The `channels` section of pulse.config.json: named Slack, Microsoft Teams and webhook channels that digests,
 * license alert routes, the license report and owner notices name beside (or instead of) email recipients. The
 * file names a channel's secret, never its URL or signing secret (docs/channels.md).
 */
import * as z from 'zod';
import { TimeZone } from './common-schema.ts';

export const CHANNEL_KINDS = ['slack', 'teams', 'webhook'] as const;

export const ChannelId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and dashes, at most 63')
  .describe('channel id, as digests, license routes and the report, notices and the archive name it');

/** The environment variable a channel's secret is read from when the config names none: `PULSE_CHANNEL_OPS_SLACK`. */
export const channelEnvVar = (id: string) => `PULSE_CHANNEL_${id.toUpperCase().replaceAll('-', '_')}`;

const ChannelSecret = z
  .discriminatedUnion('source', [
    z
      .strictObject({
        source: z.literal('env'),
        var: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
          .optional()
          .describe('default: PULSE_CHANNEL_<ID in upper case, - as _>'),
      })
      .describe('the secret from an environment variable (local runs)'),
    z
      .strictObject({ source: z.literal('secretsManager'), secretId: z.string().min(1) })
      .describe('a Secrets Manager secret; read at every run'),
  ])
  .describe(
    'where the channel\'s secret comes from: JSON {"url"} (Slack, Teams) or {"url", "signingSecret"} (webhook); never the config file itself',
  );

export const Channel = z.strictObject({
  id: ChannelId,
  kind: z.enum(CHANNEL_KINDS).describe('slack: an incoming webhook; teams: a Workflows webhook; webhook: signed JSON'),
  secret: ChannelSecret.default({ source: 'env' }),
  timeZone: TimeZone.optional().describe(
    "this channel's time zone, like a recipient's: when its digest is due and where license alerts count days (default: the digest's schedule time zone; UTC for the license alerts)",
  ),
  timeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(60_000)
    .default(10_000)
    .describe('one post, from connecting to the answer; after a timeout a chat message is "unknown"'),
  maxAttempts: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(6)
    .describe('webhook only: attempts at one event (5xx, 429, timeouts) within a run, with backoff, before reporting'),
});

export const Channels = z.array(Channel).default([]);
export type ChannelConfig = z.output<typeof Channel>;

/** The channel names a section lists (default none). */
export const ChannelIds = z.array(ChannelId).default([]);

export const Notices = z
  .strictObject({
    channels: ChannelIds.describe(
      "channels that get every owner notice (digest held, delivery unknown, a bounce or complaint) besides the owner's email",
    ),
  })
  .describe('where owner notices go besides email');
