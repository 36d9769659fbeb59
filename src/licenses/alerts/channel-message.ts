/**
 * A recipient's license alerts (or a first run's summary) as a channel message (src/core/channels/): the same view
 * as the email — counts by stage, then the most urgent keys with their usage — and, for webhooks, each shown key
 * as data. A channel message shows at most CHANNEL_KEYS keys (a chat message is read on a phone); the rest is
 * counted in one line (the full list is an email's CSV; nothing a channel could open holds it).
 */
import type { ChannelMessage } from '../../core/channels/channel-message.ts';
import type { ShownAlert } from './alert.ts';
import type { LicenseAlertView } from './alert-email.ts';
import type { AlertSummary } from './alert-view.ts';

/** Keys a channel message lists, most urgent first. */
export const CHANNEL_KEYS = 5;

export function licenseAlertsChannelMessage(
  view: LicenseAlertView,
  top: ShownAlert[],
  summary: AlertSummary,
  opts: { headline: string; date: string; kind: 'alerts' | 'summary'; now: Date },
): ChannelMessage {
  const rows = view.groups.flatMap((g) => g.rows.map((r) => ({ ...r, stage: g.title })));
  const shown = rows.slice(0, CHANNEL_KEYS);
  const left = summary.keys - shown.length;
  return {
    event: 'license.alerts',
    title: `${view.title} · ${view.dateLabel}`,
    summary: opts.headline,
    lines: [view.intro, ...(view.next ? [view.next.text] : [])],
    facts: (view.summaries[0]?.lines ?? []).map((l) => ({ label: l.text, value: String(l.count) })),
    sections: shown.map((r) => ({
      title: `${r.licenseKey} · ${r.productName}`,
      text: `${r.stage}: ${r.expiryText} · ${r.usageText} (${r.trendText})`,
      facts: [
        { label: 'Type', value: r.licenseType },
        { label: 'Clients', value: r.detailText },
        ...(r.labels.length > 0 ? [{ label: 'Labels', value: r.labels.map((l) => l.text).join(', ') }] : []),
      ],
    })),
    ...(left > 0 ? { moreSections: `and ${left} more key${left === 1 ? '' : 's'}` } : {}),
    occurredAt: opts.now.toISOString(),
    data: {
      kind: opts.kind,
      date: opts.date,
      alerts: summary.alerts,
      keys: summary.keys,
      byStage: Object.fromEntries(summary.byStage),
      byLabel: Object.fromEntries(summary.byLabel),
      shown: top.slice(0, CHANNEL_KEYS).map((a) => ({
        productId: a.productId,
        licenseKey: a.key.licenseKey,
        licenseType: a.key.licenseType,
        stage: a.stage,
        expiryDate: a.key.expiryDate,
        daysLeft: a.daysLeft,
        clientCount: a.key.clientCount,
        overQuotaCount: a.key.overQuotaCount,
        lastSeenDate: a.key.lastSeenDate,
        clientsLastWindow: a.usage.lastWindow,
        clientsPreviousWindow: a.usage.previousWindow,
        labels: a.labels,
      })),
    },
  };
}
