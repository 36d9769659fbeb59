/**
 * lifetimeDataTable and churnLifetimeDataTable over real sockets: rows, metrics, sorting, paging,
 * categorizeEvents, segments and groupBy, checked against values computed here from the data model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeDaysBetween, eventCountBetween } from '../../emulator/data/activity.ts';
import { parseDay } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

const TABLE = '/v3/reporting/eventTracking/lifetime/dataTable';
const CHURN_TABLE = '/v3/reporting/eventTracking/churn/lifetime/dataTable';
const START = '2026-09-01';
const STOP = '2026-10-31';
const range = { startDate: START, stopDate: STOP };
const today = parseDay(TEST_TODAY)!;

interface Metrics {
  eventCount: number;
  uniqueUsersUsedAtLeastOnce: number;
  percentUsedAtLeastOnce: number;
  eventCountPerUserUsedAtLeastOnce: number;
  eventCountPerUserUsedAtLeastOnceActiveDay: number;
}
type Segment = Metrics & { segmentLabel: string; active: number };
type Row = Metrics & { eventCategory: string | null; eventName: string; segments?: Segment[] };
interface Table {
  returnedEventsCount: number;
  matchingEventsCount: number;
  result: Row[];
}

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
let edition: StringColumn;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
  edition = pd.columns.get('prodEdition') as StringColumn;
});
afterAll(() => emu.close());

const clients = () => [...Array(pd.n).keys()];
const activePopulation = () => clients().filter((i) => activeDaysBetween(pd, i, parseDay(START)!, parseDay(STOP)!) > 0);
const eventIndex = (row: { eventCategory: string | null; eventName: string }) =>
  pd.events.findIndex((e) => e.category === row.eventCategory && e.name === row.eventName);
const r2 = (x: number) => Math.round(x * 100) / 100;
const div = (a: number, b: number) => (b === 0 ? 0 : r2(a / b));

/** Expected metrics of event e over units, each unit a list of clients whose lifetimes end at end(i). */
function expected(e: number, units: number[][], end: (i: number) => number): Metrics {
  let count = 0;
  let users = 0;
  let days = 0;
  for (const unit of units) {
    const c = unit.reduce((a, i) => a + eventCountBetween(pd, i, e, pd.firstDay, end(i)), 0);
    if (c === 0) continue;
    count += c;
    users++;
    days += unit.reduce((a, i) => a + activeDaysBetween(pd, i, pd.firstDay, end(i)), 0);
  }
  return {
    eventCount: count,
    uniqueUsersUsedAtLeastOnce: users,
    percentUsedAtLeastOnce: units.length === 0 ? 0 : Math.round((users / units.length) * 1000) / 10,
    eventCountPerUserUsedAtLeastOnce: div(count, users),
    eventCountPerUserUsedAtLeastOnceActiveDay: div(count, days),
  };
}
const metricsOf = ({ segments: _s, eventCategory: _c, eventName: _n, ...m }: Row) => m;
const alpha = (a: Row, b: Row) => {
  if (a.eventCategory !== b.eventCategory) {
    if (a.eventCategory === null) return 1;
    if (b.eventCategory === null) return -1;
    return a.eventCategory < b.eventCategory ? -1 : 1;
  }
  return a.eventName < b.eventName ? -1 : a.eventName > b.eventName ? 1 : 0;
};
const stop = () => parseDay(STOP)!;

