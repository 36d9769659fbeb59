/**
 * A recipient's usage alerts as an email and as a channel message, both from one view (alert-view.ts). The email is
 * templates/usage-alert.mjml filled by the escaping templater, each alert with its evidence chart attached inline
 * (`cid:`) as the digest attaches its charts, and a plain-text part that carries the same words and the evidence as
 * numbers. The channel message (event `usage.alerts`) shows the most important alerts and, for webhooks, every change
 * with its figures and evidence series as numbers. Each names where the run's evidence is kept (evidence.ts).
 */
import type { ChannelMessage } from '../core/channels/channel-message.ts';
import { loadTemplate } from '../core/render/compiled-templates.ts';
import type { MailAttachment, MailMessage } from '../ports/mailer.ts';
import { renderEvidenceChart } from './alert-chart.ts';
import { type AlertItem, type AlertView, httpsUrl, type UsageAlertView, usageAlertView } from './alert-view.ts';
import type { EvidenceLocation } from './evidence.ts';

export type { AlertItem, AlertView, UsageAlertView } from './alert-view.ts';
export { usageAlertView } from './alert-view.ts';

/** Alerts a channel message shows, most important first; the rest are counted (a chat is read on a phone). */
export const CHANNEL_ALERTS = 5;

const STATE_TONES = {
  firing: { chipBg: '#fde2e1', chipFg: '#8a1c14' },
  repeat: { chipBg: '#fff1c9', chipFg: '#5c3d00' },
  resolved: { chipBg: '#dcf3e4', chipFg: '#14532d' },
};

/** The view as templates/usage-alert.mjml reads it; every colour a constant chosen here. */
export function usageAlertModel(view: UsageAlertView) {
  return {
    title: view.title,
    weekLabel: view.dateLabel,
    preview: view.subject,
    intro: view.intro,
    summary: [
      { text: 'Started firing', count: view.counts.firing - view.counts.stillFiring },
      { text: 'Still firing', count: view.counts.stillFiring },
      { text: 'Resolved', count: view.counts.resolved },
    ].filter((l) => l.count > 0),
    moreText: view.moreText,
    groups: view.groups.map((g) => ({
      title: g.title,
      countText: `${g.alerts.length} alert${g.alerts.length === 1 ? '' : 's'}`,
      alerts: g.alerts.map((a) => ({
        stateText: a.stateText,
        ...STATE_TONES[a.state === 'firing' && a.repeat ? 'repeat' : a.state],
        title: a.title,
        figureText: a.figureText,
        changeText: a.changeText,
        expectedText: a.expectedText,
        rangeText: a.rangeText,
        reason: a.reason,
        periodText: a.periodText,
        freshnessText: a.freshnessText,
        ruleText: a.ruleText,
        reportUrl: a.reportUrl,
        chart: {
          src: `cid:${a.chart.cid}`,
          alt: a.chart.alt,
          width: a.chart.width,
          height: a.chart.height,
          maxWidth: `${a.chart.width}px`,
        },
      })),
    })),
    viewInBrowserUrl: null,
    footer: view.footer,
    evidenceText: view.evidenceText,
  };
}

/** The plain-text part: the same words, and each alert's evidence as numbers. */
export function usageAlertText(view: UsageAlertView): string {
  const lines = [`${view.title} · ${view.dateLabel}`, '', view.intro, ''];
  if (view.moreText) lines.push(view.moreText, '');
  for (const g of view.groups) {
    lines.push(`== ${g.title} (${g.alerts.length}) ==`);
    for (const a of g.alerts) {
      lines.push(
        '',
        `* ${a.stateText.toUpperCase()}: ${a.title}`,
        `  ${a.figureText}${a.changeText ? `, ${a.changeText}` : ''}`,
      );
      lines.push(`  Expected: ${a.expectedText}. ${a.rangeText}`, `  Why: ${a.reason}`, `  Period: ${a.periodText}`);
      if (a.freshnessText) lines.push(`  ${a.freshnessText}`);
      lines.push(`  ${a.seriesText}`, `  ${a.ruleText}`);
      if (a.reportUrl) lines.push(`  Full report: ${a.reportUrl}`);
    }
    lines.push('');
  }
  lines.push('--', view.footer);
  if (view.evidenceText) lines.push(view.evidenceText);
  lines.push('');
  return lines.join('\n');
}

