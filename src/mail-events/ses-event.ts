/**
 * One queued mail event read and checked: the SQS message body is the EventBridge event SES published for a message
 * sent with Pulse's configuration set ("Email Bounced", "Email Complaint Received", "Email Rejected"), whose `detail`
 * is SES's event publishing record (eventType, mail, bounce | complaint | reject). What does not read as one, or
 * names no Pulse delivery (the `pulse-delivery` tag, src/core/delivery/delivery-tag.ts), is a MailEventError naming why.
 */
import * as z from 'zod';
import { DELIVERY_TAG, DeliveryTagError, ledgerKeyOfTag } from '../core/delivery/delivery-tag.ts';
import { parseJsonAs } from '../core/parse-json.ts';

/** A record that is not a bounce, complaint or reject of a Pulse email: handed back, never half-processed. */
export class MailEventError extends Error {
  override name = 'MailEventError';
}

/** The EventBridge detail-type of each SES event type Pulse reads. */
export const DETAIL_TYPES = {
  Bounce: 'Email Bounced',
  Complaint: 'Email Complaint Received',
  Reject: 'Email Rejected',
} as const;

const Address = z
  .string()
  .min(3)
  .max(320)
  .regex(/^[^\s@<>]+@[^\s@<>]+$/, 'an email address');
const Recipients = z.array(z.object({ emailAddress: Address }).loose()).min(1);
const Mail = z
  .object({
    messageId: z.string().min(1),
    timestamp: z.iso.datetime({ offset: true }),
    destination: z.array(Address).min(1),
    tags: z.record(z.string(), z.array(z.string())).default({}),
  })
  .loose();

const Detail = z.discriminatedUnion('eventType', [
  z
    .object({
      eventType: z.literal('Bounce'),
      mail: Mail,
      bounce: z
        .object({
          bounceType: z.enum(['Permanent', 'Transient', 'Undetermined']),
          bounceSubType: z.string().min(1),
          bouncedRecipients: z.array(
            z.object({ emailAddress: Address, diagnosticCode: z.string().optional() }).loose(),
          ),
          timestamp: z.iso.datetime({ offset: true }),
          feedbackId: z.string().min(1),
        })
        .loose(),
    })
    .loose(),
  z
    .object({
      eventType: z.literal('Complaint'),
      mail: Mail,
      complaint: z
        .object({
          complainedRecipients: Recipients,
          complaintFeedbackType: z.string().optional(),
          timestamp: z.iso.datetime({ offset: true }),
          feedbackId: z.string().min(1),
        })
        .loose(),
    })
    .loose(),
  z.object({ eventType: z.literal('Reject'), mail: Mail, reject: z.object({ reason: z.string() }).loose() }).loose(),
]);

const Envelope = z
  .object({
    'detail-type': z.enum([DETAIL_TYPES.Bounce, DETAIL_TYPES.Complaint, DETAIL_TYPES.Reject]),
    source: z.literal('aws.ses'),
    detail: Detail,
  })
  .loose();

/** SES's bounce subtypes of a message it did not send because the address was on a suppression list. */
const SES_SUPPRESSION_SUBTYPES = new Set(['Suppressed', 'OnAccountSuppressionList']);

export interface MailEvent {
  /** Unique per reported event (SES's feedback id; a reject's message id): recorded once on the delivery. */
  id: string;
  type: 'bounce' | 'complaint' | 'reject';
  /**
   * A bounce's kind: `permanent` (the mail server refused it for good), `transient` (SES gave up retrying; the
   * address may work later), `suppressedBySes` (SES did not send it: the address is on its suppression list).
   */
  bounce?: 'permanent' | 'transient' | 'suppressedBySes';
  /** When the mail server or recipient reported it. */
  at: string;
  /** SES's message id. */
  messageId: string;
  /** When the message was sent. */
  sentAt: string;
  /** The ledger key of the delivery (from its tag). */
  deliveryKey: string;
  /** The recipients it is about, lower-cased: the bounced or complaining ones, else the message's. */
  recipients: string[];
  /** What was reported, one sentence each. */
  details: string[];
  /** Whether the recipients are not to be mailed again (a hard bounce, a suppression-list drop, a complaint). */
  suppresses: boolean;
}

/** The mail event in an SQS message body. */
export function parseMailEvent(body: string): MailEvent {
  const event = parseJsonAs(body, Envelope, (problem) => new MailEventError(`the SES event ${problem}`));
  const { detail } = event;
  if (DETAIL_TYPES[detail.eventType] !== event['detail-type']) {
    throw new MailEventError(`detail-type ${event['detail-type']} does not match eventType ${detail.eventType}`);
  }
  const base = {
    messageId: detail.mail.messageId,
    sentAt: detail.mail.timestamp,
    deliveryKey: deliveryKeyOf(detail.mail.tags),
  };
  const lower = (addresses: string[]) => [...new Set(addresses.map((a) => a.toLowerCase()))];
  if (detail.eventType === 'Bounce') {
    const b = detail.bounce;
    const bounce = SES_SUPPRESSION_SUBTYPES.has(b.bounceSubType)
      ? 'suppressedBySes'
      : b.bounceType === 'Permanent'
        ? 'permanent'
        : 'transient';
    const named = b.bouncedRecipients.length > 0 ? b.bouncedRecipients : detail.mail.destination.map(asRecipient);
    return {
      ...base,
      id: `bounce:${b.feedbackId}`,
      type: 'bounce',
      bounce,
      at: b.timestamp,
      recipients: lower(named.map((r) => r.emailAddress)),
      details: [
        `${b.bounceType} bounce (${b.bounceSubType})`,
        ...named.flatMap((r) => (r.diagnosticCode ? [`${r.emailAddress}: ${r.diagnosticCode}`] : [])),
      ],
      // An Undetermined bounce is not known to be the address's fault: like a transient one, not suppressed.
      suppresses: bounce !== 'transient',
    };
  }
  if (detail.eventType === 'Complaint') {
    const c = detail.complaint;
    return {
      ...base,
      id: `complaint:${c.feedbackId}`,
      type: 'complaint',
      at: c.timestamp,
      recipients: lower(c.complainedRecipients.map((r) => r.emailAddress)),
      details: [`Complaint${c.complaintFeedbackType ? ` (${c.complaintFeedbackType})` : ''}`],
      suppresses: true,
    };
  }
  return {
    ...base,
    id: `reject:${detail.mail.messageId}`,
    type: 'reject',
    at: detail.mail.timestamp,
    recipients: lower(detail.mail.destination),
    details: [`Rejected by SES: ${detail.reject.reason}`],
    // SES refuses a message for its content (a virus), not for its recipient.
    suppresses: false,
  };
}

const asRecipient = (emailAddress: string) => ({ emailAddress, diagnosticCode: undefined });

function deliveryKeyOf(tags: Record<string, string[]>): string {
  const values = tags[DELIVERY_TAG] ?? [];
  if (values.length !== 1) {
    throw new MailEventError(
      `the message has ${values.length === 0 ? 'no' : values.length} ${DELIVERY_TAG} tag${values.length > 1 ? 's' : ''}: ` +
        'not sent by Pulse, or sent without its delivery (a ledger key too long for a tag)',
    );
  }
  try {
    return ledgerKeyOfTag(values[0]!);
  } catch (e) {
    if (e instanceof DeliveryTagError) throw new MailEventError(e.message);
    throw e;
  }
}
