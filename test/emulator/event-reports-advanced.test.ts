/**
 * advancedFullReport over real sockets: per-event metrics over the clients active in the range, usageFrequency
 * buckets, the segmented flat layout and sort, and the rejection of non-advanced events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCountBetween, usageBetween } from '../../emulator/data/activity.ts';
import { parseDay } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

const ADVANCED = '/v3/reporting/eventTracking/advanced/fullReport';
const START = '2026-07-01';
const STOP = '2026-10-31';
const range = { startDate: START, stopDate: STOP };
/**
 * The usageFrequency bucket edges of advancedFullReport (docs/interface.md "Event tracking reports"): 1, 2, 3, 4, 5,
 * 6–7, 8–10, … 2001–5000, ≥ 5001.
 */
const EDGES = [1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 2000, 5000];

interface Item {
  category: string | null;
  name: string;
  segmentLabel?: string;
  data: {
    eventCounts: number;
    averageEventCountPerSessionUsedAtLeastOnce: number;
    averageEventCountPerSessionAll: number;
    averageEventCountPerUserAtLeastOnce: number;
    averageEventCountPerUserAll: number;
    uniqueUsersUsedAtLeastOnce: number;
    uniqueUsersNeverUsed: number;
    usageFrequency: Record<string, number>;
  };
}

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

const r2 = (x: number) => Math.round(x * 100) / 100;
const div = (a: number, b: number) => (b === 0 ? 0 : r2(a / b));
const ev = (category: string | null, name: string) =>
  pd.events.findIndex((e) => e.category === category && e.name === name);

/** Expected `data` of event e over the given clients (all active in the range). */
function expected(e: number, population: number[]): Item['data'] {
  const from = parseDay(START)!;
  const to = parseDay(STOP)!;
  let count = 0;
  let users = 0;
  let sessions = 0;
  let usedSessions = 0;
  const usageFrequency: Record<string, number> = {};
  for (let b = 1; b <= 22; b++) usageFrequency[`interval${b}`] = 0;
  for (const i of population) {
    const c = eventCountBetween(pd, i, e, from, to);
    const sess = usageBetween(pd, i, from, to).sessions;
    sessions += sess;
    if (c === 0) continue;
    count += c;
    users++;
    usedSessions += sess;
    const bucket = EDGES.findIndex((edge) => c <= edge);
    usageFrequency[`interval${bucket === -1 ? 22 : bucket + 1}`]!++;
  }
  return {
    eventCounts: count,
    averageEventCountPerSessionUsedAtLeastOnce: div(count, usedSessions),
    averageEventCountPerSessionAll: div(count, sessions),
    averageEventCountPerUserAtLeastOnce: div(count, users),
    averageEventCountPerUserAll: div(count, population.length),
    uniqueUsersUsedAtLeastOnce: users,
    uniqueUsersNeverUsed: population.length - users,
    usageFrequency,
  };
}
const activePopulation = () =>
  [...Array(pd.n).keys()].filter((i) => usageBetween(pd, i, parseDay(START)!, parseDay(STOP)!).activeDays > 0);