/** HTML and text of the view; `compiledHtml` is the compiled template (default: templates/compiled/). */
export function renderUsageAlertEmail(view: UsageAlertView, compiledHtml?: string): { html: string; text: string } {
  return { html: loadTemplate('usage-alert', compiledHtml).render(usageAlertModel(view)), text: usageAlertText(view) };
}

/** Each shown alert's chart as the PNG its `cid:` names. */
export async function usageAlertCharts(view: UsageAlertView): Promise<MailAttachment[]> {
  const out: MailAttachment[] = [];
  for (const a of view.groups.flatMap((g) => g.alerts)) {
    const { png } = await renderEvidenceChart(a.chart.spec);
    out.push({ filename: a.chart.cid, content: png, contentType: 'image/png', cid: a.chart.cid });
  }
  return out;
}

export async function usageAlertEmail(
  items: AlertItem[],
  opts: {
    from: string;
    to: { address: string; name?: string | undefined };
    now: Date;
    evidence?: EvidenceLocation | undefined;
    compiledHtml?: string;
  },
): Promise<MailMessage> {
  const view = usageAlertView(items, { now: opts.now, evidence: opts.evidence });
  const { html, text } = renderUsageAlertEmail(view, opts.compiledHtml);
  return {
    from: opts.from,
    to: opts.to.address,
    subject: view.subject,
    html,
    text,
    attachments: await usageAlertCharts(view),
    headers: { 'X-Pulse-Usage-Alerts': `${view.counts.firing} firing, ${view.counts.resolved} resolved` },
  };
}

function section(a: AlertView): ChannelMessage['sections'][number] {
  return {
    title: `${a.stateText}: ${a.title}`,
    text: `${a.figureText}${a.changeText ? `, ${a.changeText}` : ''} · expected ${a.expectedText}`,
    facts: [
      { label: 'Why', value: a.reason },
      { label: 'Period', value: a.periodText },
      ...(a.freshnessText ? [{ label: 'Data', value: a.freshnessText }] : []),
      { label: 'Evidence', value: a.seriesText },
      { label: 'Rule', value: a.ruleText },
    ],
  };
}

/**
 * The channel message: the subject as its summary, the most important CHANNEL_ALERTS alerts as sections, the full
 * report when one is reachable (https), a hosted chart of the first alert when `chartUrl` is given, and every change
 * as data.
 */
export function usageAlertChannelMessage(
  items: AlertItem[],
  opts: { now: Date; chartUrl?: string; evidence?: EvidenceLocation | undefined },
): ChannelMessage {
  const view = usageAlertView(items, { now: opts.now, evidence: opts.evidence });
  const shown = view.alerts.slice(0, CHANNEL_ALERTS);
  const left = view.alerts.length - shown.length;
  const reportUrl = view.alerts.find((a) => a.reportUrl !== null)?.reportUrl ?? null;
  const chartUrl = httpsUrl(opts.chartUrl);
  const started = view.counts.firing - view.counts.stillFiring;
  return {
    event: 'usage.alerts',
    title: `${view.title} · ${view.dateLabel}`,
    summary: view.subject,
    lines: [],
    facts: [
      ...(started > 0 ? [{ label: 'Started firing', value: String(started) }] : []),
      ...(view.counts.stillFiring > 0 ? [{ label: 'Still firing', value: String(view.counts.stillFiring) }] : []),
      ...(view.counts.resolved > 0 ? [{ label: 'Resolved', value: String(view.counts.resolved) }] : []),
      ...(view.evidence ? [{ label: 'Evidence', value: view.evidence.uri }] : []),
    ],
    sections: shown.map(section),
    ...(left > 0 ? { moreSections: `and ${left} more alert${left === 1 ? '' : 's'}` } : {}),
    ...(chartUrl ? { image: { url: chartUrl, alt: view.alerts[0]!.chart.alt } } : {}),
    ...(reportUrl ? { link: { label: 'Full report', url: reportUrl } } : {}),
    occurredAt: opts.now.toISOString(),
    data: {
      firing: view.counts.firing,
      stillFiring: view.counts.stillFiring,
      resolved: view.counts.resolved,
      changes: view.alerts.map((a) => a.data),
      ...(view.evidence ? { evidence: { key: view.evidence.key, uri: view.evidence.uri } } : {}),
    },
  };
}
