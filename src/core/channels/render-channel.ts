/**
 * One channel request from one message: the body (exactly the bytes posted, and signed for webhooks) and its
 * headers, for each channel kind (slack.ts, teams.ts, webhook-event.ts). A webhook without a usable signing secret
 * throws a SigningSecretError, and one over its promised size a WebhookEventTooLargeError: both NotSentErrors, since
 * nothing went out. Slack and Teams payloads always fit their channel, so rendering them does not throw.
 */
import type { ChannelKind } from '../../ports/channels.ts';
import type { ChannelMessage } from './channel-message.ts';
import { renderSlack } from './slack.ts';
import { renderTeams } from './teams.ts';
import { renderWebhookEvent } from './webhook-event.ts';

export interface RenderOptions {
  /** The stable id of this delivery (webhook-id; also what a chat message is known by in the ledger). */
  eventId: string;
  /** Webhooks only: `whsec_<base64>`. */
  signingSecret?: string;
  /** When it is posted (webhook-timestamp). */
  now: Date;
}

export interface ChannelRequestBody {
  body: string;
  headers: Record<string, string>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function renderChannelRequest(
  kind: ChannelKind,
  message: ChannelMessage,
  opts: RenderOptions,
): ChannelRequestBody {
  switch (kind) {
    case 'slack':
      return { body: JSON.stringify(renderSlack(message)), headers: { 'content-type': JSON_TYPE } };
    case 'teams':
      return { body: JSON.stringify(renderTeams(message)), headers: { 'content-type': JSON_TYPE } };
    case 'webhook': {
      const { body, headers } = renderWebhookEvent(message, opts);
      return { body, headers: { 'content-type': JSON_TYPE, ...headers } };
    }
  }
}
