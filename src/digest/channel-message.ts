/**
 * The digest as a channel message (src/core/channels/): the same view model as its email — the "what changed"
 * sentences, the headline figures (all products, then each product), one chart and the full report when a person
 * can open them (an http(s) link: the archive's public base URL) — and, for webhooks, the figures as numbers.
 */

import type { DigestConfig } from '../config/schema.ts';
import type { ChannelFact, ChannelMessage } from '../core/channels/channel-message.ts';
import type { ProductFigures } from './figures.ts';
import type { PreparedDigest } from './prepare.ts';
import type { HeadlineRow } from './view-model.ts';

/** Sentences of "what changed" a channel message carries (the email shows as many). */
const HIGHLIGHTS = 5;

export interface DigestLinks {
  /** The full report, when people can open it. */
  report: string | null;
  /** The headline chart, when people can open it. */
  chart: { url: string; alt: string } | null;
}

export function digestChannelMessage(
  digest: DigestConfig,
  p: PreparedDigest,
  links: DigestLinks,
  now: Date,
): ChannelMessage {
  const { view } = p;
  const total = view.headline.rows.find((r) => r.isTotal) ?? view.headline.rows[0];
  const rows = view.headline.rows.filter((r) => r !== total);
  return {
    event: 'digest.sent',
    title: `${view.title} · ${view.weekLabel}`,
    // The lead sentence is the notification and the first line read; the bullets are the rest of what changed.
    summary: view.highlights[0] ?? `${view.title}: ${view.weekLabel}`,
    lines: [...(view.banner ? [view.banner] : []), ...view.highlights.slice(1, HIGHLIGHTS)],
    facts: total ? factsOf(view.headline.columns, total) : [],
    sections: rows.map((r) => ({ title: r.name, facts: factsOf(view.headline.columns, r) })),
    ...(links.chart ? { image: links.chart } : {}),
    ...(links.report ? { link: { label: 'Full report', url: links.report } } : {}),
    occurredAt: now.toISOString(),
    data: {
      digestId: digest.id,
      title: view.title,
      isoWeek: view.isoWeek,
      start: p.figures.start,
      stop: p.figures.stop,
      highlights: view.highlights,
      forced: view.banner !== null,
      products: [...(p.figures.total ? [p.figures.total] : []), ...p.figures.products].map(figuresOf),
      reportUrl: links.report,
    },
  };
}

function factsOf(columns: string[], row: HeadlineRow): ChannelFact[] {
  return row.cells.flatMap((cell, i) =>
    cell
      ? [{ label: columns[i] ?? '', value: cell.change === 'n/a' ? cell.value : `${cell.value} (${cell.change})` }]
      : [],
  );
}

/** A product's headline figures for programs: counts and changes as numbers, null where unknown. */
function figuresOf(f: ProductFigures) {
  const metric = (m: 'new' | 'active' | 'lost') => {
    const x = f.activity?.[m];
    return x ? { value: x.value, previous: x.previous, changePercent: x.changePercent } : null;
  };
  return {
    productId: f.isTotal ? null : f.productId,
    name: f.name,
    isTotal: f.isTotal,
    activeClients: metric('active'),
    newClients: metric('new'),
    lostClients: metric('lost'),
    exceptions: f.exceptions?.total ?? null,
  };
}
