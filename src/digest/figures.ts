/**
 * Figures: the numbers a digest states, computed from DigestData only (pure and deterministic). Every percentage is
 * rounded once, here, half away from zero to one decimal; views and sentences format these values and never
 * recompute them, so the email, the highlights and the archived figures always agree.
 */
import type { Bin, DigestData, EventUse, ExceptionGroup, ProductData, SegmentWeeks, WeekCounts } from './data.ts';
import { mergeProducts, TOTAL_ID } from './merge.ts';

export interface MetricFigure {
  value: number;
  /** Last week's value (null: no such week in the series). */
  previous: number | null;
  /** Week-over-week change in % (null: no previous week, or it was 0). */
  changePercent: number | null;
  /** Mean of the 4 weeks before this one, rounded to 1 decimal (null: fewer than 4 such weeks). */
  average4: number | null;
  /** Change against that mean in % (null: no mean, or it was 0). */
  vsAverage4Percent: number | null;
}

export const ACTIVITY_METRICS = ['new', 'active', 'lost'] as const;
export type ActivityMetric = (typeof ACTIVITY_METRICS)[number];

export interface ActivityFigures extends Record<ActivityMetric, MetricFigure> {
  /** The digest week and the weeks before it, oldest first (the digest week is last). */
  series: WeekCounts[];
}

export interface RetentionFigures {
  /** Per week since install: cohort members still engaged, in % of those counted then. */
  points: { period: number; engaged: number; lost: number; engagedPercent: number }[];
  /** `engagedPercent` at RETENTION_HEADLINE_WEEK (null: the cohort is not that old yet). */
  headline: number | null;
}

export interface ChurnFigures {
  /** Clients declared lost in the week (the sum of the days histogram). */
  lostInWeek: number | null;
  days: Bin[] | null;
  sessions: Bin[] | null;
  runtime: Bin[] | null;
}

export interface UsageFigures {
  activeDays: Bin[];
  sessions: Bin[];
  runtime: Bin[];
  /** Clients active in the week. */
  users: number;
  /** Mean active days per active client, 1 decimal (null: no users or non-numeric bins). */
  averageActiveDays: number | null;
}

export interface ShareRow {
  label: string;
  active: number;
  /** Share of the week's active clients in % (1 decimal). */
  percent: number;
  /** The same share last week (null: not present last week). */
  previousPercent: number | null;
}

export interface ShareFigures {
  rows: ShareRow[];
  leader: string | null;
  previousLeader: string | null;
}

export interface ExceptionRow extends ExceptionGroup {
  /** Occurrences last week (null: last week's lines were not fetched). */
  previousCount: number | null;
}

export interface ExceptionFigures {
  top: ExceptionRow[];
  /** Exception lines of the week (all groups). */
  total: number;
  leader: ExceptionGroup | null;
  previousLeader: ExceptionGroup | null;
  /** Whether last week's lines were fetched in full (else there is nothing to compare with). */
  previousWeekCovered: boolean;
  coversWeek: boolean;
  oldestLine: string | null;
}

export interface ProductFigures {
  productId: string;
  name: string;
  isTotal: boolean;
  activity: ActivityFigures | null;
  retention: RetentionFigures | null;
  churn: ChurnFigures | null;
  usage: UsageFigures | null;
  topEvents: EventUse[] | null;
  versions: ShareFigures | null;
  countries: ShareFigures | null;
  exceptions: ExceptionFigures | null;
}

export interface DigestFigures {
  isoWeek: string;
  start: string;
  stop: string;
  products: ProductFigures[];
  /** "All products" when the digest covers more than one product. */
  total: ProductFigures | null;
}

export const RETENTION_HEADLINE_WEEK = 8;
export const TOP_COUNTRIES = 10;
export const TOP_EXCEPTIONS = 5;
export const TOTAL_NAME = 'All products';

/** Half away from zero to `digits` decimals (Math.round alone rounds -2.5 up to -2); never -0. */
export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  const r = (Math.sign(x) * Math.round(Math.abs(x) * f + 1e-9)) / f;
  return r === 0 ? 0 : r;
}

export const percentChange = (value: number, base: number | null): number | null =>
  base === null || base === 0 ? null : round(((value - base) / base) * 100);

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export function metricFigure(values: number[]): MetricFigure {
  const value = values.at(-1) ?? 0;
  const previous = values.length >= 2 ? values.at(-2)! : null;
  const prior4 = values.slice(-5, -1);
  const mean = prior4.length === 4 ? sum(prior4) / 4 : null;
  return {
    value,
    previous,
    changePercent: percentChange(value, previous),
    average4: mean === null ? null : round(mean),
    vsAverage4Percent: percentChange(value, mean),
  };
}

