/**
 * A rule's states over its periods, and the changes worth a message: `firing` when a series starts breaking its
 * condition (or, with `repeatEvery`, every so many periods while it still does) and `resolved` when it stops. The
 * state of each period is judged from the figures alone, so a rerun, a second runner and a backtest over the same
 * days all find the same changes; a period that cannot be judged (under the minimum volume, too little history)
 * keeps the state before it. The live job tells the changes of its last periods; the backtest lists them all.
 */
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { judge, type Point, type Verdict } from './conditions.ts';
import { shiftPeriod } from './periods.ts';
import { WARMUP_PERIODS } from './plan-calls.ts';
import type { Series } from './series.ts';

export type AlertState = 'firing' | 'resolved';

export interface StateChange {
  ruleId: string;
  productId: string;
  segment: string | null;
  /** The period judged (its start). */
  period: string;
  state: AlertState;
  /** A reminder of a rule still firing (`repeatEvery`), not a new onset. */
  repeat: boolean;
  verdict: Verdict;
  /** The figures up to the judged period (at most `EVIDENCE_PERIODS`): what the alert's chart shows. */
  evidence: Point[];
}

/** Periods of figures an alert carries as its evidence. */
export const EVIDENCE_PERIODS = 16;

/** The verdict of every period from `first` to `last` (inclusive) of one series. */
export function judgeSeries(rule: UsageAlertRule, series: Series, first: string, last: string) {
  const out: { period: string; verdict: Verdict }[] = [];
  series.points.forEach((point, i) => {
    if (point.period < first || point.period > last) return;
    out.push({
      period: point.period,
      verdict: judge(rule.condition, point, series.points.slice(0, i), rule.minVolume),
    });
  });
  return out;
}

/**
 * The state changes of one series in the periods `from`…`to`. Whether a period changes the state is decided from it
 * and the `WARMUP_PERIODS` before it alone (the state before those is taken as not firing), so the live job, which
 * judges its last periods, and a backtest over a year find the same change on the same period.
 */
export function stateChanges(rule: UsageAlertRule, series: Series, from: string, to: string): StateChange[] {
  const judged = judgeSeries(rule, series, shiftPeriod(from, rule.period.unit, -WARMUP_PERIODS), to);
  const changes: StateChange[] = [];
  judged.forEach(({ period, verdict }, i) => {
    if (period < from || verdict.state === 'undetermined') return;
    const before = stateBefore(judged.slice(Math.max(0, i - WARMUP_PERIODS), i));
    const change = (state: AlertState, repeat: boolean) =>
      changes.push({
        ruleId: rule.id,
        productId: series.productId,
        segment: series.segment,
        period,
        state,
        repeat,
        verdict,
        evidence: evidenceUpTo(series, period),
      });
    if (verdict.state === 'firing' && !before.firing) change('firing', false);
    else if (verdict.state === 'firing' && rule.repeatEvery !== undefined && before.firingFor % rule.repeatEvery === 0)
      change('firing', true);
    else if (verdict.state === 'ok' && before.firing) change('resolved', false);
  });
  return changes;
}

/** Whether the last judged of `window` fired, and for how many periods since its onset (undetermined ones count). */
function stateBefore(window: readonly { verdict: Verdict }[]): { firing: boolean; firingFor: number } {
  let firing = false;
  let firingFor = 0;
  for (const { verdict } of window) {
    if (verdict.state !== 'undetermined') {
      if (verdict.state === 'firing' && !firing) firingFor = 0;
      firing = verdict.state === 'firing';
    }
    if (firing) firingFor++;
  }
  return { firing, firingFor };
}

const evidenceUpTo = (series: Series, period: string): Point[] => {
  const at = series.points.findIndex((p) => p.period === period);
  return series.points.slice(Math.max(0, at + 1 - EVIDENCE_PERIODS), at + 1);
};