describe('lifetimeDataTable', () => {
  it('returns one row per event, alphabetically, with lifetime metrics over the active population', async () => {
    const r = await s.post(TABLE, range);
    expect(r.status).toBe(200);
    const t = r.json as Table;
    expect(t.matchingEventsCount).toBe(pd.events.length);
    expect(t.returnedEventsCount).toBe(pd.events.length);
    expect(t.result).toEqual([...t.result].sort(alpha));
    expect(t.result.at(-1)!.eventCategory).toBeNull();
    const units = activePopulation().map((i) => [i]);
    for (const row of t.result) {
      expect(row.segments).toBeUndefined();
      expect(metricsOf(row), row.eventName).toEqual(expected(eventIndex(row), units, stop));
    }
  });

  it('keeps only events matched by the selectors, one row per event', async () => {
    const events = [
      { combiArray: [{ category: 'File', name: '.*', nameType: 'regex' }] },
      { category: 'File', name: 'Open' },
      { category: null, name: 'Startup' },
    ];
    const r = await s.post(TABLE, { ...range, events });
    const t = r.json as Table;
    const expectedRows = pd.events.filter((e) => e.category === 'File' || e.name === 'Startup').length;
    expect(t.matchingEventsCount).toBe(expectedRows);
    expect(t.result.map((row) => row.eventCategory ?? 'none').sort()).toEqual(
      [...Array(expectedRows - 1).fill('File'), 'none'].sort(),
    );
  });

  it.each([
    ['eventCounts', 'desc', 'eventCount'],
    ['uniqueUsersUsedAtLeastOnce', 'asc', 'uniqueUsersUsedAtLeastOnce'],
    ['eventCounts', undefined, 'eventCount'],
  ] as const)('sorts by %s %s, ties by category and name', async (key, direction, metric) => {
    const r = await s.post(TABLE, { ...range, sorting: { events: key, eventsDirection: direction } });
    const rows = (r.json as Table).result;
    const sign = direction === 'asc' ? 1 : -1;
    for (let k = 1; k < rows.length; k++) {
      const d = sign * (rows[k]![metric] - rows[k - 1]![metric]);
      expect(d).toBeGreaterThanOrEqual(0);
      if (d === 0) expect(alpha(rows[k - 1]!, rows[k]!)).toBeLessThan(0);
    }
  });

  it('pages over the sorted rows with consistent slices and counts', async () => {
    const sorting = { events: 'eventCounts', eventsDirection: 'asc' };
    const full = (await s.post(TABLE, { ...range, sorting })).json as Table;
    const pages: Row[] = [];
    for (let startAt = 0; startAt < full.matchingEventsCount + 5; startAt += 5) {
      const page = (await s.post(TABLE, { ...range, sorting, paging: { startAt, limit: 5 } })).json as Table;
      expect(page.matchingEventsCount).toBe(full.matchingEventsCount);
      expect(page.returnedEventsCount).toBe(page.result.length);
      expect(page.result).toEqual(full.result.slice(startAt, startAt + 5));
      pages.push(...page.result);
    }
    expect(pages).toEqual(full.result);
    const first = (await s.post(TABLE, { ...range, sorting, paging: { limit: 3 } })).json as Table;
    expect(first.result).toEqual(full.result.slice(0, 3));
  });

  it('groups the rows of a page by category with categorizeEvents', async () => {
    const body = { ...range, sorting: { events: 'eventCounts' }, paging: { startAt: 2, limit: 9 } };
    const flat = ((await s.post(TABLE, body)).json as Table).result;
    const r = await s.post(TABLE, { ...body, categorizeEvents: true });
    expect(r.json.returnedEventsCount).toBe(9);
    const groups = r.json.result as { eventCategory: string | null; categoryData: Omit<Row, 'eventCategory'>[] }[];
    expect(groups.map((g) => g.eventCategory)).toEqual([...new Set(flat.map((row) => row.eventCategory))]);
    const regrouped = groups.flatMap((g) => g.categoryData.map((d) => ({ eventCategory: g.eventCategory, ...d })));
    expect(regrouped).toEqual(groups.flatMap((g) => flat.filter((row) => row.eventCategory === g.eventCategory)));
  });

  it('segments each row; segment active and metrics cover the segment’s population', async () => {
    const r = await s.post(TABLE, { ...range, segmentBy: 'prodEdition', sorting: { segments: 'active' } });
    const t = r.json as Table;
    const population = activePopulation();
    const values = [...new Set(population.map((i) => stringAt(edition, i)!))];
    for (const row of t.result) {
      const segs = row.segments!;
      expect(segs.map((g) => g.segmentLabel).sort()).toEqual([...values].sort());
      for (let k = 1; k < segs.length; k++) expect(segs[k]!.active).toBeLessThanOrEqual(segs[k - 1]!.active);
      expect(segs.reduce((a, g) => a + g.active, 0)).toBe(population.length);
      expect(segs.reduce((a, g) => a + g.eventCount, 0)).toBe(row.eventCount);
      for (const { segmentLabel, active, ...m } of segs) {
        const members = population.filter((i) => stringAt(edition, i) === segmentLabel);
        expect(active).toBe(members.length);
        expect(m).toEqual(
          expected(
            eventIndex(row),
            members.map((i) => [i]),
            stop,
          ),
        );
      }
    }
  });

  it('orders segments per row by the requested metric, and lists explicit segments even when empty', async () => {
    const segments = [
      { type: 'string', value: 'no such edition', segmentLabel: 'Empty' },
      { type: 'regex', value: '.', split: true },
    ];
    const sorting = { segments: 'percentUsedAtLeastOnce', segmentsDirection: 'asc' };
    const t = (await s.post(TABLE, { ...range, segmentBy: 'prodEdition', segments, sorting })).json as Table;
    for (const row of t.result) {
      const segs = row.segments!;
      expect(segs.find((g) => g.segmentLabel === 'Empty')).toMatchObject({ active: 0, eventCount: 0 });
      for (let k = 1; k < segs.length; k++)
        expect(segs[k]!.percentUsedAtLeastOnce).toBeGreaterThanOrEqual(segs[k - 1]!.percentUsedAtLeastOnce);
    }
    const byLabel = (await s.post(TABLE, { ...range, segmentBy: 'prodEdition', sorting: { segments: 'alpha' } }))
      .json as Table;
    const labels = byLabel.result[0]!.segments!.map((g) => g.segmentLabel);
    expect(labels).toEqual([...labels].sort());
  });

  it('groups by licenseKey: units are keys held by the population, counts summed over all their clients', async () => {
    const keys = pd.columns.get('licenseKey') as StringColumn;
    const held = new Set(activePopulation().flatMap((i) => stringAt(keys, i) ?? []));
    const units = [...held].map((k) => clients().filter((i) => stringAt(keys, i) === k));
    const t = (await s.post(TABLE, { ...range, groupBy: 'licenseKey' })).json as Table;
    expect(units.length).toBeGreaterThan(10);
    for (const row of t.result) expect(metricsOf(row)).toEqual(expected(eventIndex(row), units, stop));
  });

  it('segments grouped units without changing the rows’ totals', async () => {
    const plain = (await s.post(TABLE, { ...range, groupBy: 'machineId' })).json as Table;
    const segmented = (await s.post(TABLE, { ...range, groupBy: 'machineId', segmentBy: 'prodEdition' })).json as Table;
    expect(segmented.result.map(metricsOf)).toEqual(plain.result.map(metricsOf));
    const machine = pd.columns.get('machineId') as StringColumn;
    const units = new Set(activePopulation().map((i) => stringAt(machine, i))).size;
    for (const row of segmented.result) {
      // Editions do not overlap and every client has one, so a unit's clients split its counts among the segments.
      expect(row.segments!.reduce((a, g) => a + g.eventCount, 0)).toBe(row.eventCount);
      // A unit appears in every segment its clients fall in, so the segments hold at least all population units.
      expect(row.segments!.reduce((a, g) => a + g.active, 0)).toBeGreaterThanOrEqual(units);
      for (const g of row.segments!) expect(g.active).toBeLessThanOrEqual(units);
    }
  });

  it.each([
    [{ paging: { limit: 1001 } }, 'paging.limit: must be ≤ 1000'],
    [{ paging: { limit: 0 } }, 'paging.limit: must be ≥ 1'],
    [{ paging: { startAt: -1 } }, 'paging.startAt: must be ≥ 0'],
    [{ paging: { startAt: 1.5 } }, 'paging.startAt: must be an integer'],
    [{ paging: 3 }, 'paging: must be an object'],
    [{ segments: [{ type: 'string', value: 'x' }] }, 'segments: requires segmentBy'],
    [{ segmentBy: 'nope' }, 'segmentBy: unknown property nope'],
    [
      { segmentBy: 'prodEdition', segments: [{ type: 'regex', value: '.' }] },
      'segments[0].segmentLabel: required when split is false',
    ],
    [{ sorting: { events: 'bogus' } }, 'sorting.events: must be one of alpha, eventCounts, uniqueUsersUsedAtLeastOnce'],
    [{ sorting: { eventsDirection: 'up' } }, 'sorting.eventsDirection: must be one of asc, desc'],
    [
      { sorting: { segments: 'size' } },
      'sorting.segments: must be one of alpha, active, eventCounts, uniqueUsersUsedAtLeastOnce, percentUsedAtLeastOnce',
    ],
    [{ sorting: { segmentsDirection: 1 } }, 'sorting.segmentsDirection: must be one of asc, desc'],
    [{ categorizeEvents: 'yes' }, 'categorizeEvents: must be a boolean'],
    [{ events: [] }, 'events: must have at least 1 item(s)'],
    [{ events: [{ category: 'File' }] }, 'events[0].name: required'],
    [{ groupBy: 'os' }, 'groupBy: must be clientId, machineId, licenseKey or a configured custom property C01–C20'],
    [{ startDate: undefined }, 'startDate: required'],
  ])('400 %#: %s', async (extra, message) => {
    const r = await s.post(TABLE, { ...range, ...extra });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'Bad Request', message });
  });

  it('404 for an unknown product', async () => {
    expect((await s.post(TABLE, range, '55555555555')).status).toBe(404);
  });
});

