/**
 * Figures + highlights → DigestView (what the template shows, all plain text) and the chart specs the caller renders
 * and attaches. Formatting only: every number was computed and rounded in figures.ts.
 */
import {
  ACTIVITY_METRICS,
  type ActivityMetric,
  type DigestFigures,
  type MetricFigure,
  type ProductFigures,
  RETENTION_HEADLINE_WEEK,
} from './figures.ts';
import { formatCount, formatPercent, formatSignedPercent } from './format.ts';
import { COHORT_WEEKS } from './plan.ts';
import { type ChartRequest, productCharts } from './view-charts.ts';
import type { DigestView, KpiView, ProductView } from './view-model.ts';
import { productTables } from './view-tables.ts';
import { localDateTime, weekLabel } from './week.ts';

export type { ChartRequest } from './view-charts.ts';

export interface BuildViewOptions {
  title: string;
  /** "Data incomplete: …" when the digest is forced through a failed guard; null otherwise. */
  banner?: string | null;
  viewInBrowserUrl?: string | null;
  /** When the digest was generated, and the zone to state it in (the schedule's). */
  generatedAt: Date;
  timeZone: string;
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

function kpis(p: ProductFigures): KpiView[] {
  const out: KpiView[] = [];
  const activity = p.activity;
  if (activity) out.push(...ACTIVITY_METRICS.map((m) => kpiOf(m, activity[m])));
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

function productView(p: ProductFigures, charts: ChartRequest[]): ProductView {
  const c = productCharts(p);
  charts.push(...c.requests);
  return {
    id: p.productId,
    name: p.name,
    isTotal: p.isTotal,
    kpis: kpis(p),
    charts: c.views,
    tables: productTables(p),
  };
}

export function buildDigestView(figures: DigestFigures, highlights: string[], opts: BuildViewOptions): BuiltDigest {
  const charts: ChartRequest[] = [];
  // The total first: it is what a reader of a multi-product digest looks at before the details.
  const sections = [...(figures.total ? [figures.total] : []), ...figures.products];
  const products = sections.map((p) => productView(p, charts));
  const generated = localDateTime(opts.generatedAt, opts.timeZone);
  return {
    view: {
      title: opts.title,
      isoWeek: figures.isoWeek,
      weekLabel: weekLabel({ isoWeek: figures.isoWeek, start: figures.start, stop: figures.stop }),
      banner: opts.banner ?? null,
      highlights: [...highlights],
      products,
      viewInBrowserUrl: opts.viewInBrowserUrl ?? null,
      footer: `Generated ${generated.date} ${generated.time} ${opts.timeZone} by Pulse`,
    },
    charts,
  };
}
