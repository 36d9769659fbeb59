/**
 * The charts of a product section: the ChartView the email and the full report show (cid, title, alt text with the
 * numbers) and the spec the caller renders to the PNG attached under that cid. Content ids are
 * `<chart>-<productId>.png`, so the same digest always names its images the same way. A chart with nothing but zeros
 * is left out (its table says so) rather than sent as an empty picture, which the blank-chart guard would hold.
 */
import type { ChartSpec } from '../charts/index.ts';
import { shortDate } from '../core/calendar.ts';
import type { ProductFigures } from './figures.ts';
import { countryName, formatCount, formatPercent, formatSignedPercent } from './format.ts';
import type { ChartView } from './view-model.ts';

/** A chart to render: attach `renderChart(spec)` as `cid`. */
export interface ChartRequest {
  cid: string;
  spec: ChartSpec;
}

export interface ProductCharts {
  views: ChartView[];
  requests: ChartRequest[];
  /** The one or two the email shows: the weekly activity when there is any, else the first ones. */
  emailCharts: string[];
}

/** The email's content width (600 px minus its padding): charts are drawn for it and shrink on phones. */
export const CHART_WIDTH = 552;
const HEIGHT = 220;
/** Title band plus one row per category. */
const rowsHeight = (rows: number) => 52 + rows * 28;
const MAX_ROWS = 10;
const EMAIL_CHARTS = 2;

const hasData = (values: readonly number[]) => values.some((v) => v !== 0);
/** "21 Sep 3,980; 28 Sep 4,012; …" — every point, so the alt text alone carries the chart. */
const pairs = (labels: readonly string[], values: readonly string[]) =>
  labels.map((label, i) => `${label} ${values[i]}`).join('; ');

export function productCharts(p: ProductFigures): ProductCharts {
  const out: ProductCharts = { views: [], requests: [], emailCharts: [] };
  const add = (name: string, alt: string, spec: ChartSpec & { height: number }) => {
    const cid = `${name}-${p.productId}.png`;
    out.views.push({ cid, title: spec.title, alt, width: CHART_WIDTH, height: spec.height });
    out.requests.push({ cid, spec: { ...spec, width: CHART_WIDTH } });
  };

  const a = p.activity;
  if (a) {
    const weeks = a.series.map((w) => shortDate(w.weekStart));
    const active = a.series.map((w) => w.active);
    const change = a.active.changePercent === null ? '' : `, ${formatSignedPercent(a.active.changePercent)}`;
    const title = 'Active clients per week';
    if (hasData(active))
      add('active', `${title}: ${pairs(weeks, active.map(formatCount))} (this week${change})`, {
        kind: 'bars',
        title,
        categories: weeks,
        values: active,
        highlightLast: true,
        height: HEIGHT,
      });
    const added = a.series.map((w) => w.new);
    const lost = a.series.map((w) => w.lost);
    const lines = 'New and lost clients per week';
    if (hasData(added) || hasData(lost))
      add(
        'new-lost',
        `${lines}. New: ${pairs(weeks, added.map(formatCount))}. Lost: ${pairs(weeks, lost.map(formatCount))}.`,
        {
          kind: 'lines',
          title: lines,
          categories: weeks,
          series: [
            { name: 'New', values: added },
            { name: 'Lost', values: lost },
          ],
          height: HEIGHT,
        },
      );
  }
  out.emailCharts = out.views.slice(0, EMAIL_CHARTS).map((v) => v.cid);

  const r = p.retention;
  if (r && hasData(r.points.map((pt) => pt.engaged + pt.lost))) {
    const periods = r.points.map((pt) => `${pt.period} wk`);
    const title = 'Install cohorts still engaged, by weeks since install';
    add(
      'retention',
      `${title}: ${pairs(
        periods,
        r.points.map((pt) => formatPercent(pt.engagedPercent)),
      )}`,
      {
        kind: 'lines',
        title,
        categories: periods,
        series: [{ name: 'Still engaged', values: r.points.map((pt) => pt.engagedPercent), area: true }],
        format: 'percent',
        height: HEIGHT,
      },
    );
  }

  const u = p.usage;
  if (u && hasData(u.activeDays.map((b) => b.count))) {
    const title = 'Active clients by active days this week';
    const bins = u.activeDays.map((b) => b.label);
    add(
      'active-days',
      `${title}: ${pairs(
        bins.map((b) => `${b} days`),
        u.activeDays.map((b) => formatCount(b.count)),
      )}`,
      {
        kind: 'bars',
        title,
        categories: bins,
        values: u.activeDays.map((b) => b.count),
        height: HEIGHT,
      },
    );
  }

  for (const [name, title, share, label] of [
    ['versions', 'Active clients by version', p.versions, (v: string) => v],
    ['countries', 'Active clients by country', p.countries, countryName],
  ] as const) {
    const rows = share?.rows.slice(0, MAX_ROWS) ?? [];
    if (!hasData(rows.map((row) => row.active))) continue;
    const values = rows.map((row) => `${formatCount(row.active)} (${formatPercent(row.percent)})`);
    add(
      name,
      `${title}: ${pairs(
        rows.map((row) => label(row.label)),
        values,
      )}`,
      {
        kind: 'hbars',
        title,
        categories: rows.map((row) => label(row.label)),
        values: rows.map((row) => row.active),
        valueLabels: values,
        height: rowsHeight(rows.length),
      },
    );
  }
  if (out.emailCharts.length === 0) out.emailCharts = out.views.slice(0, EMAIL_CHARTS).map((v) => v.cid);
  return out;
}
