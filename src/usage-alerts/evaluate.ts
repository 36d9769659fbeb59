/**
 * A rule's states over its periods, and the changes worth a message: `firing` when a series starts breaking its
 * condition (or, with `repeatEvery`, every so many periods while it still does) and `resolved` when it stops; a
 * period that cannot be judged (under the minimum volume, too little history) keeps the state before it. The live
 * job walks from each series' stored state (src/ports/usage-alert-states.ts); a backtest walks the same way from a
 * quiet state, so a backtest over the days a live job ran from its first day finds what it told.
 */
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import type { SeriesState } from '../ports/usage-alert-states.ts';
import { judge, type Point, type Verdict } from './conditions.ts';
import { shiftPeriod } from './periods.ts';
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
      verdict: judge(rule.condition, point, series.points.slice(0, i), rule.minVolume, resolutionOf(rule)),
    });
  });
  return out;
}

/** A share is a percentage rounded to one decimal; every other figure is a count. */
const resolutionOf = (rule: UsageAlertRule): number => (isShare(rule) ? 0.1 : 1);

/** Whether the rule's figure is a share in % (of active clients) rather than a count. */
export const isShare = (rule: UsageAlertRule): boolean =>
  rule.metric.kind === 'segmentShare' || (rule.metric.kind === 'engagement' && rule.metric.as === 'share');

const evidenceUpTo = (series: Series, period: string): Point[] => {
  const at = series.points.findIndex((p) => p.period === period);
  return series.points.slice(Math.max(0, at + 1 - EVIDENCE_PERIODS), at + 1);
};

/**
 * The stateful walk, as the live job keeps it (src/ports/usage-alert-states.ts): from `state` (absent: not firing),
 * each judged period of `from`…`to` in order. A firing period after a quiet one is told `firing`; a quiet one after
 * firing, `resolved`; while firing, every `repeatEvery` periods after the last told, a reminder. Undetermined periods
 * keep the state. A rule already firing when Pulse first judges it is told at that first period.
 */
export function replay(
  rule: UsageAlertRule,
  series: Series,
  from: string,
  to: string,
  start: SeriesState | undefined,
): { changes: StateChange[]; state: SeriesState | undefined } {
  let state = start;
  const changes: StateChange[] = [];
  for (const { period, verdict } of judgeSeries(rule, series, from, to)) {
    const firing = state?.firing === true;
    const told = (s: AlertState, repeat: boolean) =>
      changes.push({
        ruleId: rule.id,
        productId: series.productId,
        segment: series.segment,
        period,
        state: s,
        repeat,
        verdict,
        evidence: evidenceUpTo(series, period),
      });
    if (verdict.state === 'firing' && !firing) {
      told('firing', false);
      state = { firing: true, since: period, lastTold: period, lastJudged: period };
    } else if (verdict.state === 'firing' && rule.repeatEvery !== undefined && due(rule, state!, period)) {
      told('firing', true);
      state = { ...state!, lastTold: period, lastJudged: period };
    } else if (verdict.state === 'ok' && firing) {
      told('resolved', false);
      state = { firing: false, lastJudged: period };
    } else state = { ...(state ?? { firing: false }), lastJudged: period };
  }
  return { changes, state };
}

/** Whether `repeatEvery` periods have passed since the last firing message. */
function due(rule: UsageAlertRule, state: SeriesState, period: string): boolean {
  const last = state.lastTold ?? state.since ?? period;
  return shiftPeriod(last, rule.period.unit, rule.repeatEvery!) <= period;
}
