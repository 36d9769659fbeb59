/**
 * Figures + highlights → DigestView (what the email and the full report show, all plain text) and the chart specs
 * the caller renders and attaches. Formatting only: every number was computed and rounded in figures.ts.
 */

import { localDateTime, weekLabel } from '../core/calendar.ts';
import { productAnchor } from '../core/digest-report.ts';
import {
  type ActivityMetric,
  type DigestFigures,
  type MetricFigure,
  type ProductFigures,
  RETENTION_HEADLINE_WEEK,
} from './figures.ts';
import { formatCount, formatPercent, formatSignedPercent, truncate } from './format.ts';
import { type HighlightOptions, notableOf } from './highlights.ts';
import { COHORT_WEEKS } from './plan.ts';
import { type ChartRequest, productCharts } from './view-charts.ts';
import type { DigestView, HeadlineCell, HeadlineRow, KpiView, ProductView } from './view-model.ts';
import { productTables } from './view-tables.ts';

export type { ChartRequest } from './view-charts.ts';

export interface BuildViewOptions {
  title: string;
  /** "Data incomplete: …" when the digest is forced through a failed guard; null otherwise. */
  banner?: string | null;
  viewInBrowserUrl?: string | null;
  /** When the digest was generated, and the zone to state it in (the schedule's). */
  generatedAt: Date;
  timeZone: string;
  /** What makes a change notable (the digest's thresholds), for each product's lead sentence. */
  notable: HighlightOptions;
}

export interface BuiltDigest {
  view: DigestView;
  /** Every chart the view references, by cid. */
  charts: ChartRequest[];
}

const KPI_LABEL: Record<ActivityMetric, string> = {
  new: 'New clients',
  active: 'Active clients',
  lost: 'Lost clients',
};

/** "+12.5% vs last week · +3.1% vs 4-week avg"; "n/a" where there is nothing to compare with. */
export function deltaText(f: MetricFigure): string {
  const pct = (p: number | null) => (p === null ? 'n/a' : formatSignedPercent(p));
  return `${pct(f.changePercent)} vs last week · ${pct(f.vsAverage4Percent)} vs 4-week avg`;
}

export function kpiOf(metric: ActivityMetric, f: MetricFigure): KpiView {
  const change = f.changePercent ?? 0;
  const trend = change > 0 ? 'up' : change < 0 ? 'down' : 'flat';
  // More lost clients is bad news; more new or active clients is good news.
  const good = trend === 'flat' ? null : (trend === 'up') === (metric !== 'lost');
  return { label: KPI_LABEL[metric], value: formatCount(f.value), delta: deltaText(f), trend, good };
}

/** Active first: the figure an executive reads first. */
const KPI_ORDER: readonly ActivityMetric[] = ['active', 'new', 'lost'];

function kpis(p: ProductFigures): KpiView[] {
  const out: KpiView[] = [];
  const activity = p.activity;
  if (activity) out.push(...KPI_ORDER.map((m) => kpiOf(m, activity[m])));
  if (p.retention?.headline != null)
    out.push({
      label: `Still engaged after ${RETENTION_HEADLINE_WEEK} weeks`,
      value: formatPercent(p.retention.headline),
      delta: `clients installed in the last ${COHORT_WEEKS} weeks`,
      trend: 'flat',
      good: null,
    });
  return out;
}

/** The section's anchor in the full report (a product's, shared with the jobs that link to it). */
export const anchorOf = (p: Pick<ProductFigures, 'productId' | 'isTotal'>): string =>
  p.isTotal ? 'all-products' : productAnchor(p.productId);

/** "TypeError: x is undefined — 312 this week (last week 280)". */
function topException(p: ProductFigures): string | null {
  const top = p.exceptions?.top[0];
  if (!top) return null;
  const last = top.previousCount === null ? '' : ` (last week ${formatCount(top.previousCount)})`;
  const what = truncate(top.message ? `${top.type}: ${top.message}` : top.type, 140);
  return `${what} — ${formatCount(top.count)} this week${last}`;
}

function productView(p: ProductFigures, charts: ChartRequest[], opts: BuildViewOptions): ProductView {
  const c = productCharts(p);
  charts.push(...c.requests);
  const anchor = anchorOf(p);
  return {
    id: p.productId,
    name: p.name,
    anchor,
    isTotal: p.isTotal,
    kpis: kpis(p),
    charts: c.views,
    emailCharts: c.emailCharts,
    notable: notableOf(p, opts.notable),
    topException: topException(p),
    tables: productTables(p, anchor),
  };
}

const HEADLINE_METRICS = KPI_ORDER;

function headlineCell(metric: ActivityMetric, f: MetricFigure): HeadlineCell {
  const kpi = kpiOf(metric, f);
  const change = f.changePercent === null ? 'n/a' : formatSignedPercent(f.changePercent);
  return { value: kpi.value, change, trend: kpi.trend, good: kpi.good };
}

function headlineRow(p: ProductFigures): HeadlineRow {
  const activity = p.activity;
  return {
    name: p.name,
    anchor: anchorOf(p),
    isTotal: p.isTotal,
    cells: HEADLINE_METRICS.map((m) => (activity ? headlineCell(m, activity[m]) : null)),
  };
}

export function buildDigestView(figures: DigestFigures, highlights: string[], opts: BuildViewOptions): BuiltDigest {
  const charts: ChartRequest[] = [];
  // The total first: it is what a reader of a multi-product digest looks at before the details.
  const sections = [...(figures.total ? [figures.total] : []), ...figures.products];
  const products = sections.map((p) => productView(p, charts, opts));
  const generated = localDateTime(opts.generatedAt, opts.timeZone);
  return {
    view: {
      title: opts.title,
      isoWeek: figures.isoWeek,
      weekLabel: weekLabel({ isoWeek: figures.isoWeek, start: figures.start, stop: figures.stop }),
      banner: opts.banner ?? null,
      highlights: [...highlights],
      headline: { columns: HEADLINE_METRICS.map((m) => KPI_LABEL[m]), rows: sections.map(headlineRow) },
      products,
      viewInBrowserUrl: opts.viewInBrowserUrl ?? null,
      footer: `Generated ${generated.date} ${generated.time} ${opts.timeZone} by Pulse`,
    },
    charts,
  };
}
