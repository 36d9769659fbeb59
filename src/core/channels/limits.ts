/**
 * The documented limits of each channel, in one place: the renderers stay within them (slack.ts, teams.ts) and the
 * local sinks refuse a payload over them as the services do (src/adapters/local/channel-sink.ts).
 * Slack: https://docs.slack.dev/reference/block-kit/blocks (per block type) and the incoming webhooks' "message too
 * long"; Teams: the Workflows "Post card" message size (28 KB) and Adaptive Cards 1.5 as Teams renders it.
 */
export const SLACK_LIMITS = {
  /** Blocks in one message. */
  blocks: 50,
  /** A header block's plain text. */
  headerText: 150,
  /** A section block's text. */
  sectionText: 3000,
  /** Fields of one section, and each field's text. */
  sectionFields: 10,
  fieldText: 2000,
  /** Elements of one context block. */
  contextElements: 10,
  /** A button's text and its URL. */
  buttonText: 75,
  url: 3000,
  /** An image block's alt text. */
  imageAltText: 2000,
  /** The top-level `text` (the notification). Slack truncates beyond 40,000; we stay far below. */
  text: 4000,
} as const;

export const TEAMS_LIMITS = {
  /** The whole message envelope, as bytes of UTF-8 JSON. */
  payloadBytes: 28 * 1024,
  /** The Adaptive Card schema version Pulse declares (Teams renders up to 1.5). */
  cardVersion: '1.5',
} as const;

export const WEBHOOK_LIMITS = {
  /** What a receiver should expect at most, as bytes of UTF-8 JSON (our own promise, docs/channels/webhook.md). */
  payloadBytes: 256 * 1024,
} as const;
