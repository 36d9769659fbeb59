/**
 * dateRangeReport and currentReport over real sockets. Expected counts are recomputed here, client by
 * client, straight from the data model and activity.ts — independently of the report's word-level counting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeBetween } from '../../emulator/data/activity.ts';
import { type DateSplit, type Day, formatDay, parseDay, periodsOf } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

const DATE_RANGE = '/v3/reporting/generic/dateRange';
const CURRENT = '/v3/reporting/generic/current';
const TODAY = parseDay(TEST_TODAY)!;
const ALL3 = ['new', 'active', 'lost'];
const LOST30 = { daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' };

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

type C = { new: number; active: number; lost: number };
interface RefOpts {
  split?: DateSplit;
  lost?: { days: number; mode: 'dateLastSeen' | 'dateDeclaredLost' };
  include?: (i: number) => boolean;
  /** Unit key of a client (null = no unit); default the client itself. */
  unit?: (i: number) => string | null;
}

/** Reference counts per period key, by brute force over clients grouped into units. */
function reference(from: Day, to: Day, o: RefOpts = {}): Map<string, C> {
  const periods = o.split ? periodsOf(from, to, o.split) : [{ start: from, from, to }];
  const units = new Map<string, number[]>();
  for (let i = 0; i < pd.n; i++) {
    if (o.include && !o.include(i)) continue;
    const key = o.unit ? o.unit(i) : String(i);
    if (key === null) continue;
    units.set(key, [...(units.get(key) ?? []), i]);
  }
  const out = new Map<string, C>();
  for (const p of periods) {
    const c = { new: 0, active: 0, lost: 0 };
    for (const members of units.values()) {
      const first = Math.min(...members.map((i) => pd.installDay[i]!));
      const last = Math.max(...members.map((i) => pd.lastSeenDay[i]!));
      if (first >= p.from && first <= p.to) c.new++;
      if (members.some((i) => activeBetween(pd, i, p.from, p.to))) c.active++;
      if (o.lost && last + o.lost.days <= TODAY) {
        const day = o.lost.mode === 'dateDeclaredLost' ? last + o.lost.days : last;
        if (day >= p.from && day <= p.to) c.lost++;
      }
    }
    out.set(formatDay(p.start), c);
  }
  return out;
}

const valuesOf = (name: string) => {
  const col = pd.columns.get(name) as StringColumn;
  return (i: number) => stringAt(col, i);
};
const day = (s: string) => parseDay(s)!;

