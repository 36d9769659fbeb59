import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageBetween } from '../../emulator/data/activity.ts';
import { addPeriods, type DateSplit, formatDay, parseDay } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, TestSession } from '../helpers/emulator-session.ts';
import { rangeOf, resultKeys } from '../helpers/wire-order.ts';

const TODAY = parseDay(TEST_TODAY)!;
const COHORT = '/v3/reporting/engagement/churnAndEngagement';
const HISTOGRAMS = [
  {
    path: '/v3/reporting/churn/histogram/days',
    labels: ['1', '2', '3 - 5', '6 - 10', '11 - 30', '31 - 90', '91 - 180', '181 - 365', '≥ 366'],
    lifetime: (pd: ProductData, i: number) => usageBetween(pd, i, pd.installDay[i]!, pd.lastSeenDay[i]!).activeDays,
  },
  {
    path: '/v3/reporting/churn/histogram/runtime',
    labels: [
      '≤ 0:30',
      '0:31 - 1:00',
      '1:01 - 2:00',
      '2:01 - 5:00',
      '5:01 - 10:00',
      '10:01 - 25:00',
      '25:01 - 50:00',
      '50:01 - 100:00',
      '≥ 100:01',
    ],
    lifetime: (pd: ProductData, i: number) => usageBetween(pd, i, pd.installDay[i]!, pd.lastSeenDay[i]!).runtimeMinutes,
  },
  {
    path: '/v3/reporting/churn/histogram/sessions',
    labels: ['1', '2 - 5', '6 - 10', '11 - 25', '26 - 50', '51 - 100', '101 - 250', '251 - 500', '≥ 501'],
    lifetime: (pd: ProductData, i: number) => usageBetween(pd, i, pd.installDay[i]!, pd.lastSeenDay[i]!).sessions,
  },
];

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
let edition: (i: number) => string | null;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
  const col = pd.columns.get('prodEdition') as StringColumn;
  edition = (i) => stringAt(col, i);
});
afterAll(() => emu.close());

/**
 * Clients lost in the range as dateRangeReport counts them (docs/interface.md "Generic reports"), straight from
 * last-seen days.
 */
function lostClients(
  start: string,
  stop: string,
  daysUntilDeclaredLost: number,
  reported: 'dateLastSeen' | 'dateDeclaredLost',
  keep: (i: number) => boolean = () => true,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < pd.n; i++) {
    const declared = pd.lastSeenDay[i]! + daysUntilDeclaredLost;
    if (declared > TODAY || !keep(i)) continue;
    const day = formatDay(reported === 'dateDeclaredLost' ? declared : pd.lastSeenDay[i]!);
    if (day >= start && day <= stop) out.push(i);
  }
  return out;
}

