/** The owner's "digest held" notice: at most one a day per digest (one ledger key per UTC day, sent at most once). */
import type { DigestConfig, PulseConfig } from '../config/schema.ts';
import { localDateTime } from '../core/calendar.ts';
import { noticeChannelsOf, noticeMessage, postNotice } from '../core/channels/notice-channels.ts';
import { deliverOnce } from '../core/delivery/deliver-once.ts';
import { HELD_NOTICE_PREFIX } from '../core/delivery/ledger-keys.ts';
import { type RenderedNotice, renderFailureNotice } from '../core/render/owner-notices.ts';
import type { JobPorts } from '../ports/job-ports.ts';
import type { MailMessage } from '../ports/mailer.ts';
import type { PreparedDigest } from './prepare.ts';

export async function sendFailureNotice(
  config: PulseConfig,
  digest: DigestConfig,
  prepared: PreparedDigest,
  ports: Pick<JobPorts, 'ledger' | 'mailer' | 'logger' | 'suppressions' | 'channels'>,
  now: Date,
): Promise<void> {
  if (prepared.guard.ok) return;
  const key = `${HELD_NOTICE_PREFIX}${digest.id}#${now.toISOString().slice(0, 10)}`;
  // Rendering is cheap; the ledger decides whether it goes out.
  const at = localDateTime(now, digest.schedule.timeZone);
  const notice = renderFailureNotice({
    digestId: digest.id,
    digestTitle: digest.title,
    isoWeek: prepared.week.isoWeek,
    reasons: prepared.guard.reasons,
    heldAt: `${at.date} ${at.time} ${digest.schedule.timeZone}`,
    forceCommand: `pulse digest --digest ${digest.id} --week ${prepared.week.isoWeek} --force`,
    footer: 'Sent by Pulse',
  });
  const sent = await deliverOnce(ports, key, ownerNoticeMessage(config, digest, notice, { 'X-Pulse-Notice': 'held' }));
  if (sent.outcome !== 'sent' && sent.outcome !== 'alreadySent') {
    ports.logger.warn('held-digest notice', { digestId: digest.id, outcome: sent.outcome, error: sent.error });
  }
  const forceCommand = `pulse digest --digest ${digest.id} --week ${prepared.week.isoWeek} --force`;
  const message = noticeMessage(
    'digest.held',
    {
      title: notice.subject,
      summary: `${digest.title} for ${prepared.week.isoWeek} was held: its data failed the checks.`,
      lines: [...prepared.guard.reasons, `Send it anyway, marked incomplete: ${forceCommand}`],
      facts: [{ label: 'Held at', value: `${at.date} ${at.time} ${digest.schedule.timeZone}` }],
    },
    {
      digestId: digest.id,
      title: digest.title,
      isoWeek: prepared.week.isoWeek,
      reasons: prepared.guard.reasons,
      forceCommand,
    },
    now,
  );
  for (const problem of await postNotice(ports, noticeChannelsOf(config), key, message)) {
    ports.logger.warn('held-digest notice', { digestId: digest.id, error: problem });
  }
}

/** A rendered notice as the message to the digest's owner. */
export function ownerNoticeMessage(
  config: PulseConfig,
  digest: DigestConfig,
  notice: RenderedNotice,
  headers: Record<string, string>,
): MailMessage {
  return {
    from: config.mail.from,
    to: digest.owner,
    subject: notice.subject,
    html: notice.html,
    text: notice.text,
    headers: { 'X-Pulse-Digest': digest.id, ...headers },
  };
}