describe('dateRangeReport', () => {
  it('weekly new/active/lost match per-client counts in every week, every week present', async () => {
    const body = { startDate: '2025-11-21', stopDate: TEST_TODAY, clientStatus: ALL3, dateSplit: 'week', ...LOST30 };
    const r = await s.post(DATE_RANGE, body);
    expect(r.status).toBe(200);
    const expected = reference(day('2025-11-21'), TODAY, {
      split: 'week',
      lost: { days: 30, mode: 'dateDeclaredLost' },
    });
    expect(Object.keys(r.json.result)).toEqual([...expected.keys()]);
    expect(Object.keys(r.json.result)[0]).toBe('2025-11-17'); // the Monday of the first week
    expect(r.json.result).toEqual(Object.fromEntries(expected));
    const totals = [...expected.values()].reduce((a, c) => a + c.active + c.new, 0);
    expect(totals).toBeGreaterThan(0);
  });

  it('counts lost on the last-seen day with dateReportedLost=dateLastSeen', async () => {
    const body = {
      startDate: '2026-06-01',
      stopDate: TEST_TODAY,
      clientStatus: ['lost'],
      dateSplit: 'month',
      daysUntilDeclaredLost: 14,
      dateReportedLost: 'dateLastSeen',
    };
    const r = await s.post(DATE_RANGE, body);
    const expected = reference(day('2026-06-01'), TODAY, { split: 'month', lost: { days: 14, mode: 'dateLastSeen' } });
    expect(r.json.result).toEqual(Object.fromEntries([...expected].map(([k, c]) => [k, { lost: c.lost }])));
    // Losses are reported only once declared: nothing last seen within the final 14 days counts.
    expect(r.json.result['2026-11-01'].lost).toBeLessThanOrEqual(expected.get('2026-11-01')!.lost);
    const declared = await s.post(DATE_RANGE, { ...body, dateReportedLost: 'dateDeclaredLost' });
    const expectedDeclared = reference(day('2026-06-01'), TODAY, {
      split: 'month',
      lost: { days: 14, mode: 'dateDeclaredLost' },
    });
    expect(declared.json.result['2026-11-01'].lost).toBe(expectedDeclared.get('2026-11-01')!.lost);
  });

  it('daily and monthly series: keys are period starts; new sums to the unsplit total', async () => {
    const base = { startDate: '2026-08-15', stopDate: '2026-10-10', clientStatus: ['new', 'active'] };
    const [d, m, t] = await Promise.all([
      s.post(DATE_RANGE, { ...base, dateSplit: 'day' }),
      s.post(DATE_RANGE, { ...base, dateSplit: 'month' }),
      s.post(DATE_RANGE, base),
    ]);
    expect(Object.keys(d.json.result)).toHaveLength(57);
    const daily = reference(day('2026-08-15'), day('2026-10-10'), { split: 'day' });
    expect(d.json.result).toEqual(
      Object.fromEntries([...daily].map(([k, c]) => [k, { new: c.new, active: c.active }])),
    );
    expect(Object.keys(m.json.result)).toEqual(['2026-08-01', '2026-09-01', '2026-10-01']);
    const sum = (res: Record<string, C>) => Object.values(res).reduce((a, c) => a + c.new, 0);
    expect(sum(d.json.result)).toBe(t.json.result.totals.new);
    expect(sum(m.json.result)).toBe(t.json.result.totals.new);
    const ref = [...reference(day('2026-08-15'), day('2026-10-10')).values()][0]!;
    expect(t.json.result).toEqual({ totals: { new: ref.new, active: ref.active } });
    expect(Object.keys(t.json.result.totals)).toEqual(['new', 'active']);
  });

  it('daily series across the first day of the data set', async () => {
    const first = pd.firstDay;
    const body = { startDate: formatDay(first - 5), stopDate: formatDay(first + 40), clientStatus: ['new', 'active'] };
    const r = await s.post(DATE_RANGE, { ...body, dateSplit: 'day' });
    const expected = reference(first - 5, first + 40, { split: 'day' });
    expect(r.json.result).toEqual(
      Object.fromEntries([...expected].map(([k, c]) => [k, { new: c.new, active: c.active }])),
    );
  });

  it('keeps every period with zero counts outside the data', async () => {
    const r = await s.post(DATE_RANGE, {
      startDate: '2015-01-01',
      stopDate: '2015-03-31',
      clientStatus: ['active'],
      dateSplit: 'month',
    });
    expect(r.json.result).toEqual({
      '2015-01-01': { active: 0 },
      '2015-02-01': { active: 0 },
      '2015-03-01': { active: 0 },
    });
  });

  it('filters reduce counts exactly as a manual filter would', async () => {
    const edition = valuesOf('prodEdition');
    const body = {
      startDate: '2026-01-01',
      stopDate: TEST_TODAY,
      clientStatus: ALL3,
      ...LOST30,
      globalFilters: { prodEdition: { type: 'string', value: 'Professional' } },
    };
    const r = await s.post(DATE_RANGE, body);
    const expected = reference(day('2026-01-01'), TODAY, {
      lost: { days: 30, mode: 'dateDeclaredLost' },
      include: (i) => edition(i) === 'Professional',
    });
    expect(r.json.result.totals).toEqual([...expected.values()][0]);
    const all = await s.post(DATE_RANGE, { ...body, globalFilters: {} });
    expect(r.json.result.totals.active).toBeLessThan(all.json.result.totals.active);
  });

  it('groupBy counts distinct units: machineId ≤ clientId, custom property values', async () => {
    const body = { startDate: '2026-01-01', stopDate: TEST_TODAY, clientStatus: ALL3, ...LOST30, dateSplit: 'month' };
    const [byClient, byMachine, byPlan] = await Promise.all([
      s.post(DATE_RANGE, body),
      s.post(DATE_RANGE, { ...body, groupBy: 'machineId' }),
      s.post(DATE_RANGE, { ...body, groupBy: 'C01' }),
    ]);
    const lost = { days: 30, mode: 'dateDeclaredLost' } as const;
    const from = day('2026-01-01');
    expect(byMachine.json.result).toEqual(
      Object.fromEntries(reference(from, TODAY, { split: 'month', lost, unit: valuesOf('machineId') })),
    );
    expect(byPlan.json.result).toEqual(
      Object.fromEntries(reference(from, TODAY, { split: 'month', lost, unit: valuesOf('C01') })),
    );
    let fewer = 0;
    for (const [k, c] of Object.entries(byMachine.json.result as Record<string, C>)) {
      const ofClients = byClient.json.result[k] as C;
      expect(c.active).toBeLessThanOrEqual(ofClients.active);
      expect(c.new).toBeLessThanOrEqual(ofClients.new);
      fewer += ofClients.active - c.active;
      expect((byPlan.json.result[k] as C).active).toBeLessThanOrEqual(3);
    }
    expect(fewer).toBeGreaterThan(0); // some machines run several clients
  });

  it('dateSplit with level1: the same segment labels in every period, counts per value', async () => {
    const platform = valuesOf('os.platform');
    const body = {
      startDate: '2026-09-01',
      stopDate: '2026-10-31',
      clientStatus: ['active'],
      dateSplit: 'month',
      levels: {
        level1: { property: 'os.platform', segments: [{ type: 'regex', value: '', split: true, includeNull: true }] },
      },
    };
    const r = await s.post(DATE_RANGE, body);
    expect(Object.keys(r.json.result)).toEqual(['2026-09-01', '2026-10-01']);
    for (const [period, bySegment] of Object.entries(r.json.result as Record<string, Record<string, C>>)) {
      expect(Object.keys(bySegment)).toEqual(['Linux', 'Windows', 'macOS', '<NULL>']);
      const p = periodsOf(day('2026-09-01'), day('2026-10-31'), 'month').find((x) => formatDay(x.start) === period)!;
      for (const [label, c] of Object.entries(bySegment)) {
        const want = label === '<NULL>' ? null : label;
        const expected = reference(p.from, p.to, { include: (i) => platform(i) === want });
        expect(c).toEqual({ active: [...expected.values()][0]!.active });
      }
    }
  });

  it('levels tree: totals and three nested levels agree with per-value client counts', async () => {
    const [platform, country, plan] = [valuesOf('os.platform'), valuesOf('geography.continent'), valuesOf('C01')];
    const body = {
      startDate: '2026-07-01',
      stopDate: TEST_TODAY,
      clientStatus: ['new', 'active'],
      levels: {
        level1: { property: 'os.platform', sort: 'active' },
        level2: { property: 'geography.continent', sort: 'alpha', sortDirection: 'desc' },
        level3: {
          property: 'C01',
          segments: [
            { type: 'string', value: 'Team' },
            { type: 'string', value: 'Nobody', segmentLabel: 'None' },
          ],
        },
      },
    };
    const r = await s.post(DATE_RANGE, body);
    expect(r.status).toBe(200);
    const from = day('2026-07-01');
    const count = (f: (i: number) => boolean) => [...reference(from, TODAY, { include: f }).values()][0]!;
    const pick = (c: C) => ({ new: c.new, active: c.active });
    expect(r.json.result.totals).toEqual(pick(count(() => true)));
    type Node = { totals: C; level2: Record<string, { totals: C; level3: Record<string, { totals: C }> }> };
    const l1 = r.json.result.level1 as Record<string, Node>;
    const actives = Object.values(l1).map((n) => n.totals.active);
    expect(actives).toEqual([...actives].sort((a, b) => b - a)); // sort: active, desc by default
    for (const [p, node] of Object.entries(l1)) {
      expect(node.totals).toEqual(pick(count((i) => platform(i) === p)));
      const continents = Object.keys(node.level2);
      expect(continents).toEqual([...continents].sort().reverse());
      for (const [c, n2] of Object.entries(node.level2)) {
        expect(n2.totals).toEqual(pick(count((i) => platform(i) === p && country(i) === c)));
        expect(Object.keys(n2.level3)).toEqual(['Team', 'None']); // explicit segments stay, zero or not
        expect(n2.level3.Team!.totals).toEqual(
          pick(count((i) => platform(i) === p && country(i) === c && plan(i) === 'Team')),
        );
        expect(n2.level3.None!.totals).toEqual({ new: 0, active: 0 });
      }
    }
  });

  it('percentOfActive: shares of the active units of each period, level1 shares add up to ~100', async () => {
    const body = {
      startDate: '2026-10-01',
      stopDate: '2026-10-31',
      clientStatus: ['new', 'active'],
      dateSplit: 'week',
      resultMode: 'percentOfActive',
      levels: {
        level1: { property: 'os.version', segments: [{ type: 'regex', value: '', split: true, includeNull: true }] },
      },
    };
    const [pct, abs, tot] = await Promise.all([
      s.post(DATE_RANGE, body),
      s.post(DATE_RANGE, { ...body, resultMode: 'absolute' }),
      s.post(DATE_RANGE, { ...body, levels: undefined, resultMode: undefined }),
    ]);
    for (const [period, bySegment] of Object.entries(pct.json.result as Record<string, Record<string, C>>)) {
      const segs = Object.values(bySegment);
      const sum = segs.reduce((a, c) => a + c.active, 0);
      expect(Math.abs(sum - 100)).toBeLessThanOrEqual(0.05 * segs.length);
      const active = tot.json.result[period].active as number;
      for (const [label, c] of Object.entries(bySegment)) {
        const a = abs.json.result[period][label] as C;
        expect(c.new).toBe(Math.round((a.new * 1000) / active) / 10);
      }
    }
  });

  it('explicit segments, limit and includeNull follow the documented segment rules', async () => {
    const body = {
      startDate: '2026-01-01',
      stopDate: TEST_TODAY,
      clientStatus: ['active'],
      levels: {
        level1: {
          property: 'geography.country',
          sort: 'active',
          segments: [
            { type: 'stringArray', value: ['US', 'CA', 'MX'], segmentLabel: 'North America' },
            { type: 'regex', value: '^[A-Z]', split: true, limit: 2 },
            { type: 'string', value: 'ZZ' },
          ],
        },
      },
    };
    const r = await s.post(DATE_RANGE, body);
    const l1 = r.json.result.level1;
    const country = valuesOf('geography.country');
    const active = (f: (i: number) => boolean) =>
      [...reference(day('2026-01-01'), TODAY, { include: f }).values()][0]!.active;
    const byCountry = new Map<string, number>();
    for (let i = 0; i < pd.n; i++) if (country(i) !== null) byCountry.set(country(i)!, 0);
    for (const c of byCountry.keys())
      byCountry.set(
        c,
        active((i) => country(i) === c),
      );
    const top2 = [...byCountry].sort((a, b) => b[1] - a[1]).slice(0, 2);
    expect(top2[1]![1]).toBeGreaterThan([...byCountry].sort((a, b) => b[1] - a[1])[2]![1]); // no tie at the cut
    const na = active((i) => ['US', 'CA', 'MX'].includes(country(i)!));
    // Sorted by active, desc: the limit keeps the two busiest countries; explicit segments stay even at zero.
    expect(Object.entries(l1).map(([k, v]) => [k, (v as { totals: C }).totals.active])).toEqual(
      [['North America', na], ...top2, ['ZZ', 0]].sort((a, b) => (b[1] as number) - (a[1] as number)),
    );
  });

  it('answers 400 naming the field', async () => {
    const ok = { startDate: '2026-01-01', stopDate: '2026-02-01', clientStatus: ['active'] };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, startDate: undefined }, 'startDate: required'],
      [{ ...ok, stopDate: '2026-02-30' }, 'stopDate: invalid date (expected YYYY-MM-DD)'],
      [{ ...ok, startDate: '2026-03-01' }, 'startDate: must not be after stopDate'],
      [{ ...ok, clientStatus: undefined }, 'clientStatus: required'],
      [{ ...ok, clientStatus: [] }, 'clientStatus: must have at least 1 item(s)'],
      [{ ...ok, clientStatus: ['active', 'gone'] }, 'clientStatus[1]: must be one of new, active, lost'],
      [{ ...ok, clientStatus: ['new', 'new'] }, 'clientStatus[1]: duplicate value new'],
      [{ ...ok, clientStatus: ['lost'] }, 'daysUntilDeclaredLost: required for lost counts (clientStatus or sort)'],
      [
        { ...ok, clientStatus: ['lost'], daysUntilDeclaredLost: 30 },
        'dateReportedLost: required for lost counts (clientStatus or sort)',
      ],
      [{ ...ok, clientStatus: ['lost'], ...LOST30, daysUntilDeclaredLost: 0 }, 'daysUntilDeclaredLost: must be ≥ 1'],
      [
        { ...ok, clientStatus: ['lost'], ...LOST30, dateReportedLost: 'x' },
        'dateReportedLost: must be one of dateLastSeen, dateDeclaredLost',
      ],
      [{ ...ok, dateSplit: 'year' }, 'dateSplit: must be one of day, week, month'],
      [
        { ...ok, groupBy: 'prodVersion' },
        'groupBy: must be clientId, machineId, licenseKey or a configured custom property C01–C20',
      ],
      [{ ...ok, groupBy: 'C07' }, 'groupBy: C07 is not a configured custom property'],
      [{ ...ok, resultMode: 'relative' }, 'resultMode: must be one of absolute, percentOfActive'],
      [{ ...ok, globalFilters: { nope: { type: 'string', value: 'x' } } }, 'globalFilters.nope: unknown property nope'],
      [{ ...ok, levels: [] }, 'levels: must be an object'],
      [{ ...ok, levels: { level4: { property: 'ram' } } }, 'levels.level4: unknown level (level1 to level3)'],
      [{ ...ok, levels: { level2: { property: 'ram' } } }, 'levels.level2: needs level1'],
      [
        { ...ok, dateSplit: 'week', levels: { level1: { property: 'ram' }, level2: { property: 'vm' } } },
        'levels.level2: only level1 is allowed with dateSplit',
      ],
      [{ ...ok, levels: { level1: {} } }, 'levels.level1.property: required'],
      [{ ...ok, levels: { level1: { property: 'nope' } } }, 'levels.level1.property: unknown property nope'],
      [
        { ...ok, levels: { level1: { property: 'geography' } } },
        'levels.level1.property: segment geography by one of its levels: geography.continent, geography.country, geography.usState',
      ],
      [
        { ...ok, levels: { level1: { property: 'optOut' } } },
        'levels.level1.property: optOut cannot be used for segmentation',
      ],
      [
        { ...ok, levels: { level1: { property: 'ram', sort: 'size' } } },
        'levels.level1.sort: must be one of alpha, new, active, lost',
      ],
      [
        { ...ok, levels: { level1: { property: 'ram', sortDirection: 'up' } } },
        'levels.level1.sortDirection: must be one of asc, desc',
      ],
      [
        {
          ...ok,
          levels: {
            level1: {
              property: 'vm',
              segments: [
                { type: 'string', value: 'x' },
                { type: 'regex', value: 'V' },
              ],
            },
          },
        },
        'levels.level1.segments[1].segmentLabel: required when split is false',
      ],
      [
        { ...ok, levels: { level1: { property: 'ram', segments: [{ type: 'string', value: 'x' }] } } },
        'levels.level1.segments[0].type: must be one of number, numberRange',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(DATE_RANGE, body);
      expect({ status: r.status, body: r.json }).toEqual({ status: 400, body: { error: 'Bad Request', message } });
    }
  });

  it('answers 404 for an unknown product and 401 without a session', async () => {
    const body = { startDate: '2026-01-01', stopDate: '2026-02-01', clientStatus: ['active'] };
    const r = await s.post(DATE_RANGE, body, '55555555555');
    expect(r.status).toBe(404);
    expect(r.json.error).toBe('Not Found');
    const anonymous = await fetch(`${emu.baseUrl}${DATE_RANGE}/${s.productId}`, {
      method: 'POST',
      headers: { Origin: emu.origin },
      body: JSON.stringify(body),
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('currentReport', () => {
  it('without levels: totals of the window startDate…today, as dateRangeReport over the same range', async () => {
    const body = {
      startDate: '2026-09-01',
      clientStatus: ALL3,
      daysUntilDeclaredLost: 21,
      dateReportedLost: 'dateLastSeen',
    };
    const [cur, range] = await Promise.all([
      s.post(CURRENT, { ...body, stopDate: '2026-09-10', dateSplit: 'week' }), // dateRangeReport's members only: ignored
      s.post(DATE_RANGE, { ...body, stopDate: TEST_TODAY }),
    ]);
    expect(cur.status).toBe(200);
    expect(cur.json).toEqual({ result: { totals: range.json.result.totals } });
    const expected = reference(day('2026-09-01'), TODAY, { lost: { days: 21, mode: 'dateLastSeen' } });
    expect(cur.json.result.totals).toEqual([...expected.values()][0]);
  });

  it('with levels: level1 only (no totals), percentages of all active units', async () => {
    const continent = valuesOf('geography.continent');
    const body = {
      startDate: '2026-10-20',
      clientStatus: ['active'],
      groupBy: 'machineId',
      resultMode: 'percentOfActive',
      levels: {
        level1: {
          property: 'geography.continent',
          segments: [{ type: 'regex', value: '', split: true, includeNull: true }],
        },
      },
    };
    const r = await s.post(CURRENT, body);
    expect(Object.keys(r.json.result)).toEqual(['level1']);
    const all = [...reference(day('2026-10-20'), TODAY, { unit: valuesOf('machineId') }).values()][0]!.active;
    let sum = 0;
    for (const [label, node] of Object.entries(r.json.result.level1 as Record<string, { totals: C }>)) {
      const want = label === '<NULL>' ? null : label;
      const units = [
        ...reference(day('2026-10-20'), TODAY, {
          unit: valuesOf('machineId'),
          include: (i) => continent(i) === want,
        }).values(),
      ][0]!;
      expect(node.totals.active).toBe(Math.round((units.active * 1000) / all) / 10);
      sum += node.totals.active;
    }
    // Every machine lies in some segment; a machine whose clients sit on two continents counts in both.
    expect(sum).toBeGreaterThan(99.5);
  });

  it('answers 400 for a start after today and for a missing startDate', async () => {
    const a = await s.post(CURRENT, { startDate: '2026-11-21', clientStatus: ['active'] });
    expect(a.json).toEqual({ error: 'Bad Request', message: 'startDate: must not be after today' });
    const b = await s.post(CURRENT, { clientStatus: ['active'] });
    expect(b.json.message).toBe('startDate: required');
    const c = await s.post(CURRENT, { startDate: '2026-11-01', clientStatus: 'active' });
    expect(c.json.message).toBe('clientStatus: must be an array');
  });
});
