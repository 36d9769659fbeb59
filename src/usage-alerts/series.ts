/**
 * A rule's figures per period, from the answers of the run's calls (plan-calls.ts): one series per product, or per
 * segment value when the rule is segmented (each period judges its `limit` values with the largest figures).
 */
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { addDays } from '../core/calendar.ts';
import type { Point } from './conditions.ts';
import { engagementPoint, sharePercent } from './engagement-figures.ts';
import type { ExceptionDays } from './exception-counts.ts';
import { periodOf, periodStop } from './periods.ts';
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
  if (m.kind === 'exceptionCount')
    return [{ ...base, segment: null, points: exceptionPoints(rule, result as ExceptionDays | undefined) }];
  if (m.kind === 'engagement') {
    const periods = Object.keys(source.periods ?? {}).sort();
    const points = periods.map((period) => engagementPoint(m, period, answers.get(source.periods![period]!)));
    return [{ ...base, segment: null, points }];
  }
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
      return { period, value: sharePercent(part, all), volume: all };
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
  // The values judged in a period are its `limit` largest, by that period's figures alone: which values a period
  // judges never depends on the range a run asked for, so a backtest and the live run judge the same ones.
  const judgedIn = new Map<string, Set<string>>();
  for (const p of periods) {
    const ranked = Object.entries(byPeriod[p] ?? {})
      .map(([label, c]) => [label, c[status] ?? 0] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, rule.segment.limit);
    judgedIn.set(p, new Set(ranked.map(([label]) => label)));
  }
  const labels = [...new Set(periods.flatMap((p) => [...judgedIn.get(p)!]))].sort();
  return labels.map((segment) => ({
    ...base,
    segment,
    points: periods.map((period) => {
      const value = byPeriod[period]?.[segment]?.[status] ?? 0;
      return {
        period,
        value,
        volume: value,
        ...(judgedIn.get(period)!.has(segment) ? {} : { outsideLimit: true as const }),
      };
    }),
  }));
}

const sortedPeriods = (byPeriod: Record<string, unknown>): string[] => Object.keys(byPeriod).sort();

/**
 * An exception rule's count per period: the occurrences of its type on the period's days. A period with a day
 * without a figure has none (exception-counts.ts says why); a period the answer covers only in part (its days were
 * fetched for another rule's shorter periods) is left out.
 */
function exceptionPoints(rule: UsageAlertRule, days: ExceptionDays | undefined): Point[] {
  const m = rule.metric as Extract<UsageAlertRule['metric'], { kind: 'exceptionCount' }>;
  const unit = rule.period.unit;
  const pattern = m.exception.match === 'regex' ? new RegExp(m.exception.type) : undefined;
  const matches = (type: string) => (pattern ? pattern.test(type) : type === m.exception.type);
  const known = Object.keys({ ...days?.counts, ...days?.missing }).sort();
  const points: Point[] = [];
  for (const period of [...new Set(known.map((d) => periodOf(d, unit)))]) {
    let value = 0;
    let missing: string | undefined;
    let partial = false;
    for (let day = period; day <= periodStop(period, unit); day = addDays(day, 1)) {
      const counts = days?.counts[day];
      const why = days?.missing[day];
      if (counts === undefined && why === undefined) partial = true;
      missing ??= why;
      for (const [type, n] of Object.entries(counts ?? {})) if (matches(type)) value += n;
    }
    if (partial) continue;
    points.push(missing === undefined ? { period, value, volume: value } : { period, value: 0, volume: 0, missing });
  }
  return points;
}

/**
 * The keys of a rule's series, when they are known before its figures: one per product (a share's named by its
 * value), as seriesOf makes them. A segmented rule's values come with the answers: undefined.
 */
export function seriesKeysOf(rule: UsageAlertRule): string[] | undefined {
  if (rule.segment) return undefined;
  const m = rule.metric;
  const segment = m.kind === 'segmentShare' ? m.value : null;
  return rule.productIds.map((productId) => seriesKey({ ruleId: rule.id, productId, segment }));
}

/** What names a series' state and its ledger keys: rule, product and segment (`-` for none), percent-encoded. */
export const seriesKey = (s: { ruleId: string; productId: string; segment: string | null }): string =>
  `${s.ruleId}#${s.productId}#${s.segment === null ? '-' : encodeURIComponent(s.segment)}`;
