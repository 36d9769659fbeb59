/**
 * DigestView → the data templates/digest.mjml reads. The templater has no logic, so everything presentational that
 * depends on values (trend arrow, its colour and word, zebra rows, alignment, chart sizes) is decided here, from
 * constants only: no service value ever reaches a style attribute.
 */
import type { ChartView, DigestView, KpiView, ProductView, TableView } from '../jobs/digest/view-model.ts';

/** The 600 px layout minus 2 × 24 px padding: the widest a chart can be without overflowing in Outlook. */
export const CONTENT_WIDTH = 552;

export const TREND_COLOURS = { good: '#1a7f37', bad: '#c4281c', neutral: '#5b6472' } as const;
const ZEBRA = { odd: '#ffffff', even: '#f4f6f9' } as const;

export const TREND_ARROWS: Record<KpiView['trend'], string> = { up: '▲', down: '▼', flat: '▬' };

/** The word next to the arrow, so good/bad never rests on colour alone. */
export function trendWord(kpi: Pick<KpiView, 'trend' | 'good'>): string {
  if (kpi.good === true) return 'better';
  if (kpi.good === false) return 'worse';
  return kpi.trend === 'flat' ? 'unchanged' : '';
}

function kpiModel(kpi: KpiView) {
  const tone = kpi.good === true ? 'good' : kpi.good === false ? 'bad' : 'neutral';
  return {
    label: kpi.label,
    value: kpi.value,
    delta: kpi.delta,
    arrow: TREND_ARROWS[kpi.trend],
    trendWord: trendWord(kpi),
    color: TREND_COLOURS[tone],
    /** Lets the dark-mode stylesheet brighten the colour without losing its meaning. */
    trendClass: `pulse-${tone}`,
  };
}

/** Charts wider than the content area are shown scaled down (Outlook ignores max-width and uses the attribute). */
function chartModel(chart: ChartView) {
  const width = Math.max(1, Math.min(Math.round(chart.width), CONTENT_WIDTH));
  const height = Math.max(1, Math.round((chart.height * width) / Math.max(1, chart.width)));
  return { title: chart.title, alt: chart.alt, src: `cid:${chart.cid}`, width, height, maxWidth: `${width}px` };
}

const cellAlign = (table: TableView, i: number) => (table.align[i] === 'right' ? 'right' : 'left');

function tableModel(table: TableView) {
  const cell = (text: string, i: number) => {
    const align = cellAlign(table, i);
    // Numbers stay on one line; text (exception messages, country names) may wrap anywhere so 375 px holds.
    return { text, align, wrap: align === 'right' ? 'nowrap' : 'normal' };
  };
  return {
    title: table.title,
    emptyText: table.emptyText,
    columns: table.columns.map(cell),
    rows: table.rows.map((row, r) => ({
      rowClass: r % 2 === 0 ? 'pulse-row' : 'pulse-zebra',
      bg: r % 2 === 0 ? ZEBRA.odd : ZEBRA.even,
      cells: row.map(cell),
    })),
  };
}

const productModel = (product: ProductView) => ({
  name: product.name,
  isTotal: product.isTotal,
  kpis: product.kpis.map(kpiModel),
  charts: product.charts.map(chartModel),
  tables: product.tables.map(tableModel),
});

export function digestModel(view: DigestView) {
  return {
    title: view.title,
    weekLabel: view.weekLabel,
    preview: view.banner ?? view.highlights[0] ?? view.weekLabel,
    banner: view.banner,
    highlights: view.highlights,
    products: view.products.map(productModel),
    viewInBrowserUrl: view.viewInBrowserUrl,
    footer: view.footer,
  };
}
