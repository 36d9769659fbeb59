/**
 * The owner's notice of a delivery whose outcome is unknown (docs/delivery.md "Delivery states"), for every email
 * Pulse sends (digest, license alerts, license report): rendered by renderUnknownDeliveryNotice, and itself sent at
 * most once, under `notice-unknown#<the delivery's ledger key>`, so a rerun that finds the same unknown delivery
 * sends no second notice.
 */

import type { ChannelConfig } from '../../config/channels-schema.ts';
import type { ChannelPorts } from '../../ports/channels.ts';
import { noticeMessage, postNotice } from '../channels/notice-channels.ts';
import { renderUnknownDeliveryNotice } from '../render/owner-notices.ts';
import { type DeliveryPorts, deliverOnce } from './deliver-once.ts';
import type { DeliveryLabel } from './delivery-label.ts';
import { deliveredOrUnderWay } from './delivery-tally.ts';

/** The owner is told once of each delivery whose outcome is unknown. */
export const unknownNoticeKey = (deliveryKey: string) => `notice-unknown#${deliveryKey}`;

export interface UnknownDelivery {
  /** The recipient's address in the ledger key (a channel's `channel:<id>`). */
  address: string;
  /** How the notice names it when not by the address: "Slack channel ops". */
  label?: string;
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
  /** The notice channels (`notices.channels`): each gets the notice too, at most once. */
  channels?: readonly ChannelConfig[];
}

/** Tells the owner of one delivery whose outcome is unknown, once; returns an error line if that failed. */
export async function noticeUnknownDelivery(
  ports: DeliveryPorts & { channels?: ChannelPorts },
  subject: UnknownNoticeSubject,
  unknown: UnknownDelivery,
): Promise<string | undefined> {
  const notice = renderUnknownDeliveryNotice({
    what: subject.what,
    subjectLabel: subject.subjectLabel,
    heading: subject.heading,
    address: unknown.label ?? unknown.address,
    claimedAt: unknown.claimedAt,
    reason: unknown.reason,
    resendCommand: `${subject.command} --resend-unknown`,
    confirmCommand: `${subject.command} --confirm-unknown`,
    footer: 'Sent by Pulse',
  });
  const key = unknownNoticeKey(subject.deliveryKey);
  const sent = await deliverOnce(ports, key, {
    from: subject.from,
    to: subject.owner,
    subject: notice.subject,
    html: notice.html,
    text: notice.text,
    headers: { ...subject.headers, 'X-Pulse-Notice': 'delivery-unknown' },
  });
  const to = unknown.label ?? unknown.address;
  const problems = await postNotice(ports, subject.channels ?? [], key, unknownMessage(subject, unknown, to, ports));
  if (!deliveredOrUnderWay(sent)) {
    problems.unshift(`notice to ${subject.owner}: ${sent.outcome}: ${sent.error ?? ''}`);
  }
  if (problems.length === 0) return;
  return `the unknown delivery of ${subject.subjectLabel} to ${to}: ${problems.join('; ')}`;
}

function unknownMessage(
  subject: UnknownNoticeSubject,
  unknown: UnknownDelivery,
  to: string,
  ports: { clock?: { now(): Date } },
) {
  const resend = `${subject.command} --resend-unknown`;
  const confirm = `${subject.command} --confirm-unknown`;
  return noticeMessage(
    'delivery.unknown',
    {
      title: `Delivery unknown: ${subject.subjectLabel}`,
      summary: `Pulse does not know whether ${subject.what} reached ${to}, and will not send it again on its own.`,
      lines: [unknown.reason, `Not delivered? Run: ${resend}`, `Delivered? Run: ${confirm}`],
      facts: [
        { label: 'To', value: to },
        { label: 'Sent at', value: unknown.claimedAt },
      ],
    },
    {
      deliveryKey: subject.deliveryKey,
      what: subject.what,
      to,
      claimedAt: unknown.claimedAt,
      reason: unknown.reason,
      resendCommand: resend,
      confirmCommand: confirm,
    },
    ports.clock?.now() ?? new Date(),
  );
}
