/**
 * lifetimeHistogram and churnLifetimeHistogram over real sockets. Expected values are computed here from the data model
 * with the core activity helpers, and the bins are read back from their labels (docs/interface.md "Bins"), so the test
 * checks labels, edges and counts together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCountBetween, forEachActiveDay } from '../../emulator/data/activity.ts';
import { parseDay, periodStart } from '../../emulator/data/dates.ts';
import { type ProductData, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

const HIST = '/v3/reporting/eventTracking/lifetime/histogram';
const CHURN_HIST = '/v3/reporting/eventTracking/churn/lifetime/histogram';
const START = '2026-08-01';
const STOP = '2026-10-31';
const today = parseDay(TEST_TODAY)!;

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

const ev = (category: string | null, name: string) =>
  pd.events.findIndex((e) => e.category === category && e.name === name);
const inRange = (i: number, from: number, to: number) => {
  let any = false;
  forEachActiveDay(pd, i, from, to, () => {
    any = true;
  });
  return any;
};
const activeClients = (match: (i: number) => boolean = () => true) =>
  [...Array(pd.n).keys()].filter((i) => inRange(i, parseDay(START)!, parseDay(STOP)!) && match(i));
const lifetime = (i: number, events: number[], end: number) =>
  events.reduce((a, e) => a + eventCountBetween(pd, i, e, pd.firstDay, end), 0);
/** Active days, distinct ISO weeks and months of client i up to `end`. */
function activity(i: number, end: number) {
  const weeks = new Set<number>();
  const months = new Set<number>();
  let days = 0;
  forEachActiveDay(pd, i, pd.firstDay, end, (d) => {
    days++;
    weeks.add(periodStart(d, 'week'));
    months.add(periodStart(d, 'month'));
  });
  return { days, weeks: weeks.size, months: months.size };
}

/** A bin label as a predicate: integer bins are closed ranges, decimal bins half-open [lo, hi). */
function binTest(label: string, integer: boolean): (v: number) => boolean {
  const open = /^≥ (\S+)$/.exec(label);
  if (open) return (v) => v >= Number(open[1]);
  const range = /^(\S+) - (\S+)$/.exec(label);
  if (range) {
    const lo = Number(range[1]);
    const hi = Number(range[2]);
    return integer ? (v) => v >= lo && v <= hi : (v) => v >= lo && v < hi;
  }
  expect(integer, `single-value label ${label} only for integer bins`).toBe(true);
  return (v) => v === Number(label);
}

interface EventValue {
  category?: string | null;
  name?: string;
  combiLabel?: string;
  value: number;
}
type Bins = { bin: string; values: EventValue[] }[];
interface Histogram {
  summary: { usedAtLeastOnce: EventValue[]; neverUsed: EventValue[] };
  result: Record<string, Bins>;
}
const labels = (bins: Bins | undefined) => bins?.map((b) => b.bin);
const binned = (bins: Bins | undefined, k: number) => bins?.reduce((a, b) => a + b.values[k]!.value, 0);

type Unit = { count: number; days: number; weeks: number; months: number };
const METRICS = ['eventCount', 'averageCountPerActiveDay', 'averageCountPerActiveWeek', 'averageCountPerActiveMonth'];
const metricValue = (u: Unit, m: string) =>
  m === 'eventCount'
    ? u.count
    : u.count / (m === 'averageCountPerActiveDay' ? u.days : m.endsWith('Week') ? u.weeks : u.months);

/** Checks summary and every bin of every metric of one selector against the units' values. */
function checkHistogram(json: Histogram, k: number, units: Unit[]) {
  const used = units.filter((u) => u.count >= 1);
  expect(json.summary.usedAtLeastOnce[k]!.value).toBe(used.length);
  expect(json.summary.neverUsed[k]!.value).toBe(units.length - used.length);
  for (const m of METRICS) {
    expect(json.result[m]!.length).toBeGreaterThan(0);
    // Bins ascend: every label's lower edge is above the previous one.
    const lows = json.result[m]!.map((b) => Number(/[\d.]+/.exec(b.bin)![0]));
    expect(lows).toEqual(lows.toSorted((a, b) => a - b));
    expect(new Set(lows).size).toBe(lows.length);
    for (const { bin, values } of json.result[m]!) {
      const test = binTest(bin, m === 'eventCount');
      expect(values[k]!.value, `${m} ${bin}`).toBe(used.filter((u) => test(metricValue(u, m))).length);
    }
  }
}