describe('churnLifetimeDataTable', () => {
  const body = { ...range, daysUntilDeclaredLost: 21, dateReportedLost: 'dateDeclaredLost' };
  const lost = () =>
    clients().filter((i) => {
      const declared = pd.lastSeenDay[i]! + 21;
      return declared <= today && declared >= parseDay(START)! && declared <= stop();
    });

  it('counts the lifetimes of the clients lost in the range', async () => {
    const r = await s.post(CHURN_TABLE, { ...body, segmentBy: 'prodEdition' });
    expect(r.status).toBe(200);
    const t = r.json as Table;
    const population = lost();
    expect(population.length).toBeGreaterThan(5);
    expect(t.matchingEventsCount).toBe(pd.events.length);
    const lastSeen = (i: number) => pd.lastSeenDay[i]!;
    for (const row of t.result) {
      expect(row.segments!.reduce((a, g) => a + g.active, 0)).toBe(population.length);
      expect(metricsOf(row)).toEqual(
        expected(
          eventIndex(row),
          population.map((i) => [i]),
          lastSeen,
        ),
      );
    }
  });

  it('pages and categorizes like lifetimeDataTable', async () => {
    const full = (await s.post(CHURN_TABLE, body)).json as Table;
    const page = (await s.post(CHURN_TABLE, { ...body, paging: { startAt: 4, limit: 4 } })).json as Table;
    expect(page.result).toEqual(full.result.slice(4, 8));
    expect(page.matchingEventsCount).toBe(full.matchingEventsCount);
  });

  it.each([
    [{ dateReportedLost: undefined }, 'dateReportedLost: required'],
    [{ daysUntilDeclaredLost: 'x' }, 'daysUntilDeclaredLost: must be a number'],
    [{ paging: { limit: 5000 } }, 'paging.limit: must be ≤ 1000'],
    [
      { sorting: { events: 'active' } },
      'sorting.events: must be one of alpha, eventCounts, uniqueUsersUsedAtLeastOnce',
    ],
  ])('400 %#: %s', async (extra, message) => {
    const r = await s.post(CHURN_TABLE, { ...body, ...extra });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(message);
  });

  it('404 for an unknown product', async () => {
    expect((await s.post(CHURN_TABLE, body, '55555555555')).status).toBe(404);
  });
});
