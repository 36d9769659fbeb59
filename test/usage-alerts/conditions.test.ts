/**
 * The usage rules' conditions on figures (src/usage-alerts/conditions.ts): thresholds, changes against the period
 * before and deviations from the trailing median (robust to a spike in the baseline), the minimum volume and the
 * history each needs; and the periods a rule may judge after its settle delay (periods.ts).
 */
import { describe, expect, it } from 'vitest';
import { judge, MAD_SCALE, mad, median, type Point } from '../../src/usage-alerts/conditions.ts';
import { dataAgeHours, lastJudgeablePeriod, periodOf, periodsBetween } from '../../src/usage-alerts/periods.ts';

const points = (values: number[], start = 1): Point[] =>
  values.map((value, i) => ({ period: `2026-10-${String(start + i).padStart(2, '0')}`, value, volume: value }));
const at = (value: number, volume = value): Point => ({ period: '2026-10-31', value, volume });

describe('median and MAD', () => {
  it('are the middle value and the middle distance from it', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mad([1, 2, 3, 4, 100])).toBe(1);
  });
});

describe('threshold', () => {
  const c = { kind: 'threshold', above: 100, below: 10 } as const;
  it('fires above and below, and names the bound', () => {
    expect(judge(c, at(101), [], 0)).toMatchObject({ state: 'firing', reason: '101 is above 100' });
    expect(judge(c, at(9), [], 0)).toMatchObject({ state: 'firing', reason: '9 is below 10' });
    expect(judge(c, at(50), [], 0)).toMatchObject({ state: 'ok', expected: { low: 10, high: 100 } });
  });
  it('does not judge a period under the minimum volume', () => {
    expect(judge(c, at(500, 20), [], 50)).toMatchObject({ state: 'undetermined', reason: 'volume 20 is under 50' });
  });
});

describe('a period without a figure', () => {
  const none = (period: string): Point => ({
    period,
    value: 0,
    volume: 0,
    missing: `no exception file covers ${period}`,
  });
  it('is not judged, and says why', () => {
    expect(judge({ kind: 'threshold', below: 10 }, none('2026-10-31'), [], 0)).toEqual({
      state: 'undetermined',
      value: null,
      reason: 'no exception file covers 2026-10-31',
    });
  });
  it('is no period before for a change, and no baseline period for a deviation (its stand-in 0 never counts)', () => {
    expect(judge({ kind: 'change', percent: 25, direction: 'either' }, at(5), [none('2026-10-30')], 0)).toMatchObject({
      state: 'undetermined',
      reason: 'the period before has no figure: no exception file covers 2026-10-30',
    });
    const d = { kind: 'deviation', baselinePeriods: 4, k: 3, direction: 'either' } as const;
    const history = [...points([10, 11, 10]), none('2026-10-04')];
    expect(judge(d, at(10), history, 0)).toMatchObject({ state: 'undetermined', reason: '3 of 4 baseline periods' });
    expect(judge(d, at(10), [...points([12]), ...history], 0)).toMatchObject({ state: 'undetermined' });
    // It waits until the gap has left the last `baselinePeriods`.
    expect(judge(d, at(10), [...history, ...points([10, 11, 9], 5)], 0)).toMatchObject({ state: 'undetermined' });
    expect(judge(d, at(10), [...history, ...points([10, 11, 9, 10], 5)], 0)).toMatchObject({
      state: 'ok',
      reference: 10,
    });
  });
});

describe('change against the period before', () => {
  const down = { kind: 'change', percent: 25, direction: 'down' } as const;
  it('fires at a drop of at least the percentage, not at a rise', () => {
    expect(judge(down, at(74), points([100]), 0)).toMatchObject({
      state: 'firing',
      reference: 100,
      reason: '26 % below the period before (100)',
      expected: { low: 75, high: null },
    });
    expect(judge(down, at(76), points([100]), 0).state).toBe('ok');
    expect(judge(down, at(300), points([100]), 0).state).toBe('ok');
  });
  it('needs a period before; from zero, any rise fires upwards', () => {
    expect(judge(down, at(74), [], 0).state).toBe('undetermined');
    expect(judge({ ...down, direction: 'up' }, at(3), points([0]), 0).state).toBe('firing');
    expect(judge(down, at(3), points([0]), 0).state).toBe('ok');
  });
});

describe('deviation from the trailing baseline', () => {
  const c = { kind: 'deviation', baselinePeriods: 8, k: 3, direction: 'either' } as const;
  const base = [100, 104, 98, 101, 97, 103, 99, 102];
  it('fires outside median ± k × MAD × 1.4826', () => {
    const spread = mad(base) * MAD_SCALE;
    const verdict = judge(c, at(600), points(base), 0);
    expect(verdict).toMatchObject({ state: 'firing', reference: 100.5 });
    if (verdict.state === 'undetermined') throw new Error('judged');
    expect(verdict.expected.high).toBeCloseTo(100.5 + 3 * spread, 6);
    expect(judge(c, at(105), points(base), 0).state).toBe('ok');
    expect(judge(c, at(80), points(base), 0).state).toBe('firing');
  });
  it('is not thrown by one spike in the baseline, which a mean and σ would be', () => {
    const spiked = [100, 104, 98, 1000, 97, 103, 99, 102];
    expect(judge(c, at(130), points(spiked), 0).state).toBe('firing');
    const mean = spiked.reduce((a, b) => a + b) / spiked.length;
    const sd = Math.sqrt(spiked.reduce((a, b) => a + (b - mean) ** 2, 0) / spiked.length);
    expect(130 < mean + 3 * sd).toBe(true); // a mean ± 3σ rule would have stayed quiet
  });
  it('a flat baseline does not fire on a change of one', () => {
    expect(judge(c, at(101), points(Array(8).fill(100)), 0).state).toBe('ok');
    expect(judge(c, at(110), points(Array(8).fill(100)), 0).state).toBe('firing');
  });
  it('needs its baseline periods', () => {
    expect(judge(c, at(600), points(base.slice(0, 7)), 0)).toMatchObject({
      state: 'undetermined',
      reason: '7 of 8 baseline periods',
    });
  });
});

describe('periods', () => {
  it('judges a day 24 h after it ended, a week 24 h after its Sunday', () => {
    expect(lastJudgeablePeriod(new Date('2026-11-27T23:59:59Z'), 'day', 24)).toBe('2026-11-25');
    expect(lastJudgeablePeriod(new Date('2026-11-28T00:00:00Z'), 'day', 24)).toBe('2026-11-26');
    expect(lastJudgeablePeriod(new Date('2026-11-27T12:00:00Z'), 'day', 0)).toBe('2026-11-26');
    // Week 2026-W48 is 23–29 Nov: judged from Tuesday 1 Dec, 00:00 UTC.
    expect(lastJudgeablePeriod(new Date('2026-11-30T23:00:00Z'), 'week', 24)).toBe('2026-11-16');
    expect(lastJudgeablePeriod(new Date('2026-12-01T00:00:00Z'), 'week', 24)).toBe('2026-11-23');
  });
  it('keys weeks by their Monday and counts the age of the data from the period’s end', () => {
    expect(periodOf('2026-11-29', 'week')).toBe('2026-11-23');
    expect(periodsBetween('2026-11-04', '2026-11-23', 'week')).toEqual([
      '2026-11-02',
      '2026-11-09',
      '2026-11-16',
      '2026-11-23',
    ]);
    expect(dataAgeHours('2026-11-25', 'day', new Date('2026-11-27T06:30:00Z'))).toBe(30);
  });
});
