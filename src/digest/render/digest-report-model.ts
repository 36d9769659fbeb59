/**
 * DigestView → the data templates/digest-report.html reads: the full report page ("view in browser", archived with
 * the digest), which shows everything — every "what changed" sentence, the headline figures of every product, then
 * per product (and for all products) its figures, every chart and every table, each under its anchor.
 *
 * Presentational choices that depend on values (trend arrow, word and tone class, numeric alignment, whether a chart
 * has its image) are made here, from constants only; the colours themselves live in the page's stylesheet, by tone
 * class, so dark mode can brighten them. Charts are inlined as `data:image/png;base64,…`: the page is one file.
 */
import type {
  ChartView,
  DigestView,
  HeadlineCell,
  HeadlineRow,
  KpiView,
  ProductView,
  TableView,
} from '../view-model.ts';
import { type Tone, trendOf as trend } from './trend.ts';

function kpiModel(kpi: KpiView) {
  // "+12.5% vs last week · +3.1% vs 4-week avg" reads as two short lines in a narrow card.
  return { label: kpi.label, value: kpi.value, deltas: kpi.delta.split(' · ').filter(Boolean), ...trend(kpi) };
}

/** A headline figure; "n/a" (no previous week) gets no arrow or word, an absent figure a dash. */
function cellModel(cell: HeadlineCell | null) {
  if (cell === null) return { value: '—', change: '', arrow: '', word: '', tone: 'neutral' as Tone };
  if (cell.change === 'n/a') return { value: cell.value, change: cell.change, arrow: '', word: '', tone: 'neutral' };
  return { value: cell.value, change: cell.change, ...trend(cell) };
}

const headlineRowModel = (row: HeadlineRow) => ({
  name: row.name,
  anchor: row.anchor,
  isTotal: row.isTotal,
  cells: row.cells.map(cellModel),
});

const dimension = (n: number) => Math.max(1, Math.round(Number.isFinite(n) ? n : 1));

/** The chart inline, at its CSS size; without its image, its title and alt text stand in for it. */
function chartModel(chart: ChartView, images: ReadonlyMap<string, Uint8Array>) {
  const png = images.get(chart.cid);
  return {
    title: chart.title,
    alt: chart.alt,
    src: png && png.length > 0 ? `data:image/png;base64,${Buffer.from(png).toString('base64')}` : null,
    width: dimension(chart.width),
    height: dimension(chart.height),
  };
}

function tableModel(table: TableView) {
  // Numeric columns right-aligned on one line; text cells wrap anywhere (the stylesheet), so 375 px holds.
  const cell = (text: string, i: number) => ({ text, num: table.align[i] === 'right' });
  return {
    id: table.id,
    title: table.title,
    emptyText: table.emptyText,
    /** Two or more text columns (exceptions, events) take the page's whole width; the rest sit two abreast. */
    wide: table.align.filter((a) => a !== 'right').length > 1,
    columns: table.columns.map(cell),
    rows: table.rows.map((row) => ({ cells: row.map(cell) })),
  };
}

const productModel = (product: ProductView, images: ReadonlyMap<string, Uint8Array>) => ({
  name: product.name,
  anchor: product.anchor,
  kpis: product.kpis.map(kpiModel),
  notable: product.notable,
  topException: product.topException,
  charts: product.charts.map((c) => chartModel(c, images)),
  tables: product.tables.map(tableModel),
});

export function digestReportModel(view: DigestView, images: ReadonlyMap<string, Uint8Array>) {
  return {
    pageTitle: `${view.title} · ${view.weekLabel}`,
    title: view.title,
    weekLabel: view.weekLabel,
    footer: view.footer,
    banner: view.banner,
    highlights: view.highlights,
    headline:
      view.headline.rows.length === 0
        ? null
        : { columns: view.headline.columns, rows: view.headline.rows.map(headlineRowModel) },
    products: view.products.map((p) => productModel(p, images)),
  };
}