const clientUnit = (i: number, events: number[], end: number): Unit => ({
  count: lifetime(i, events, end),
  ...activity(i, end),
});

describe('lifetimeHistogram', () => {
  it('bins every population client by its lifetime counts with the default bins', async () => {
    const combi = { combiLabel: 'Editing', combiArray: [{ category: 'Edit', name: '.*', nameType: 'regex' }] };
    const r = await s.post(HIST, {
      startDate: START,
      stopDate: STOP,
      events: [{ category: 'File', name: 'Open' }, combi],
    });
    expect(r.status).toBe(200);
    const stop = parseDay(STOP)!;
    const population = activeClients();
    expect(population.length).toBeGreaterThan(50);
    const h = r.json as Histogram;
    expect(h.summary.usedAtLeastOnce.map((v) => Object.keys(v).sort())).toEqual([
      ['category', 'name', 'value'],
      ['combiLabel', 'value'],
    ]);
    expect(r.json.summary.usedAtLeastOnce[1].combiLabel).toBe('Editing');
    const open = [ev('File', 'Open')];
    const edit = pd.events.flatMap((e, k) => (e.category === 'Edit' ? [k] : []));
    checkHistogram(
      r.json,
      0,
      population.map((i) => clientUnit(i, open, stop)),
    );
    checkHistogram(
      r.json,
      1,
      population.map((i) => clientUnit(i, edit, stop)),
    );

    expect(labels(r.json.result.eventCount)).toEqual(['1', '2', '3 - 4', '5 - 8', '9 - 16', '17 - 32', '≥ 33']);
    expect(labels(r.json.result.averageCountPerActiveDay)).toEqual([
      '0.0 - 0.1',
      '0.1 - 0.2',
      '0.2 - 0.4',
      '0.4 - 0.6',
      '0.6 - 0.8',
      '0.8 - 1.0',
      '1.0 - 2.0',
      '2.0 - 4.0',
      '4.0 - 6.0',
      '6.0 - 10.0',
      '10.0 - 50.0',
      '50.0 - 100.0',
      '≥ 100.0',
    ]);
    expect(r.json.result.averageCountPerActiveWeek[0].bin).toBe('0.0 - 0.5');
    expect(r.json.result.averageCountPerActiveMonth.at(-1).bin).toBe('≥ 200.0');
    // The default bins are open-ended at the top and start at the lowest possible value: every user is binned.
    for (const m of METRICS)
      for (const k of [0, 1]) expect(binned(h.result[m], k), m).toBe(h.summary.usedAtLeastOnce[k]!.value);
  });

  it('labels combinations without combiLabel by their entries and matches uncategorised events', async () => {
    const r = await s.post(HIST, {
      startDate: START,
      stopDate: STOP,
      events: [
        {
          combiArray: [
            { category: 'Edit', name: 'Undo' },
            { category: 'File', name: 'Save' },
          ],
        },
        { category: null, name: 'Startup' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json.summary.usedAtLeastOnce[0].combiLabel).toBe('Edit/Undo, File/Save');
    expect(r.json.summary.usedAtLeastOnce[1]).toMatchObject({ category: null, name: 'Startup' });
    const stop = parseDay(STOP)!;
    const population = activeClients();
    checkHistogram(
      r.json,
      0,
      population.map((i) => clientUnit(i, [ev('Edit', 'Undo'), ev('File', 'Save')], stop)),
    );
    checkHistogram(
      r.json,
      1,
      population.map((i) => clientUnit(i, [ev(null, 'Startup')], stop)),
    );
  });

  it('uses requested bounds: lower edges, single-value and open labels, nothing outside the bins', async () => {
    const r = await s.post(HIST, {
      startDate: START,
      stopDate: STOP,
      events: [{ category: 'File', name: 'Save' }],
      lowerBounds: { eventCount: 2, averageCountPerActiveDay: 0.5 },
      binUpperBounds: {
        eventCount: [2, 3, 10, 'inf'],
        averageCountPerActiveDay: [1, 2.25],
        averageCountPerActiveWeek: ['inf'],
      },
    });
    expect(r.status).toBe(200);
    expect(labels(r.json.result.eventCount)).toEqual(['2', '3', '4 - 10', '≥ 11']);
    expect(labels(r.json.result.averageCountPerActiveDay)).toEqual(['0.5 - 1.0', '1.0 - 2.25']);
    expect(labels(r.json.result.averageCountPerActiveWeek)).toEqual(['≥ 0.0']);
    const units = activeClients().map((i) => clientUnit(i, [ev('File', 'Save')], parseDay(STOP)!));
    checkHistogram(r.json, 0, units);
    expect(binned(r.json.result.eventCount, 0)).toBe(units.filter((u) => u.count >= 2).length);
  });

  it('groups by a custom property: units are its distinct values, counts summed over their clients', async () => {
    const col = pd.columns.get('C01')!;
    if (col.kind !== 'string') throw new Error('C01 is a string column');
    const r = await s.post(HIST, {
      startDate: START,
      stopDate: STOP,
      groupBy: 'C01',
      events: [{ category: 'Report', name: 'Generate' }],
    });
    expect(r.status).toBe(200);
    const values = new Set(activeClients().flatMap((i) => stringAt(col, i) ?? []));
    const stop = parseDay(STOP)!;
    const e = ev('Report', 'Generate');
    const units = [...values].map((v) => {
      const members = [...Array(pd.n).keys()].filter((i) => stringAt(col, i) === v);
      const sum = (f: (u: Unit) => number) => members.reduce((a, i) => a + f(clientUnit(i, [e], stop)), 0);
      return {
        count: sum((u) => u.count),
        days: sum((u) => u.days),
        weeks: sum((u) => u.weeks),
        months: sum((u) => u.months),
      };
    });
    expect(units.length).toBeGreaterThan(0);
    checkHistogram(r.json, 0, units);
  });

  it('applies globalFilters to the population', async () => {
    const col = pd.columns.get('prodEdition')!;
    if (col.kind !== 'string') throw new Error('prodEdition is a string column');
    const edition = col.dict[0]!;
    const r = await s.post(HIST, {
      startDate: START,
      stopDate: STOP,
      globalFilters: { prodEdition: { type: 'string', value: edition } },
      events: [{ category: 'File', name: 'Open' }],
    });
    expect(r.status).toBe(200);
    const population = activeClients((i) => stringAt(col, i) === edition);
    checkHistogram(
      r.json,
      0,
      population.map((i) => clientUnit(i, [ev('File', 'Open')], parseDay(STOP)!)),
    );
  });

  const base = { startDate: START, stopDate: STOP, events: [{ category: 'File', name: 'Open' }] };
  it.each([
    [{ ...base, events: undefined }, 'events: required'],
    [{ ...base, events: [] }, 'events: must have at least 1 item(s)'],
    [{ ...base, startDate: '2026-11-01' }, 'startDate: must not be after stopDate'],
    [{ ...base, stopDate: '2026-13-01' }, 'stopDate: invalid date (expected YYYY-MM-DD)'],
    [
      { ...base, groupBy: 'prodVersion' },
      'groupBy: must be clientId, machineId, licenseKey or a configured custom property C01–C20',
    ],
    [{ ...base, groupBy: 'C07' }, 'groupBy: C07 is not a configured custom property'],
    [{ ...base, globalFilters: { nope: { type: 'string', value: 'x' } } }, 'globalFilters.nope: unknown property nope'],
    [
      { ...base, binUpperBounds: { eventCount: [1, 4, 3] } },
      'binUpperBounds.eventCount[2]: must be greater than the previous bound (bounds ascend)',
    ],
    [
      { ...base, binUpperBounds: { eventCount: [1, 1] } },
      'binUpperBounds.eventCount[1]: must be greater than the previous bound (bounds ascend)',
    ],
    [
      { ...base, binUpperBounds: { eventCount: [1, 'inf', 3] } },
      'binUpperBounds.eventCount[1]: "inf" is allowed only as the last item',
    ],
    [{ ...base, binUpperBounds: { eventCount: [1.5] } }, 'binUpperBounds.eventCount[0]: must be an integer or "inf"'],
    [
      { ...base, binUpperBounds: { averageCountPerActiveDay: [0.125] } },
      'binUpperBounds.averageCountPerActiveDay[0]: must have at most 2 decimal places',
    ],
    [
      { ...base, binUpperBounds: { averageCountPerActiveWeek: ['x'] } },
      'binUpperBounds.averageCountPerActiveWeek[0]: must be a number or "inf"',
    ],
    [{ ...base, binUpperBounds: { eventCount: [] } }, 'binUpperBounds.eventCount: must have at least 1 item(s)'],
    [{ ...base, binUpperBounds: { eventCount: 5 } }, 'binUpperBounds.eventCount: must be an array'],
    [{ ...base, binUpperBounds: [] }, 'binUpperBounds: must be an object'],
    [
      { ...base, lowerBounds: { eventCount: 5 } },
      'lowerBounds.eventCount: must not be above the first upper bound (1)',
    ],
    [
      {
        ...base,
        lowerBounds: { averageCountPerActiveMonth: 3 },
        binUpperBounds: { averageCountPerActiveMonth: [2, 'inf'] },
      },
      'lowerBounds.averageCountPerActiveMonth: must not be above the first upper bound (2)',
    ],
    [
      { ...base, binUpperBounds: { averageCountPerActiveDay: [-1, 'inf'] } },
      'binUpperBounds.averageCountPerActiveDay[0]: must not be below the lower bound (0)',
    ],
    [{ ...base, lowerBounds: { eventCount: 0 } }, 'lowerBounds.eventCount: must be ≥ 1'],
    [{ ...base, lowerBounds: { eventCount: 1.5 } }, 'lowerBounds.eventCount: must be an integer'],
    [{ ...base, lowerBounds: { averageCountPerActiveDay: -0.1 } }, 'lowerBounds.averageCountPerActiveDay: must be ≥ 0'],
  ])('400 %#: %s', async (body, message) => {
    const r = await s.post(HIST, body);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'Bad Request', message: expect.stringContaining(message) });
    expect(r.json.message).toBe(message);
  });

  it('404 for a product that is not the user’s', async () => {
    const r = await s.post(HIST, base, '55555555555');
    expect(r.status).toBe(404);
    expect(r.json.error).toBe('Not Found');
  });
});

describe('churnLifetimeHistogram', () => {
  /** Clients lost in the range, by plain day arithmetic on lastSeenDay. */
  const lost = (d: number, mode: string) =>
    [...Array(pd.n).keys()].filter((i) => {
      const declared = pd.lastSeenDay[i]! + d;
      const reported = mode === 'dateDeclaredLost' ? declared : pd.lastSeenDay[i]!;
      return declared <= today && reported >= parseDay(START)! && reported <= parseDay(STOP)!;
    });

  it.each(['dateDeclaredLost', 'dateLastSeen'])(
    'bins the clients lost in the range (%s) by their lifetime',
    async (mode) => {
      const r = await s.post(CHURN_HIST, {
        startDate: START,
        stopDate: STOP,
        daysUntilDeclaredLost: 14,
        dateReportedLost: mode,
        events: [{ category: 'File', name: 'Open' }],
      });
      expect(r.status).toBe(200);
      const population = lost(14, mode);
      expect(population.length).toBeGreaterThan(5);
      const summary = r.json.summary;
      expect(summary.usedAtLeastOnce[0].value + summary.neverUsed[0].value).toBe(population.length);
      // A lost client's lifetime ends on its last-seen day.
      checkHistogram(
        r.json,
        0,
        population.map((i) => clientUnit(i, [ev('File', 'Open')], pd.lastSeenDay[i]!)),
      );
    },
  );

  const base = {
    startDate: START,
    stopDate: STOP,
    daysUntilDeclaredLost: 30,
    dateReportedLost: 'dateLastSeen',
    events: [{ category: 'File', name: 'Open' }],
  };
  it.each([
    [{ ...base, daysUntilDeclaredLost: undefined }, 'daysUntilDeclaredLost: required'],
    [{ ...base, daysUntilDeclaredLost: 0 }, 'daysUntilDeclaredLost: must be ≥ 1'],
    [{ ...base, dateReportedLost: 'never' }, 'dateReportedLost: must be one of dateLastSeen, dateDeclaredLost'],
    [
      { ...base, binUpperBounds: { eventCount: [3, 2] } },
      'binUpperBounds.eventCount[1]: must be greater than the previous bound (bounds ascend)',
    ],
    [{ ...base, events: 'File' }, 'events: must be an array'],
  ])('400 %#: %s', async (body, message) => {
    const r = await s.post(CHURN_HIST, body);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(message);
  });

  it('404 for an unknown product', async () => {
    expect((await s.post(CHURN_HIST, base, '55555555555')).status).toBe(404);
  });
});
