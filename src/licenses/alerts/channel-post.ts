/**
 * A route channel's license alerts (`channel:<id>` among a rule's recipients, routing.ts): the same view as the
 * email, shaped by channel-message.ts and posted under the claims the email path took (notify-recipient.ts).
 */
import type { ChannelConfig } from '../../config/channels-schema.ts';
import { localDateTime } from '../../core/calendar.ts';
import { channelIdOf, channelLabel } from '../../core/channels/channel-targets.ts';
import { channelSend } from '../../core/channels/deliver-to-channel.ts';
import type { Send } from '../../core/delivery/deliver-once.ts';
import { NotSentError } from '../../ports/not-sent.ts';
import type { AlertEmailDraft } from './alert-email-draft.ts';
import { alertView } from './alert-view.ts';
import { CHANNEL_KEYS, licenseAlertsChannelMessage } from './channel-message.ts';
import { headlineOf } from './headline.ts';
import type { LicenseRecipient } from './routing.ts';
import type { EmailKind, RunContext } from './run-context.ts';
import { summaryView } from './summary-view.ts';

/** The configured channel a routed "address" names (`channel:<id>`); undefined for an email address. */
export function channelOf(ctx: RunContext, address: string): ChannelConfig | undefined {
  const id = channelIdOf(address);
  return id === undefined ? undefined : ctx.config.channels.find((c) => c.id === id);
}

/** The send of a channel's alerts message: the same view as the email, as channel-message.ts shapes it. */
export function postFor(
  ctx: RunContext,
  channel: ChannelConfig,
  recipient: LicenseRecipient,
  draft: AlertEmailDraft,
  productName: (id: string) => string,
  email: EmailKind,
): Send {
  const ports = ctx.ports.channels;
  if (!ports) {
    return () => Promise.reject(new NotSentError(`${channelLabel(channel)}: no channels in this runtime`));
  }
  const { view, headline, today } = alertsView(ctx, recipient, draft, productName, email);
  const message = licenseAlertsChannelMessage(view, draft.top(), draft.summary, {
    headline,
    date: today,
    kind: email.kind,
    now: ctx.now,
  });
  // One key names the post (its webhook id): the first claim, which only this message holds.
  return channelSend({ ...ctx.ports, channels: ports }, channel, message, { key: draft.firstClaim! });
}

/** The view of a recipient's alerts (or first-run summary) for a channel, and its one-line headline. */
function alertsView(
  ctx: RunContext,
  recipient: LicenseRecipient,
  draft: AlertEmailDraft,
  productName: (id: string) => string,
  email: EmailKind,
) {
  const today = localDateTime(ctx.now, recipient.timeZone).date;
  const viewCtx = { today, productName, windowDays: ctx.licenses.usage.windowDays, footer: 'Sent by Pulse' };
  const { summary } = draft;
  const base = alertView(draft.top(), CHANNEL_KEYS, viewCtx, summary);
  const view =
    email.kind === 'summary' ? summaryView(base, summary, email.productNames, ctx.licenses.stages, 'a message') : base;
  return { view, today, headline: headlineOf(summary.keys, today, email) };
}
