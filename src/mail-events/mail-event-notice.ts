/**
 * The owner's notice of a bounce, complaint or reject of one delivery: rendered by renderMailEventNotice (the owner
 * notice template every notice shares) and sent at most once per delivery, under mailEventNoticeKey, through
 * deliverOnce like every Pulse email; a second event about the same delivery (a redelivered one, or a complaint
 * after a bounce) finds the notice sent.
 */
import type { PulseConfig } from '../config/schema.ts';
import { noticeChannelsOf, noticeMessage, postNotice } from '../core/channels/notice-channels.ts';
import { type Delivery, type DeliveryPorts, deliverOnce } from '../core/delivery/deliver-once.ts';
import type { DeliveryLabel } from '../core/delivery/delivery-label.ts';
import { renderMailEventNotice } from '../core/render/owner-notices.ts';
import type { ChannelPorts } from '../ports/channels.ts';
import { clearSuppressionCommand } from '../ports/suppressions.ts';
import { mailEventNoticeKey } from './delivery-of.ts';
import type { MailEvent } from './ses-event.ts';

export async function noticeMailEvent(
  config: PulseConfig,
  ports: DeliveryPorts & { channels?: ChannelPorts },
  label: DeliveryLabel,
  event: MailEvent,
): Promise<Delivery & { channelProblems: string[] }> {
  const address = event.recipients.join(', ');
  const notice = renderMailEventNotice({
    kind: event.type,
    what: label.what,
    subjectLabel: label.subjectLabel,
    heading: label.heading,
    address,
    at: event.at,
    details: event.details,
    clearCommand: event.suppresses ? event.recipients.map(clearSuppressionCommand).join('; ') : null,
    footer: 'Sent by Pulse',
  });
  const key = mailEventNoticeKey(event.deliveryKey);
  const sent = await deliverOnce(ports, key, {
    from: config.mail.from,
    to: label.owner,
    subject: notice.subject,
    html: notice.html,
    text: notice.text,
    headers: { ...label.headers, 'X-Pulse-Notice': `mail-${event.type}` },
  });
  const message = noticeMessage(
    'mail.event',
    {
      title: notice.subject,
      summary: `A ${event.type} of ${label.what} sent to ${address}.`,
      lines: event.details,
      facts: [
        { label: 'To', value: address },
        { label: 'Reported', value: event.at },
        ...(event.suppresses ? [{ label: 'Suppressed', value: 'Pulse stops mailing the address' }] : []),
      ],
    },
    {
      type: event.type,
      deliveryKey: event.deliveryKey,
      what: label.what,
      recipients: event.recipients,
      at: event.at,
      details: event.details,
      suppressed: event.suppresses,
    },
    ports.clock?.now() ?? new Date(),
  );
  return { ...sent, channelProblems: await postNotice(ports, noticeChannelsOf(config), key, message) };
}
