/**
 * A rule's figures per period, from the answers of the run's calls (plan-calls.ts): one series per product, or per
 * segment value when the rule is segmented (the `limit` values with the largest figures over the whole range).
 */
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import type { Point } from './conditions.ts';
import type { RuleSource } from './plan-calls.ts';

export interface Series {
  ruleId: string;
  productId: string;
  /** The segment value, or null for the product's whole figure. */
  segment: string | null;
  /** Every period of the call's range, oldest first (the service sends every period, zeros included). */
  points: Point[];
}

type Counts = Partial<Record<'new' | 'active' | 'lost', number>>;

/** The `result` member of each call's answer, by call key. */
export type Answers = ReadonlyMap<string, unknown>;

export function seriesOf(rule: UsageAlertRule, source: RuleSource, answers: Answers): Series[] {
  const result = answers.get(source.call);
  const base = { ruleId: rule.id, productId: source.productId };
  const m = rule.metric;
  if (m.kind === 'eventCount') {
    const byPeriod = (result ?? {}) as Record<string, { value: number }[]>;
    const points = sortedPeriods(byPeriod).map((period) => {
      const value = byPeriod[period]?.[source.selector ?? 0]?.value ?? 0;
      return { period, value, volume: value };
    });
    return [{ ...base, segment: null, points }];
  }
  if (m.kind === 'segmentShare') {
    const segmented = (result ?? {}) as Record<string, Record<string, Counts>>;
    const totals = (answers.get(source.totals ?? '') ?? {}) as Record<string, Counts>;
    const points = sortedPeriods(totals).map((period) => {
      const all = totals[period]?.active ?? 0;
      const part = segmented[period]?.[m.value]?.active ?? 0;
      return { period, value: all === 0 ? 0 : round1((part / all) * 100), volume: all };
    });
    return [{ ...base, segment: m.value, points }];
  }
  const status = m.status;
  if (!rule.segment) {
    const byPeriod = (result ?? {}) as Record<string, Counts>;
    const points = sortedPeriods(byPeriod).map((period) => {
      const value = byPeriod[period]?.[status] ?? 0;
      return { period, value, volume: value };
    });
    return [{ ...base, segment: null, points }];
  }
  const byPeriod = (result ?? {}) as Record<string, Record<string, Counts>>;
  const periods = sortedPeriods(byPeriod);
  const sums = new Map<string, number>();
  for (const p of periods)
    for (const [label, c] of Object.entries(byPeriod[p] ?? {}))
      sums.set(label, (sums.get(label) ?? 0) + (c[status] ?? 0));
  const top = [...sums]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, rule.segment.limit)
    .map(([label]) => label);
  return top.map((segment) => ({
    ...base,
    segment,
    points: periods.map((period) => {
      const value = byPeriod[period]?.[segment]?.[status] ?? 0;
      return { period, value, volume: value };
    }),
  }));
}

const sortedPeriods = (byPeriod: Record<string, unknown>): string[] => Object.keys(byPeriod).sort();
const round1 = (n: number): number => Math.round(n * 10) / 10;
