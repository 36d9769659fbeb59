/**
 * The weekly license registry report as a channel message (src/core/channels/): the same view as its email — the
 * all-products overview first, then each product's key figures, with last week's change — the full report when a
 * person can open it, and for webhooks every product's figures as numbers.
 */
import type { ChannelFact, ChannelMessage } from '../../core/channels/channel-message.ts';
import { changeText, type LicenseReportView } from './report-email.ts';
import type { FigureRow } from './report-figures.ts';
import type { ProductReport } from './report-view.ts';

/** The figures a chat message shows of each product: what needs action and how the registry moved. */
const SHOWN_GROUPS: FigureRow['group'][] = ['registry', 'action', 'expiring', 'trials'];

export function licenseReportChannelMessage(
  view: LicenseReportView,
  products: ProductReport[],
  opts: { isoWeek: string; subject: string; now: Date },
): ChannelMessage {
  const [first, ...rest] = view.sections;
  const total = first?.isTotal ? first : undefined;
  const perProduct = total ? rest : view.sections;
  return {
    event: 'license.report',
    title: `${view.title} · ${view.weekLabel}`,
    summary: opts.subject,
    lines: view.notes,
    facts: factsOf(total?.rows ?? first?.rows ?? []),
    sections: perProduct.map((s) => ({ title: s.name, text: s.detail, facts: factsOf(s.rows) })),
    ...(view.viewInBrowserUrl ? { link: { label: 'Full report', url: view.viewInBrowserUrl } } : {}),
    occurredAt: opts.now.toISOString(),
    data: {
      isoWeek: opts.isoWeek,
      title: view.title,
      products: products.map((p) => ({
        productId: p.stored.productId,
        name: p.name,
        takenAt: p.stored.takenAt,
        figures: p.stored.figures,
        previous: p.previous ?? null,
      })),
      reportUrl: view.viewInBrowserUrl,
    },
  };
}

function factsOf(rows: FigureRow[]): ChannelFact[] {
  return rows
    .filter((r) => SHOWN_GROUPS.includes(r.group))
    .map((r) => {
      const change = changeText(r);
      const value = r.value === null ? '–' : r.value.toLocaleString('en-US');
      return { label: r.label, value: change === '–' ? value : `${value} (${change})` };
    });
}
