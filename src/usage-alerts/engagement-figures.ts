/**
 * An engagement rule's figure for one period, from that period's `usageDistribution` answer: the clients whose
 * sessions (or runtime) in the period fall in the rule's `atLeast` bin or a higher one, as a count or as a share of
 * the period's active clients (every client of the histogram: each active client is in exactly one bin). Bins are
 * read in bin order (`binEntries`), never by their position in the JSON. An answer without the rule's bin (the
 * service chose other bins) or without client counts gives the period no figure (conditions.ts `Point.missing`).
 */
import { binEntries } from '../client/index.ts';
import type { UsageMetric } from '../config/usage-alerts-schema.ts';
import type { Point } from './conditions.ts';

type EngagementMetric = Extract<UsageMetric, { kind: 'engagement' }>;

/** The `result` of a `usageDistribution` answer, as far as it is read here. */
type Distribution = Partial<Record<'sessions' | 'runtime', Record<string, { users?: number }>>>;

/** A share in %, rounded to one decimal (0 of nothing is 0). */
export const sharePercent = (part: number, all: number): number =>
  all === 0 ? 0 : Math.round((part / all) * 1000) / 10;

export function engagementPoint(metric: EngagementMetric, period: string, result: unknown): Point {
  const histogram = (result as Distribution | undefined)?.[metric.measure];
  const bins = binEntries(histogram ?? {});
  const from = bins.findIndex(([label]) => label === metric.atLeast);
  const noFigure = (missing: string): Point => ({ period, value: 0, volume: 0, missing });
  if (from < 0) return noFigure(`the ${metric.measure} histogram has no bin "${metric.atLeast}"`);
  if (bins.some(([, bin]) => typeof bin.users !== 'number'))
    return noFigure(`the ${metric.measure} histogram has a bin without a client count`);
  const sum = (entries: typeof bins) => entries.reduce((n, [, bin]) => n + bin.users!, 0);
  const part = sum(bins.slice(from));
  if (metric.as === 'clients') return { period, value: part, volume: part };
  const all = sum(bins);
  return { period, value: sharePercent(part, all), volume: all };
}