function activityFigures(weekly: WeekCounts[], weekStart: string): ActivityFigures | null {
  // Only the series up to the digest week: its last entry is the week the figures are about.
  const series = weekly.filter((w) => w.weekStart <= weekStart);
  if (series.at(-1)?.weekStart !== weekStart) return null;
  const of = (m: ActivityMetric) => metricFigure(series.map((w) => w[m]));
  return { new: of('new'), active: of('active'), lost: of('lost'), series };
}

function retentionFigures(cohort: NonNullable<ProductData['cohort']>): RetentionFigures {
  const points = cohort.map((p) => ({
    ...p,
    engagedPercent: p.engaged + p.lost === 0 ? 0 : round((p.engaged / (p.engaged + p.lost)) * 100),
  }));
  return { points, headline: points.find((p) => p.period === RETENTION_HEADLINE_WEEK)?.engagedPercent ?? null };
}

function usageFigures(usage: NonNullable<ProductData['usage']>): UsageFigures {
  const users = sum(usage.activeDays.map((b) => b.count));
  const numeric = usage.activeDays.every((b) => /^\d+$/.test(b.label));
  const days = sum(usage.activeDays.map((b) => Number(b.label) * b.count));
  return { ...usage, users, averageActiveDays: users > 0 && numeric ? round(days / users) : null };
}

function shareFigures(weeks: SegmentWeeks, limit: number): ShareFigures {
  const totalNow = sum(weeks.week.map((s) => s.active));
  const totalBefore = sum(weeks.previousWeek.map((s) => s.active));
  const before = new Map(weeks.previousWeek.map((s) => [s.label, s.active]));
  const share = (n: number, of: number) => (of === 0 ? 0 : round((n / of) * 100));
  const rows = weeks.week.slice(0, limit).map((s) => {
    const prev = before.get(s.label);
    return {
      ...s,
      percent: share(s.active, totalNow),
      previousPercent: prev === undefined ? null : share(prev, totalBefore),
    };
  });
  return { rows, leader: weeks.week[0]?.label ?? null, previousLeader: weeks.previousWeek[0]?.label ?? null };
}

function exceptionFigures(e: NonNullable<ProductData['exceptions']>): ExceptionFigures {
  const key = (g: ExceptionGroup) => `${g.type}\n${g.message}`;
  const before = new Map(e.previousWeek?.map((g) => [key(g), g.count]));
  return {
    top: e.week
      .slice(0, TOP_EXCEPTIONS)
      .map((g) => ({ ...g, previousCount: e.previousWeek ? (before.get(key(g)) ?? 0) : null })),
    total: sum(e.week.map((g) => g.count)),
    leader: e.week[0] ?? null,
    previousLeader: e.previousWeek?.[0] ?? null,
    previousWeekCovered: e.previousWeek !== null,
    coversWeek: e.coversWeek,
    oldestLine: e.oldestLine,
  };
}

export function productFigures(data: ProductData, name: string, weekStart: string): ProductFigures {
  const h = data.churnHistograms;
  return {
    productId: data.productId,
    name,
    isTotal: data.productId === TOTAL_ID,
    activity: data.weekly ? activityFigures(data.weekly, weekStart) : null,
    retention: data.cohort ? retentionFigures(data.cohort) : null,
    churn: h
      ? {
          lostInWeek: h.days ? sum(h.days.map((b) => b.count)) : null,
          days: h.days ?? null,
          sessions: h.sessions ?? null,
          runtime: h.runtime ?? null,
        }
      : null,
    usage: data.usage ? usageFigures(data.usage) : null,
    topEvents: data.topEvents ?? null,
    versions: data.versions ? shareFigures(data.versions, Number.POSITIVE_INFINITY) : null,
    countries: data.countries ? shareFigures(data.countries, TOP_COUNTRIES) : null,
    exceptions: data.exceptions ? exceptionFigures(data.exceptions) : null,
  };
}

export interface FigureOptions {
  /** Display names by product id (config `products[].name`); default "Product <id>". */
  names?: Record<string, string>;
}

export function computeFigures(data: DigestData, opts: FigureOptions = {}): DigestFigures {
  const nameOf = (id: string) => opts.names?.[id] ?? `Product ${id}`;
  const products = data.products.map((p) => productFigures(p, nameOf(p.productId), data.week.start));
  const total =
    data.products.length > 1 ? productFigures(mergeProducts(data.products), TOTAL_NAME, data.week.start) : null;
  return { isoWeek: data.week.isoWeek, start: data.week.start, stop: data.week.stop, products, total };
}