describe('churnHistogramDays, churnHistogramRuntime and churnHistogramSessions: lost-client histograms', () => {
  const cases = [
    {
      startDate: '2026-01-01',
      stopDate: '2026-11-20',
      daysUntilDeclaredLost: 30,
      dateReportedLost: 'dateDeclaredLost',
    },
    { startDate: '2025-06-01', stopDate: '2026-03-31', daysUntilDeclaredLost: 7, dateReportedLost: 'dateLastSeen' },
  ] as const;

  for (const h of HISTOGRAMS)
    it(`${h.path.split('/').pop()}: bins every lost client exactly once, bins in order`, async () => {
      for (const body of cases) {
        const r = await s.post(h.path, body);
        expect(r.status).toBe(200);
        expect(resultKeys(r.text)).toEqual(h.labels);
        const lost = lostClients(body.startDate, body.stopDate, body.daysUntilDeclaredLost, body.dateReportedLost);
        expect(lost.length).toBeGreaterThan(20);
        const counts: Record<string, number> = r.json.result;
        expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(lost.length);
        const ranges = h.labels.map(rangeOf);
        const expected = h.labels.map(() => 0);
        for (const i of lost) {
          const v = h.lifetime(pd, i);
          const bins = ranges.flatMap(([lo, hi], k) => (v >= lo && v <= hi ? [k] : []));
          expect(bins).toHaveLength(1);
          expected[bins[0]!]!++;
        }
        expect(h.labels.map((l) => counts[l])).toEqual(expected);
      }
    });

  it('includes both ends of the range', async () => {
    // A one-day range on the day some client's loss is reported, for each way of reporting it.
    for (const dateReportedLost of ['dateLastSeen', 'dateDeclaredLost'] as const) {
      const i = lostClients('2025-01-01', TEST_TODAY, 10, dateReportedLost)[0]!;
      const day = formatDay(pd.lastSeenDay[i]! + (dateReportedLost === 'dateDeclaredLost' ? 10 : 0));
      const lost = lostClients(day, day, 10, dateReportedLost);
      expect(lost).toContain(i);
      for (const h of HISTOGRAMS) {
        const body = { startDate: day, stopDate: day, daysUntilDeclaredLost: 10, dateReportedLost };
        const r = await s.post(h.path, body);
        expect(Object.values(r.json.result as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(lost.length);
      }
    }
  });

  it('applies globalFilters and answers every bin with zero counts when nobody was lost', async () => {
    const body = {
      ...cases[0],
      globalFilters: { prodEdition: { type: 'stringArray', value: ['Community', 'Standard'] } },
    };
    const lost = lostClients(body.startDate, body.stopDate, 30, 'dateDeclaredLost', (i) =>
      ['Community', 'Standard'].includes(edition(i) ?? ''),
    );
    expect(lost.length).toBeLessThan(lostClients(body.startDate, body.stopDate, 30, 'dateDeclaredLost').length);
    for (const h of HISTOGRAMS) {
      const r = await s.post(h.path, body);
      expect(r.status).toBe(200);
      expect(Object.values(r.json.result as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(lost.length);
    }
    // Reported on the last-seen day only once declared 30 days later: nothing in the last 29 days before today.
    const recent = { ...cases[0], startDate: '2026-10-23', dateReportedLost: 'dateLastSeen' } as const;
    expect(lostClients(recent.startDate, recent.stopDate, 30, 'dateLastSeen')).toEqual([]);
    expect(lostClients(recent.startDate, recent.stopDate, 30, 'dateDeclaredLost').length).toBeGreaterThan(0);
    for (const h of HISTOGRAMS) {
      const none = await s.post(h.path, recent);
      expect(none.json.result).toEqual(Object.fromEntries(h.labels.map((l) => [l, 0])));
    }
  });

  it('answers 400 naming the field, 404 for an unknown product', async () => {
    const ok = cases[0];
    const cases400: [unknown, string][] = [
      [{ ...ok, startDate: undefined }, 'startDate: required'],
      [{ ...ok, stopDate: '2026-13-01' }, 'stopDate: invalid date (expected YYYY-MM-DD)'],
      [{ ...ok, startDate: '2026-12-01' }, 'startDate: must not be after stopDate'],
      [{ ...ok, daysUntilDeclaredLost: undefined }, 'daysUntilDeclaredLost: required'],
      [{ ...ok, daysUntilDeclaredLost: 0 }, 'daysUntilDeclaredLost: must be ≥ 1'],
      [{ ...ok, daysUntilDeclaredLost: 2.5 }, 'daysUntilDeclaredLost: must be an integer'],
      [{ ...ok, dateReportedLost: undefined }, 'dateReportedLost: required'],
      [{ ...ok, dateReportedLost: 'lastSeen' }, 'dateReportedLost: must be one of dateLastSeen, dateDeclaredLost'],
      [{ ...ok, globalFilters: { os: { platform: ['Windows'] } } }, 'globalFilters.os.platform: must be an object'],
    ];
    for (const h of HISTOGRAMS)
      for (const [body, message] of cases400) {
        const r = await s.post(h.path, body);
        expect(r.status).toBe(400);
        expect(r.json).toEqual({ error: 'Bad Request', message });
      }
    const r = await s.post(HISTOGRAMS[1]!.path, ok, '10000000001');
    expect(r.status).toBe(404);
    expect((await new TestSession(emu).post(HISTOGRAMS[2]!.path, ok)).status).toBe(401);
  });
});

interface PeriodCounts {
  engaged: number;
  engagedPercent: number;
  lost: number;
  lostPercent: number;
}
const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((1000 * part) / whole) / 10);

/**
 * The churnAndEngagement cohort table (docs/interface.md "Churn reports") of the given members, computed period by
 * period from install and last-seen days.
 */
function cohortTable(members: number[], start: string, split: DateSplit, dul: number): Record<string, PeriodCounts> {
  let periods = 0;
  while (addPeriods(parseDay(start)!, periods + 1, split) <= TODAY) periods++;
  const table: Record<string, PeriodCounts> = {};
  for (let n = 0; n <= periods; n++) {
    let engaged = 0;
    let lost = 0;
    for (const i of members) {
      const at = addPeriods(pd.installDay[i]!, n, split);
      if (at > TODAY) continue;
      if (pd.lastSeenDay[i]! + dul <= at) lost++;
      else engaged++;
    }
    const all = engaged + lost;
    table[String(n)] = { engaged, engagedPercent: pct(engaged, all), lost, lostPercent: pct(lost, all) };
  }
  return table;
}

function cohort(start: string, stop: string, keep: (i: number) => boolean = () => true): number[] {
  const out: number[] = [];
  for (let i = 0; i < pd.n; i++) {
    const install = formatDay(pd.installDay[i]!);
    if (install >= start && install <= stop && keep(i)) out.push(i);
  }
  return out;
}

describe('churnAndEngagement', () => {
  it('follows the whole cohort period by period since install ("all" without segmentBy)', async () => {
    for (const [split, start, stop, dul] of [
      ['month', '2025-03-01', '2025-08-31', 30],
      ['week', '2026-01-05', '2026-04-30', 14],
      ['day', '2026-10-01', '2026-10-20', 3],
    ] as const) {
      const body = { startDate: start, stopDate: stop, daysUntilDeclaredLost: dul, dateSplit: split };
      const r = await s.post(COHORT, body);
      expect(r.status).toBe(200);
      expect(Object.keys(r.json.result)).toEqual(['all']);
      const members = cohort(start, stop);
      expect(members.length).toBeGreaterThan(10);
      const expected = cohortTable(members, start, split, dul);
      expect(r.json.result.all).toEqual(expected);
      const table = r.json.result.all as Record<string, PeriodCounts>;
      expect(Object.keys(table)).toEqual(Object.keys(expected).map((_, n) => String(n)));
      // Period 0 counts every member; later periods the members old enough, never more.
      expect(table['0']!.engaged + table['0']!.lost).toBe(members.length);
      for (const p of Object.values(table)) {
        expect(p.engaged + p.lost).toBeLessThanOrEqual(members.length);
        if (p.engaged + p.lost > 0) expect(Math.abs(p.engagedPercent + p.lostPercent - 100)).toBeLessThanOrEqual(0.1);
        expect(Math.round(p.lostPercent * 10)).toBeCloseTo(p.lostPercent * 10, 9);
      }
      expect(Object.values(table).some((p) => p.lost > 0)).toBe(true);
    }
  });

  it('has no periods (and no install months) for a cohort that starts after today', async () => {
    const body = { startDate: '2026-11-21', stopDate: '2027-02-01', daysUntilDeclaredLost: 7, dateSplit: 'day' };
    expect((await s.post(COHORT, body)).json).toEqual({ result: { all: {} } });
    expect((await s.post(COHORT, { ...body, segmentBy: 'installationMonth' })).json).toEqual({ result: {} });
  });

  it('segments by installationMonth: one cohort per month of the range, adding up to "all"', async () => {
    const body = { startDate: '2025-10-15', stopDate: '2026-01-10', daysUntilDeclaredLost: 21, dateSplit: 'week' };
    const [all, byMonth] = await Promise.all([
      s.post(COHORT, body),
      s.post(COHORT, { ...body, segmentBy: 'installationMonth' }),
    ]);
    expect(byMonth.status).toBe(200);
    const months = ['2025-10-01', '2025-11-01', '2025-12-01', '2026-01-01'];
    expect(Object.keys(byMonth.json.result)).toEqual(months);
    months.forEach((m, k) => {
      const next = months[k + 1] ?? '9999-12-31';
      const members = cohort(body.startDate, body.stopDate, (i) => {
        const d = formatDay(pd.installDay[i]!);
        return d >= m && d < next;
      });
      expect(byMonth.json.result[m]).toEqual(cohortTable(members, body.startDate, 'week', 21));
    });
    for (const n of Object.keys(all.json.result.all)) {
      const sum = (key: 'engaged' | 'lost') => months.reduce((a, m) => a + byMonth.json.result[m][n][key], 0);
      expect(sum('engaged')).toBe(all.json.result.all[n].engaged);
      expect(sum('lost')).toBe(all.json.result.all[n].lost);
    }
  });

  it('segments by a property, with filters, keeping explicit segments in request order on the wire', async () => {
    const body = {
      startDate: '2025-01-01',
      stopDate: '2025-12-31',
      daysUntilDeclaredLost: 30,
      dateSplit: 'month',
      globalFilters: { prodEdition: { type: 'regex', value: 'i' } },
      segmentBy: 'prodEdition',
    };
    const split = await s.post(COHORT, body);
    expect(split.status).toBe(200);
    const inFilter = (i: number) => /i/u.test(edition(i) ?? '');
    const values = [...new Set(cohort(body.startDate, body.stopDate, inFilter).map((i) => edition(i) ?? ''))].sort();
    expect(values).toEqual(['Community', 'Enterprise', 'Professional']);
    expect(Object.keys(split.json.result)).toEqual(values);
    for (const v of values) {
      const members = cohort(body.startDate, body.stopDate, (i) => edition(i) === v);
      expect(split.json.result[v]).toEqual(cohortTable(members, body.startDate, 'month', 30));
    }

    const segments = [
      { type: 'string', value: 'Professional', segmentLabel: '2' },
      { type: 'stringArray', value: ['Community', 'Standard'], segmentLabel: '1' },
    ];
    const explicit = await s.post(COHORT, { ...body, globalFilters: {}, segments });
    expect(explicit.status).toBe(200);
    expect(resultKeys(explicit.text)).toEqual(['2', '1']);
    const members = cohort(body.startDate, body.stopDate, (i) => ['Community', 'Standard'].includes(edition(i) ?? ''));
    expect(explicit.json.result['1']).toEqual(cohortTable(members, body.startDate, 'month', 30));
  });

  it('answers 400 naming the field, 404 for an unknown product', async () => {
    const ok = { startDate: '2026-01-01', stopDate: '2026-02-01', daysUntilDeclaredLost: 30, dateSplit: 'week' };
    const cases: [unknown, string][] = [
      [{ ...ok, stopDate: undefined }, 'stopDate: required'],
      [{ ...ok, startDate: '2026-1-01' }, 'startDate: invalid date (expected YYYY-MM-DD)'],
      [{ ...ok, startDate: '2026-03-01' }, 'startDate: must not be after stopDate'],
      [{ ...ok, daysUntilDeclaredLost: undefined }, 'daysUntilDeclaredLost: required'],
      [{ ...ok, daysUntilDeclaredLost: '30' }, 'daysUntilDeclaredLost: must be a number'],
      [{ ...ok, dateSplit: undefined }, 'dateSplit: required'],
      [{ ...ok, dateSplit: 'year' }, 'dateSplit: must be one of day, week, month'],
      [
        { ...ok, globalFilters: { prodEdition: { type: 'number', value: 1 } } },
        'globalFilters.prodEdition.type: must be one of string, stringArray, regex for prodEdition',
      ],
      [
        { ...ok, segmentBy: 'installationMonth', segments: [] },
        'segments: not allowed with segmentBy installationMonth',
      ],
      [{ ...ok, segments: [{ type: 'string', value: 'x' }] }, 'segments: requires segmentBy'],
      [{ ...ok, segmentBy: 'noSuchProperty' }, 'segmentBy: unknown property noSuchProperty'],
      [{ ...ok, segmentBy: 7 }, 'segmentBy: must be a string'],
      [
        { ...ok, segmentBy: 'prodEdition', segments: [{ type: 'regex', value: 'a' }] },
        'segments[0].segmentLabel: required when split is false',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(COHORT, body);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
    const r = await s.post(COHORT, ok, '10000000001');
    expect(r.status).toBe(404);
    expect(r.json.error).toBe('Not Found');
  });
});
