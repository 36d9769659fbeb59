/**
 * A rule's state changes (src/usage-alerts/evaluate.ts): one `firing` at the onset, nothing while it stays firing
 * (unless `repeatEvery`), one `resolved` when it stops; an undetermined period keeps the state; and a change is
 * found on the same period whichever window it is judged in, so the live job's last periods and a backtest agree.
 */
import { describe, expect, it } from 'vitest';
import { UsageAlertRule } from '../../src/config/usage-alerts-schema.ts';
import { stateChanges } from '../../src/usage-alerts/evaluate.ts';
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

  it('finds each change on the same period in any window that holds it: the live job and a backtest agree', () => {
    const values = Array.from({ length: 60 }, (_, i) => ((i * 7919) % 13 > 8 ? 15 : 2));
    const long = series(values);
    const backtest = told(stateChanges(rule(), long, day(20), day(59)));
    // The live job on each day judges its last 3 days; what it tells, the backtest lists, and nothing else.
    const live = new Map<string, unknown>();
    for (let d = 22; d < 60; d++)
      for (const c of stateChanges(rule(), long, day(d - 2), day(d)))
        live.set(`${c.period}|${c.state}`, [c.period, c.state, c.repeat]);
    expect([...live.values()]).toEqual(backtest);
    expect(backtest.length).toBeGreaterThan(4);
  });
});
