/**
 * The owner's notice of a delivery whose outcome is unknown (docs/delivery.md "Delivery states"), for every email
 * Pulse sends (digest, license alerts, license report): rendered by renderUnknownDeliveryNotice, and itself sent at
 * most once, under `notice-unknown#<the delivery's ledger key>`, so a rerun that finds the same unknown delivery
 * sends no second notice.
 */
import { renderUnknownDeliveryNotice } from '../render/owner-notices.ts';
import { type DeliveryPorts, deliverOnce } from './deliver-once.ts';
import type { DeliveryLabel } from './delivery-label.ts';

/** The owner is told once of each delivery whose outcome is unknown. */
export const unknownNoticeKey = (deliveryKey: string) => `notice-unknown#${deliveryKey}`;

export interface UnknownDelivery {
  address: string;
  claimedAt: string;
  reason: string;
}

/** The delivery, as its sender names it (delivery-label.ts; `X-Pulse-Notice: delivery-unknown` is added). */
export interface UnknownNoticeSubject extends DeliveryLabel {
  /** The ledger key of the delivery (for an email under many claims, one key that names it). */
  deliveryKey: string;
  from: string;
  /** The command that selects this delivery; `--resend-unknown` / `--confirm-unknown` are appended. */
  command: string;
}

/** Tells the owner of one delivery whose outcome is unknown, once; returns an error line if that failed. */
export async function noticeUnknownDelivery(
  ports: DeliveryPorts,
  subject: UnknownNoticeSubject,
  unknown: UnknownDelivery,
): Promise<string | undefined> {
  const notice = renderUnknownDeliveryNotice({
    what: subject.what,
    subjectLabel: subject.subjectLabel,
    heading: subject.heading,
    address: unknown.address,
    claimedAt: unknown.claimedAt,
    reason: unknown.reason,
    resendCommand: `${subject.command} --resend-unknown`,
    confirmCommand: `${subject.command} --confirm-unknown`,
    footer: 'Sent by Pulse',
  });
  const sent = await deliverOnce(ports, unknownNoticeKey(subject.deliveryKey), {
    from: subject.from,
    to: subject.owner,
    subject: notice.subject,
    html: notice.html,
    text: notice.text,
    headers: { ...subject.headers, 'X-Pulse-Notice': 'delivery-unknown' },
  });
  if (sent.outcome === 'sent' || sent.outcome === 'alreadySent' || sent.outcome === 'inProgressElsewhere') return;
  return `notice to ${subject.owner} of the unknown delivery of ${subject.subjectLabel} to ${unknown.address}: ${sent.outcome}: ${sent.error ?? ''}`;
}
