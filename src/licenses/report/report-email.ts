/**
 * The weekly license registry report email: HTML from the compiled templates/license-report.mjml (escaping
 * templater) and a plain-text part with the same figures. One card for all products, then one per product; each
 * card groups its figures (needs action, trials, registry and status, license types) with last week's change as an
 * arrow and a signed number, never colour alone.
 */

import { loadTemplate } from '../../core/render/compiled-templates.ts';
import type { RenderedEmail } from '../../core/render/rendered-email.ts';
import type { FigureRow } from './report-figures.ts';

export interface LicenseReportSection {
  /** "All products", or the product's name. */
  name: string;
  isTotal: boolean;
  /** "12345678901 · 2,312 keys · snapshot 2026-11-22" */
  detail: string;
  rows: FigureRow[];
}

export interface LicenseReportView {
  title: string;
  /** "Week 47 · 16–22 Nov 2026" */
  weekLabel: string;
  /** Sentences above the figures: how the figures were counted, what is missing. */
  notes: string[];
  sections: LicenseReportSection[];
  viewInBrowserUrl: string | null;
  footer: string;
}

const GROUPS: { group: FigureRow['group'][]; title: string }[] = [
  { group: ['registry', 'action', 'expiring'], title: 'Overview' },
  { group: ['trials'], title: 'Trials' },
  { group: ['status'], title: 'Keys by status flag' },
  { group: ['type'], title: 'Keys by license type' },
];

const COUNT = new Intl.NumberFormat('en-US');
const count = (n: number | null) => (n === null ? '–' : COUNT.format(n));

/** `▲ +3`, `▼ −2`, `▬ 0`; `–` when last week is unknown. */
export function changeText(row: Pick<FigureRow, 'value' | 'previous'>): string {
  if (row.value === null || row.previous === null) return '–';
  const d = row.value - row.previous;
  if (d === 0) return '▬ 0';
  return d > 0 ? `▲ +${COUNT.format(d)}` : `▼ −${COUNT.format(-d)}`;
}

function groupsOf(rows: FigureRow[]) {
  return GROUPS.map((g) => ({
    title: g.title,
    rows: rows
      .filter((r) => g.group.includes(r.group))
      .map((r) => ({
        label: r.label,
        value: count(r.value),
        change: changeText(r),
        sub: r.id.startsWith('revenueLeaks.') && r.id !== 'revenueLeaks.total',
      })),
  })).filter((g) => g.rows.length > 0);
}

export function renderLicenseReportEmail(view: LicenseReportView, compiledHtml?: string): RenderedEmail {
  const total = view.sections.find((s) => s.isTotal) ?? view.sections[0];
  const headline = total?.rows.find((r) => r.id === 'expiring.within30');
  const html = loadTemplate('license-report', compiledHtml).render({
    title: view.title,
    weekLabel: view.weekLabel,
    preview: headline ? `${count(headline.value)} keys expire within 30 days` : view.title,
    notes: view.notes,
    sections: view.sections.map((s) => ({ ...s, groups: groupsOf(s.rows) })),
    viewInBrowserUrl: view.viewInBrowserUrl,
    footer: view.footer,
  });
  return { html, text: licenseReportText(view) };
}

/** The plain-text part: the same figures, one per line, change in brackets. */
export function licenseReportText(view: LicenseReportView): string {
  const lines = [view.title, view.weekLabel, ''];
  for (const n of view.notes) lines.push(n);
  if (view.notes.length > 0) lines.push('');
  for (const s of view.sections) {
    lines.push(`== ${s.name} ==`, s.detail, '');
    for (const g of groupsOf(s.rows)) {
      lines.push(`${g.title}:`);
      for (const r of g.rows)
        lines.push(
          `  ${r.sub ? '  ' : ''}${r.label}: ${r.value}${r.change === '–' ? '' : ` (${r.change} vs last week)`}`,
        );
      lines.push('');
    }
  }
  if (view.viewInBrowserUrl) lines.push(`View in browser: ${view.viewInBrowserUrl}`, '');
  lines.push(view.footer);
  return `${lines.join('\n')}\n`;
}
