/**
 * A rule's state changes (src/usage-alerts/evaluate.ts): one `firing` at the onset, nothing while it stays firing
 * (unless `repeatEvery`), one `resolved` when it stops; an undetermined period keeps the state; a rule already
 * firing when first judged is told then; and walking from a stored state day by day, as the live job does, tells
 * exactly what one walk over all the days (a backtest) finds.
 */
import { describe, expect, it } from 'vitest';
import { UsageAlertRule } from '../../src/config/usage-alerts-schema.ts';
import { replay } from '../../src/usage-alerts/evaluate.ts';
import { shiftPeriod } from '../../src/usage-alerts/periods.ts';
import type { Series } from '../../src/usage-alerts/series.ts';

const rule = (over: Record<string, unknown> = {}) =>
  UsageAlertRule.parse({
    id: 'errors',
    productIds: ['12345678901'],
    metric: { kind: 'clients', status: 'active' },
    period: { unit: 'day' },
    condition: { kind: 'threshold', above: 10 },
    owner: 'owner@example.com',
    recipients: [{ address: 'ops@example.com' }],
    ...over,
  });

/** A daily series from 2026-09-01. */
const series = (values: (number | [number, number])[]): Series => ({
  ruleId: 'errors',
  productId: '12345678901',
  segment: null,
  points: values.map((v, i) => {
    const [value, volume] = Array.isArray(v) ? v : [v, v];
    return { period: shiftPeriod('2026-09-01', 'day', i), value, volume };
  }),
});
const day = (i: number) => shiftPeriod('2026-09-01', 'day', i);
const stateChanges = (r: UsageAlertRule, s: Series, from: string, to: string) =>
  replay(r, s, from, to, undefined).changes;
const told = (changes: ReturnType<typeof stateChanges>) => changes.map((c) => [c.period, c.state, c.repeat]);

describe('state changes', () => {
  const s = series([1, 2, 20, 30, 25, 3, 2, 40, 1]);

  it('fires once at the onset, resolves once, fires again at the next onset', () => {
    expect(told(stateChanges(rule(), s, day(0), day(8)))).toEqual([
      [day(2), 'firing', false],
      [day(5), 'resolved', false],
      [day(7), 'firing', false],
      [day(8), 'resolved', false],
    ]);
  });

  it('says it again every repeatEvery periods while firing', () => {
    const long = series([1, 20, 20, 20, 20, 20, 1]);
    expect(told(stateChanges(rule({ repeatEvery: 2 }), long, day(0), day(6)))).toEqual([
      [day(1), 'firing', false],
      [day(3), 'firing', true],
      [day(5), 'firing', true],
      [day(6), 'resolved', false],
    ]);
  });

  it('a period under the minimum volume keeps the state before it', () => {
    const quiet = series([[1, 10], 20, [20, 3], 20, [1, 3], [1, 10]]);
    expect(told(stateChanges(rule({ minVolume: 5 }), quiet, day(0), day(5)))).toEqual([
      [day(1), 'firing', false],
      [day(5), 'resolved', false],
    ]);
  });

  it('carries the figures up to the judged period as its evidence', () => {
    const [first] = stateChanges(rule(), s, day(0), day(8));
    expect(first!.evidence.map((p) => p.value)).toEqual([1, 2, 20]);
    expect(first!.verdict).toMatchObject({ state: 'firing', reason: '20 is above 10' });
  });

  it('a rule already firing when first judged is told at that period, once', () => {
    expect(told(stateChanges(rule(), s, day(3), day(8)))).toEqual([
      [day(3), 'firing', false],
      [day(5), 'resolved', false],
      [day(7), 'firing', false],
      [day(8), 'resolved', false],
    ]);
  });

  it('walking day by day from the stored state tells exactly what one walk over all the days finds', () => {
    const values = Array.from({ length: 60 }, (_, i) => ((i * 7919) % 13 > 8 ? 15 : 2));
    const long = series(values);
    const r = rule({ repeatEvery: 3 });
    const backtest = told(replay(r, long, day(20), day(59), undefined).changes);
    let state: ReturnType<typeof replay>['state'];
    const live: unknown[] = [];
    for (let d = 20; d < 60; d++) {
      // Each run judges the periods after the last judged one (a rerun of a day judges nothing).
      for (let again = 0; again < 2; again++) {
        const from = state ? shiftPeriod(state.lastJudged, 'day', 1) : day(d);
        const run = replay(r, long, from, day(d), state);
        live.push(...told(run.changes));
        state = run.state;
      }
    }
    expect(live).toEqual(backtest);
    expect(backtest.length).toBeGreaterThan(4);
  });
});
