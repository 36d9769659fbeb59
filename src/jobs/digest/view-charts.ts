/**
 * The charts of a product section: the ChartView the template shows (cid, title, alt with the headline number) and
 * the spec the caller renders to the PNG attached under that cid. Content ids are `<chart>-<productId>.png`, so the
 * same digest always names its images the same way. A chart with nothing but zeros is left out (its table says so)
 * rather than sent as an empty picture, which the blank-chart guard would hold.
 */
import type { ChartSpec } from '../../charts/index.ts';
import { type ProductFigures, RETENTION_HEADLINE_WEEK } from './figures.ts';
import { countryName, formatCount, formatDecimal, formatPercent, formatSignedPercent } from './format.ts';
import { COHORT_WEEKS } from './plan.ts';
import type { ChartView } from './view-model.ts';

/** A chart to render: attach `renderChart(spec)` as `cid`. */
export interface ChartRequest {
  cid: string;
  spec: ChartSpec;
}

export interface ProductCharts {
  views: ChartView[];
  requests: ChartRequest[];
}

const WIDTH = 560;
const HEIGHT = 160;
const ROW_HEIGHT = 24;
const MAX_ROWS = 10;

const hasData = (values: readonly number[]) => values.some((v) => v !== 0);

export function productCharts(p: ProductFigures): ProductCharts {
  const out: ProductCharts = { views: [], requests: [] };
  const add = (name: string, title: string, alt: string, spec: ChartSpec & { width: number; height: number }) => {
    const cid = `${name}-${p.productId}.png`;
    out.views.push({ cid, title, alt, width: spec.width, height: spec.height });
    out.requests.push({ cid, spec });
  };
  const frame = { width: WIDTH, height: HEIGHT };

  const a = p.activity;
  if (a) {
    const active = a.series.map((w) => w.active);
    const change = a.active.changePercent === null ? '' : ` (${formatSignedPercent(a.active.changePercent)})`;
    if (hasData(active))
      add(
        'active',
        'Active clients per week',
        `Active clients per week, last ${active.length} weeks; this week ${formatCount(a.active.value)}${change}`,
        { kind: 'bars', values: active, highlightLast: true, ...frame },
      );
    const added = a.series.map((w) => w.new);
    const lost = a.series.map((w) => w.lost);
    if (hasData(added) || hasData(lost))
      add(
        'new-lost',
        'New and lost clients per week',
        `New and lost clients per week; this week ${formatCount(a.new.value)} new, ${formatCount(a.lost.value)} lost`,
        { kind: 'line', series: [{ values: added }, { values: lost }], ...frame },
      );
  }

  const r = p.retention;
  if (r && hasData(r.points.map((pt) => pt.engaged + pt.lost))) {
    const headline = r.headline === null ? '' : `; after ${RETENTION_HEADLINE_WEEK} weeks ${formatPercent(r.headline)}`;
    add(
      'retention',
      'Install cohorts still engaged, by weeks since install',
      `Share of clients installed in the last ${COHORT_WEEKS} weeks still engaged, by weeks since install${headline}`,
      { kind: 'line', series: [{ values: r.points.map((pt) => pt.engagedPercent), area: true }], ...frame },
    );
  }

  const u = p.usage;
  if (u && hasData(u.activeDays.map((b) => b.count))) {
    const avg = u.averageActiveDays === null ? '' : `, ${formatDecimal(u.averageActiveDays)} active days on average`;
    add(
      'active-days',
      'Active clients by active days this week',
      `Active clients by active days this week; ${formatCount(u.users)} clients${avg}`,
      { kind: 'histogram', values: u.activeDays.map((b) => b.count), ...frame },
    );
  }

  for (const [name, title, share, label] of [
    ['versions', 'Active clients by version', p.versions, (v: string) => `version ${v}`],
    ['countries', 'Active clients by country', p.countries, countryName],
  ] as const) {
    const rows = share?.rows.slice(0, MAX_ROWS) ?? [];
    const top = rows[0];
    if (!top || !hasData(rows.map((row) => row.active))) continue;
    add(
      name,
      title,
      `${title}; ${label(top.label)} leads with ${formatCount(top.active)} (${formatPercent(top.percent)})`,
      {
        kind: 'hbars',
        values: rows.map((row) => row.active),
        rowHeight: ROW_HEIGHT,
        width: WIDTH,
        height: rows.length * ROW_HEIGHT,
      },
    );
  }
  return out;
}
