/**
 * What SES would publish when a recipient's mail server bounces a message for good, or the recipient reports it as
 * spam: the EventBridge event ("Email Bounced" / "Email Complaint Received") whose `detail` is SES's event
 * publishing record, with the message's `pulse-delivery` tag taken from the header the SMTP mailer writes
 * (src/core/delivery/delivery-tag.ts). The local SMTP sink makes one for each recipient it was told to bounce or complain
 * for, so a local run takes the whole path the mail-events Lambda takes in AWS.
 */
import { randomUUID } from 'node:crypto';
import { DELIVERY_TAG } from '../../core/delivery/delivery-tag.ts';

/** What the sink does with a message to an address, besides keeping it. */
export type SinkReaction = 'bounce' | 'complaint';

/** The EventBridge event of one SES mail event (the shape the mail-events job reads from its queue). */
export interface SesEventBridgeEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: 'aws.ses';
  time: string;
  detail: Record<string, unknown>;
}

export interface SentMessage {
  /** Without the angle brackets, like SES's. */
  messageId: string;
  from: string;
  to: string[];
  /** The `pulse-delivery` tag value, if the message carried one. */
  deliveryTag: string | undefined;
  sentAt: Date;
}

/** The event SES would publish for `reaction` of `recipient` to `message`, reported `at`. */
export function sesEventFor(
  reaction: SinkReaction,
  recipient: string,
  message: SentMessage,
  at: Date,
): SesEventBridgeEvent {
  const mail = {
    timestamp: message.sentAt.toISOString(),
    source: message.from,
    messageId: message.messageId,
    destination: message.to,
    tags: message.deliveryTag === undefined ? {} : { [DELIVERY_TAG]: [message.deliveryTag] },
  };
  const feedback = { timestamp: at.toISOString(), feedbackId: `local-${randomUUID()}` };
  const detail =
    reaction === 'bounce'
      ? {
          eventType: 'Bounce',
          mail,
          bounce: {
            ...feedback,
            bounceType: 'Permanent',
            bounceSubType: 'General',
            bouncedRecipients: [
              {
                emailAddress: recipient,
                action: 'failed',
                status: '5.1.1',
                diagnosticCode: 'smtp; 550 5.1.1 user unknown (local SMTP sink)',
              },
            ],
            reportingMTA: 'dns; localhost',
          },
        }
      : {
          eventType: 'Complaint',
          mail,
          complaint: {
            ...feedback,
            complainedRecipients: [{ emailAddress: recipient }],
            complaintFeedbackType: 'abuse',
          },
        };
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': reaction === 'bounce' ? 'Email Bounced' : 'Email Complaint Received',
    source: 'aws.ses',
    time: at.toISOString(),
    detail,
  };
}
