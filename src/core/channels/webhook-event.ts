/**
 * A channel message as a signed Standard Webhooks event (https://www.standardwebhooks.com): the body is a versioned
 * JSON event `{ type, version, id, timestamp, data }` (docs/channels/webhook.md has each type's schema) and the
 * headers carry its id, the time it was posted and the signature (webhook-signing.ts). The id is stable per ledger
 * key (`channelEventId`), so an event posted again by a later run has the same id and a receiver drops the copy.
 */
import { createHash } from 'node:crypto';
import { NotSentError } from '../../ports/not-sent.ts';
import type { ChannelMessage } from './channel-message.ts';
import { WEBHOOK_LIMITS } from './limits.ts';
import { signingKey, webhookSignature } from './webhook-signing.ts';

/** The version of the event envelope; `data`'s schema per type is versioned with it. */
export const WEBHOOK_EVENT_VERSION = 1;

export interface WebhookEvent {
  type: ChannelMessage['event'];
  version: typeof WEBHOOK_EVENT_VERSION;
  id: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** `msg_` and a hash of the ledger key: the same key (the same delivery) gives the same id on every run. */
export function channelEventId(ledgerKey: string): string {
  return `msg_${createHash('sha256').update(ledgerKey, 'utf8').digest('base64url').slice(0, 32)}`;
}

/** An event over WEBHOOK_LIMITS.payloadBytes, the most we promise receivers: not posted (nothing went out). */
export class WebhookEventTooLargeError extends NotSentError {
  override name = 'WebhookEventTooLargeError';
  constructor(type: string, bytes: number) {
    super(`the ${type} event is ${bytes} bytes, over the ${WEBHOOK_LIMITS.payloadBytes} bytes receivers are promised`);
  }
}

export interface WebhookEventOptions {
  eventId: string;
  signingSecret?: string;
  now: Date;
}

/**
 * The body (exactly the signed bytes) and the headers of one event. Throws a SigningSecretError for a missing or
 * malformed secret and a WebhookEventTooLargeError beyond the promised size, both NotSentErrors.
 */
export function renderWebhookEvent(
  message: ChannelMessage,
  opts: WebhookEventOptions,
): { body: string; headers: Record<string, string> } {
  const key = signingKey(opts.signingSecret);
  const event: WebhookEvent = {
    type: message.event,
    version: WEBHOOK_EVENT_VERSION,
    id: opts.eventId,
    timestamp: message.occurredAt,
    data: message.data,
  };
  const body = JSON.stringify(event);
  const size = Buffer.byteLength(body);
  if (size > WEBHOOK_LIMITS.payloadBytes) throw new WebhookEventTooLargeError(message.event, size);
  const timestamp = Math.floor(opts.now.getTime() / 1000);
  return {
    body,
    headers: {
      'webhook-id': opts.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': webhookSignature(key, opts.eventId, timestamp, body),
    },
  };
}
