/**
 * The license alert email from a LicenseAlertView: HTML from the compiled templates/license-alert.mjml (filled by the
 * escaping templater) and the plain-text part from the same view. The view is plain text throughout; escaping is
 * the templater's job alone. A first run's summary (summary-view.ts) is the same email with its own title and intro
 * and a "what happens next" box: one template, so the Lambda's bundle and the key list never differ between them.
 */
import { loadTemplate } from '../../core/render/compiled-templates.ts';
import type { RenderedEmail } from '../../core/render/rendered-email.ts';

export interface LicenseAlertView {
  title: string;
  /** The recipient's local date, e.g. "Tuesday 24 Nov 2026". */
  dateLabel: string;
  intro: string;
  /** A first run's summary: what the recipient gets from now on; null in an alert email. */
  next: { title: string; text: string } | null;
  /** Alerts per stage ("By stage") and per label ("By label"), one line each. */
  summaries: { title: string; lines: { text: string; count: number }[] }[];
  groups: {
    title: string;
    rows: {
      licenseKey: string;
      productName: string;
      licenseType: string;
      /** "expires 2026-12-01 (in 7 days)". */
      expiryText: string;
      /** "3 clients seen in the last 30 days". */
      usageText: string;
      /** "▲ from 1", "▼ from 5", "= same as the 30 days before". */
      trendText: string;
      trend: 'up' | 'down' | 'flat';
      /** "12 clients reported the key · last seen 2026-11-19 · 2 over quota". */
      detailText: string;
      labels: { text: string; tone: 'bad' | 'good' | 'warn' | 'info' }[];
    }[];
  }[];
  /** Set when the email shows fewer keys than the CSV attachment holds. */
  moreText: string | null;
  footer: string;
}

const TONES = {
  bad: { bg: '#fde2e1', fg: '#8a1c14' },
  good: { bg: '#dcf3e4', fg: '#14532d' },
  warn: { bg: '#fff1c9', fg: '#5c3d00' },
  info: { bg: '#e2ecfb', fg: '#17407a' },
};
const TREND_COLORS = { up: '#1a7f37', down: '#b42318', flat: '#5b6472' };
/** The shared dark-mode classes (templates/partials/head.mjml): the light colours above are too dark on a dark card. */
const TREND_CLASSES = { up: 'pulse-good', down: 'pulse-bad', flat: 'pulse-neutral' };

export function renderLicenseAlertEmail(view: LicenseAlertView, compiledHtml?: string): RenderedEmail {
  const model = {
    title: view.title,
    weekLabel: view.dateLabel,
    preview: view.intro,
    intro: view.intro,
    next: view.next,
    summaries: view.summaries,
    groups: view.groups.map((g) => ({
      title: g.title,
      countText: `${g.rows.length} key${g.rows.length === 1 ? '' : 's'}`,
      rows: g.rows.map((r) => ({
        ...r,
        trendColor: TREND_COLORS[r.trend],
        trendClass: TREND_CLASSES[r.trend],
        labels: r.labels.map((l) => ({ text: l.text, ...TONES[l.tone] })),
      })),
    })),
    moreText: view.moreText,
    viewInBrowserUrl: null,
    footer: view.footer,
  };
  const html = loadTemplate('license-alert', compiledHtml).render(model);
  return { html, text: licenseAlertText(view) };
}

function licenseAlertText(view: LicenseAlertView): string {
  const lines = [view.title, view.dateLabel, '', view.intro, ''];
  if (view.next) lines.push(`${view.next.title}: ${view.next.text}`, '');
  if (view.moreText) lines.push(view.moreText, '');
  for (const s of view.summaries) {
    lines.push(`${s.title}:`);
    for (const l of s.lines) lines.push(`  ${l.text}: ${l.count}`);
  }
  for (const g of view.groups) {
    lines.push('', `== ${g.title} (${g.rows.length}) ==`);
    for (const r of g.rows) {
      lines.push(
        '',
        `* ${r.licenseKey}`,
        `  ${r.productName} · ${r.licenseType} · ${r.expiryText}`,
        `  ${r.usageText} ${r.trendText}`,
        `  ${r.detailText}`,
      );
      if (r.labels.length > 0) lines.push(`  [${r.labels.map((l) => l.text).join('] [')}]`);
    }
  }
  lines.push('', '--', view.footer, '');
  return lines.join('\n');
}
