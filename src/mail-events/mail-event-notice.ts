/**
 * The owner's notice of a bounce, complaint or reject of one delivery: rendered by renderMailEventNotice (the owner
 * notice template every notice shares) and sent at most once per delivery, under mailEventNoticeKey, through
 * deliverOnce like every Pulse email; a second event about the same delivery (a redelivered one, or a complaint
 * after a bounce) finds the notice sent.
 */
import type { PulseConfig } from '../config/schema.ts';
import { type Delivery, type DeliveryPorts, deliverOnce } from '../core/delivery/deliver-once.ts';
import type { DeliveryLabel } from '../core/delivery/delivery-label.ts';
import { renderMailEventNotice } from '../core/render/owner-notices.ts';
import { clearSuppressionCommand } from '../ports/suppressions.ts';
import { mailEventNoticeKey } from './delivery-of.ts';
import type { MailEvent } from './ses-event.ts';

export async function noticeMailEvent(
  config: PulseConfig,
  ports: DeliveryPorts,
  label: DeliveryLabel,
  event: MailEvent,
): Promise<Delivery> {
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
  return deliverOnce(ports, mailEventNoticeKey(event.deliveryKey), {
    from: config.mail.from,
    to: label.owner,
    subject: notice.subject,
    html: notice.html,
    text: notice.text,
    headers: { ...label.headers, 'X-Pulse-Notice': `mail-${event.type}` },
  });
}
