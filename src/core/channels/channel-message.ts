/**
 * What every channel message is built from: one model per thing Pulse tells (a digest, a license alert batch, the
 * license report, a finished archive run, an owner notice), made by the job from the same view model as its email, and rendered by
 * slack.ts, teams.ts and webhook-event.ts. Text here is plain and may hold anything the service returned (a product
 * name with `<!channel>`, 10 KB of right-to-left text): each renderer escapes and truncates it for its channel.
 */

/** The webhook event types (docs/channels/webhook.md has a schema and an example of each). */
export const CHANNEL_EVENTS = [
  'digest.sent',
  'digest.held',
  'license.alerts',
  'usage.alerts',
  'license.report',
  'archive.completed',
  'archive.failed',
  'delivery.unknown',
  'mail.event',
  'channel.test',
] as const;
export type ChannelEvent = (typeof CHANNEL_EVENTS)[number];

export interface ChannelFact {
  label: string;
  value: string;
}

/** A titled group of facts: one product's headline figures, one license key with its usage. */
export interface ChannelSection {
  title: string;
  /** A line under the title ("expires in 7 days · 12 clients in the last 30 days"). */
  text?: string;
  facts: ChannelFact[];
}

export interface ChannelMessage {
  event: ChannelEvent;
  /** The heading: "Weekly product digest · 2026-W47". */
  title: string;
  /** The one-line summary (also the notification text): "3 license keys need attention in Example Desktop". */
  summary: string;
  /** What changed, or what happened, one sentence each. */
  lines: string[];
  /** Headline figures of the whole message. */
  facts: ChannelFact[];
  sections: ChannelSection[];
  /** Sections left out for length ("and 41 more keys"), said at the end: a channel message never lists all. */
  moreSections?: string;
  /** A chart people can open (only when it is reachable: `archive.publicBaseUrl`). */
  image?: { url: string; alt: string };
  /** The full report, the full list: only when reachable. */
  link?: { label: string; url: string };
  /** When it happened (ISO 8601): the webhook event's timestamp. */
  occurredAt: string;
  /** The webhook event's `data`: the facts as numbers and ids, for programs (schema per event type). */
  data: Record<string, unknown>;
}
