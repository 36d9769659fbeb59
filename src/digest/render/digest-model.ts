/**
 * DigestView → the data templates/digest.mjml reads: the email is the summary (the week, the first "what changed"
 * sentences, the headline figures of every product, then one compact block per product linking to its section of the
 * full report). The templater has no logic, so everything presentational that depends on values (trend arrow, its
 * colour and word, which charts, the links) is decided here, from constants only: no service value ever reaches a
 * style attribute.
 */

import { safeUrl } from '../../core/render/templater.ts';
import type { ChartView, DigestView, HeadlineCell, HeadlineRow, KpiView, ProductView } from '../view-model.ts';
import { TREND_COLOURS, trendOf } from './trend.ts';

/** The 600 px layout minus 2 × 24 px padding: the widest a chart can be without overflowing in Outlook. */
export const CONTENT_WIDTH = 552;
/** The email shows this many "what changed" sentences; the full report shows them all. */
export const EMAIL_HIGHLIGHTS = 5;

/** Arrow, word, colour and the class that lets the dark-mode stylesheet brighten the colour. */
function tone(t: Pick<KpiView, 'trend' | 'good'>) {
  const { arrow, word, tone } = trendOf(t);
  return { arrow, trendWord: word, color: TREND_COLOURS[tone], trendClass: `pulse-${tone}` };
}

function kpiModel(kpi: KpiView) {
  // "+12.5% vs last week · +3.1% vs 4-week avg" reads as two short lines in a narrow column.
  return { label: kpi.label, value: kpi.value, deltas: kpi.delta.split(' · '), ...tone(kpi) };
}

/** Charts wider than the content area are shown scaled down (Outlook ignores max-width and uses the attribute). */
function chartModel(chart: ChartView) {
  const width = Math.max(1, Math.min(Math.round(chart.width), CONTENT_WIDTH));
  const height = Math.max(1, Math.round((chart.height * width) / Math.max(1, chart.width)));
  return { alt: chart.alt, src: `cid:${chart.cid}`, width, height, maxWidth: `${width}px` };
}

/** The full report's section for an anchor, or null when there is no report to link to. */
function sectionLink(reportUrl: string | null, anchor: string): string | null {
  if (reportUrl === null || safeUrl(reportUrl) === '#') return null;
  const url = new URL(reportUrl);
  url.hash = anchor;
  return url.href;
}

const NO_TREND = { arrow: '', trendWord: '', color: TREND_COLOURS.neutral, trendClass: 'pulse-neutral' };

/** No figure: a dash; no previous week to compare with: "n/a" alone, neither arrow nor word (nothing changed). */
const cellModel = (cell: HeadlineCell | null) =>
  cell === null
    ? { value: '—', change: '', ...NO_TREND }
    : { value: cell.value, change: cell.change, ...(cell.change === 'n/a' ? NO_TREND : tone(cell)) };

const headlineRowModel = (row: HeadlineRow, reportUrl: string | null) => ({
  name: row.name,
  link: sectionLink(reportUrl, row.anchor),
  isTotal: row.isTotal,
  cells: row.cells.map(cellModel),
});

function productModel(product: ProductView, reportUrl: string | null) {
  const charts = product.emailCharts.flatMap((cid) => product.charts.filter((c) => c.cid === cid));
  return {
    name: product.name,
    link: sectionLink(reportUrl, product.anchor),
    notable: product.notable,
    kpis: product.kpis.map(kpiModel),
    charts: charts.map(chartModel),
    topException: product.topException,
  };
}

export type DigestModel = ReturnType<typeof digestModel>;

export function digestModel(view: DigestView) {
  const reportUrl = view.viewInBrowserUrl;
  const more = Math.max(0, view.highlights.length - EMAIL_HIGHLIGHTS);
  return {
    title: view.title,
    weekLabel: view.weekLabel,
    preview: view.banner ?? view.highlights[0] ?? view.weekLabel,
    banner: view.banner,
    highlights: view.highlights.slice(0, EMAIL_HIGHLIGHTS),
    moreHighlights: more === 0 ? null : `${more} more ${more === 1 ? 'change' : 'changes'} in the full report`,
    headline: {
      columns: view.headline.columns,
      rows: view.headline.rows.map((row) => headlineRowModel(row, reportUrl)),
    },
    // The total's figures are the headline's first row; its tables live in the full report.
    products: view.products.filter((p) => !p.isTotal).map((p) => productModel(p, reportUrl)),
    viewInBrowserUrl: reportUrl,
    footer: view.footer,
  };
}