describe('advancedFullReport', () => {
  const events = [
    { category: 'File', name: 'Open' },
    { category: 'Report', name: 'Generate' },
  ];

  it('reports each advanced event over the clients active in the range, in request order', async () => {
    const r = await s.post(ADVANCED, { ...range, events: [events[1], events[0]] });
    expect(r.status).toBe(200);
    const items = r.json.result.detailedReport as Item[];
    expect(items.map((x) => x.name)).toEqual(['Generate', 'Open']);
    const population = activePopulation();
    for (const item of items) {
      expect(Object.keys(item)).toEqual(['category', 'name', 'data']);
      expect(item.data).toEqual(expected(ev(item.category, item.name), population));
      const spread = Object.values(item.data.usageFrequency).reduce((a, b) => a + b, 0);
      expect(spread).toBe(item.data.uniqueUsersUsedAtLeastOnce);
      expect(item.data.uniqueUsersUsedAtLeastOnce + item.data.uniqueUsersNeverUsed).toBe(population.length);
    }
  });

  it('segments into one flat item per (segment, event), segments by label unless sorted by counts', async () => {
    const country = pd.columns.get('geography.country') as StringColumn;
    const population = activePopulation();
    const r = await s.post(ADVANCED, { ...range, events, segmentBy: 'geography.country' });
    expect(r.status).toBe(200);
    const items = r.json.result.detailedReport as Item[];
    const labels = [...new Set(items.map((x) => x.segmentLabel!))];
    expect(labels).toEqual(labels.toSorted());
    expect(labels.sort()).toEqual([...new Set(population.flatMap((i) => stringAt(country, i) ?? []))].sort());
    expect(items.length).toBe(labels.length * events.length);
    items.forEach((item, k) => {
      expect(item.name).toBe(events[k % 2]!.name);
      const members = population.filter((i) => stringAt(country, i) === item.segmentLabel);
      expect(item.data).toEqual(expected(ev(item.category, item.name), members));
    });

    const sorted = await s.post(ADVANCED, { ...range, events, segmentBy: 'geography.country', sort: 'eventCounts' });
    const byCounts = sorted.json.result.detailedReport as Item[];
    const totals: number[] = [];
    for (let k = 0; k < byCounts.length; k += 2)
      totals.push(byCounts[k]!.data.eventCounts + byCounts[k + 1]!.data.eventCounts);
    expect(totals).toEqual(totals.toSorted((a, b) => b - a));

    const desc = await s.post(ADVANCED, { ...range, events, segmentBy: 'geography.country', sortDirection: 'desc' });
    const descLabels = [...new Set((desc.json.result.detailedReport as Item[]).map((x) => x.segmentLabel))];
    expect(descLabels).toEqual(labels.toReversed());
  });

  it('applies globalFilters', async () => {
    const edition = pd.columns.get('prodEdition') as StringColumn;
    const value = edition.dict[1]!;
    const r = await s.post(ADVANCED, { ...range, events, globalFilters: { prodEdition: { type: 'string', value } } });
    const population = activePopulation().filter((i) => stringAt(edition, i) === value);
    expect((r.json.result.detailedReport as Item[])[0]!.data).toEqual(expected(ev('File', 'Open'), population));
  });

  it.each([
    [{ events: [events[0], { category: 'Edit', name: 'Undo' }] }, 'events[1]: not an advanced event of this product'],
    [{ events: [{ category: 'No', name: 'Such' }] }, 'events[0]: not an advanced event of this product'],
    [
      { events: [{ combiArray: [events[0]] }] },
      'events[0]: combination selectors are not accepted here; use {category, name}',
    ],
    [{ events: [] }, 'events: must have at least 1 item(s)'],
    [{ events: undefined }, 'events: required'],
    [{ sort: 'size' }, 'sort: must be one of alpha, eventCounts'],
    [{ sortDirection: 'up' }, 'sortDirection: must be one of asc, desc'],
    [{ segments: [] }, 'segments: requires segmentBy'],
    [
      { segmentBy: 'geography' },
      'segmentBy: segment geography by one of its levels: geography.continent, geography.country, geography.usState',
    ],
    [{ stopDate: 20261031 }, 'stopDate: must be a date string YYYY-MM-DD'],
  ])('400 %#: %s', async (extra, message) => {
    const r = await s.post(ADVANCED, { ...range, events, ...extra });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'Bad Request', message });
  });

  it('400 on a product without advanced event tracking', async () => {
    const other = emu.products.find(
      (p) => !emu.state.products.get(p.productId)!.product.features.advancedEventTracking,
    )!;
    const r = await s.post(ADVANCED, { ...range, events }, other.productId);
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('events[0]: not an advanced event of this product');
  });

  it('404 for an unknown product', async () => {
    expect((await s.post(ADVANCED, { ...range, events }, '55555555555')).status).toBe(404);
  });
});
