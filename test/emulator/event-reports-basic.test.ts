/**
 * basicDataTable and basicTimeline over real sockets, checked against range counts computed here from the
 * data model, and against each other (a timeline's periods add up to the data table's range total).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCountBetween, usageBetween } from '../../emulator/data/activity.ts';
import { addMonths, formatDay, parseDay } from '../../emulator/data/dates.ts';
import type { ProductData } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

const BASIC = '/v3/reporting/eventTracking/basic/dataTable';
const TIMELINE = '/v3/reporting/eventTracking/basic/timeline';
const START = '2026-08-13';
const STOP = '2026-10-20';
const range = { startDate: START, stopDate: STOP };

interface Usage {
  cumulativeUsageCount: number;
  uniqueUsers: number;
  usageCountPerUser: number;
  usageCountPerSession: number;
  usageCountPerRuntimeHour: number;
}
interface Custom {
  valueCount: number;
  sum: number;
  average: number | null;
  min: number | null;
  max: number | null;
}
interface Category {
  category: string | null;
  categoryUsageSummary: Usage;
  categoryCustomValuesSummary: Custom;
  categoryEventsData: Record<string, { eventUsage: Usage; eventCustomValues: Custom }>;
}
type Timeline = Record<string, { category?: string | null; name?: string; combiLabel?: string; value: number }[]>;

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

const day = parseDay;
const clients = () => [...Array(pd.n).keys()];
const r2 = (x: number) => Math.round(x * 100) / 100;
const div = (a: number, b: number) => (b === 0 ? 0 : r2(a / b));
const ev = (category: string | null, name: string) =>
  pd.events.findIndex((e) => e.category === category && e.name === name);
/** Occurrences of events in [from, to] summed over all clients, and the clients with at least one. */
function occurrences(events: number[], from: number, to: number) {
  let count = 0;
  let users = 0;
  for (const i of clients()) {
    const c = events.reduce((a, e) => a + eventCountBetween(pd, i, e, from, to), 0);
    count += c;
    if (c > 0) users++;
  }
  return { count, users };
}
function usage(from: number, to: number) {
  const u = { clients: 0, sessions: 0, runtimeHours: 0 };
  for (const i of clients()) {
    const t = usageBetween(pd, i, from, to);
    if (t.activeDays > 0) u.clients++;
    u.sessions += t.sessions;
    u.runtimeHours += t.runtimeMinutes / 60;
  }
  return u;
}

describe('basicDataTable', () => {
  it('lists every basic event by category with range counts and custom values', async () => {
    const r = await s.post(BASIC, range);
    expect(r.status).toBe(200);
    const result = r.json.result as Category[];
    const basic = pd.events.filter((e) => e.basic);
    const categories = [...new Set(basic.map((e) => e.category))];
    const named = categories.filter((c) => c !== null).sort();
    expect(result.map((c) => c.category)).toEqual(categories.includes(null) ? [...named, null] : named);
    const u = usage(day(START)!, day(STOP)!);
    for (const cat of result) {
      const members = basic.filter((e) => e.category === cat.category);
      expect(Object.keys(cat.categoryEventsData)).toEqual(members.map((e) => e.name).sort());
      const idx = members.map((e) => ev(e.category, e.name));
      const total = occurrences(idx, day(START)!, day(STOP)!);
      const summary = (count: number, users: number): Usage => ({
        cumulativeUsageCount: count,
        uniqueUsers: users,
        usageCountPerUser: div(count, u.clients),
        usageCountPerSession: div(count, u.sessions),
        usageCountPerRuntimeHour: div(count, u.runtimeHours),
      });
      expect(cat.categoryUsageSummary).toEqual(summary(total.count, total.users));
      let valueCount = 0;
      let sum = 0;
      for (const e of members) {
        const data = cat.categoryEventsData[e.name]!;
        const { count, users } = occurrences([ev(e.category, e.name)], day(START)!, day(STOP)!);
        expect(data.eventUsage).toEqual(summary(count, users));
        const cv = e.customValue;
        if (cv === null || count === 0)
          expect(data.eventCustomValues).toEqual({ valueCount: 0, sum: 0, average: null, min: null, max: null });
        else
          expect(data.eventCustomValues).toEqual({
            valueCount: count,
            sum: r2(count * cv),
            average: cv,
            min: cv,
            max: cv,
          });
        if (cv !== null) {
          valueCount += count;
          sum += count * cv;
        }
      }
      expect(cat.categoryCustomValuesSummary.valueCount).toBe(valueCount);
      expect(cat.categoryCustomValuesSummary.sum).toBe(r2(sum));
      expect(cat.categoryCustomValuesSummary.average).toBe(valueCount === 0 ? null : r2(sum / valueCount));
    }
    expect(result.some((c) => c.categoryCustomValuesSummary.valueCount > 0)).toBe(true);
  });

  it.each([
    [{}, 'startDate: required'],
    [{ startDate: START, stopDate: '2026-02-30' }, 'stopDate: invalid date (expected YYYY-MM-DD)'],
    [{ startDate: STOP, stopDate: START }, 'startDate: must not be after stopDate'],
  ])('400 %#: %s', async (body, message) => {
    const r = await s.post(BASIC, body);
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'Bad Request', message });
  });

  it('404 for an unknown product', async () => {
    expect((await s.post(BASIC, range, '55555555555')).status).toBe(404);
  });
});

describe('basicTimeline', () => {
  const zoom = { category: 'View', name: 'Zoom' };
  const pdfAndZoom = { combiLabel: 'PDF+Zoom', combiArray: [{ category: 'File', name: 'Export PDF' }, zoom] };

  /** Period starts and the days of the range each covers. */
  function periods(split: 'day' | 'week' | 'month') {
    const out: { key: string; from: number; to: number }[] = [];
    const start = day(START)!;
    const stop = day(STOP)!;
    let p = split === 'day' ? start : split === 'week' ? start - ((start + 3) % 7) : day(`${START.slice(0, 8)}01`)!;
    while (p <= stop) {
      const next = split === 'day' ? p + 1 : split === 'week' ? p + 7 : addMonths(p, 1);
      out.push({ key: formatDay(p), from: Math.max(p, start), to: Math.min(next - 1, stop) });
      p = next;
    }
    return out;
  }

  it.each(['day', 'week', 'month'] as const)('%s periods add up to the basicDataTable total', async (dateSplit) => {
    const r = await s.post(TIMELINE, { ...range, dateSplit, dataView: 'usageCounts', events: [zoom, pdfAndZoom] });
    expect(r.status).toBe(200);
    const t = r.json.result as Timeline;
    const expectedPeriods = periods(dateSplit);
    expect(Object.keys(t)).toEqual(expectedPeriods.map((p) => p.key));
    for (const p of expectedPeriods) {
      expect(t[p.key]!.map((v) => v.combiLabel ?? v.name)).toEqual(['Zoom', 'PDF+Zoom']);
      expect(t[p.key]![0]!.value).toBe(occurrences([ev('View', 'Zoom')], p.from, p.to).count);
    }
    const basic = (await s.post(BASIC, range)).json.result as Category[];
    const zoomTotal = basic.find((c) => c.category === 'View')!.categoryEventsData.Zoom!.eventUsage
      .cumulativeUsageCount;
    const pdfTotal = basic.find((c) => c.category === 'File')!.categoryEventsData['Export PDF']!.eventUsage
      .cumulativeUsageCount;
    const sum = (k: number) => Object.values(t).reduce((a, values) => a + values[k]!.value, 0);
    expect(sum(0)).toBe(zoomTotal);
    expect(sum(1)).toBe(zoomTotal + pdfTotal);
  });

  it.each(['users', 'sessions', 'runtime'] as const)('divides usage counts by the period’s %s', async (divisor) => {
    const r = await s.post(TIMELINE, {
      ...range,
      dateSplit: 'month',
      dataView: 'usageCounts',
      divisor,
      events: [zoom],
    });
    expect(r.status).toBe(200);
    for (const p of periods('month')) {
      const u = usage(p.from, p.to);
      const d = divisor === 'users' ? u.clients : divisor === 'sessions' ? u.sessions : u.runtimeHours;
      expect((r.json.result as Timeline)[p.key]![0]!.value).toBe(
        div(occurrences([ev('View', 'Zoom')], p.from, p.to).count, d),
      );
    }
  });

  it('sums custom values, and averages them per occurrence with divisor usageCounts', async () => {
    const body = {
      ...range,
      dateSplit: 'week',
      dataView: 'customValues',
      events: [pdfAndZoom, { category: 'Edit', name: 'Undo' }],
    };
    const sums = (await s.post(TIMELINE, body)).json.result as Timeline;
    const averages = (await s.post(TIMELINE, { ...body, divisor: 'usageCounts' })).json.result as Timeline;
    const pdf = ev('File', 'Export PDF');
    const z = ev('View', 'Zoom');
    for (const p of periods('week')) {
      const a = occurrences([pdf], p.from, p.to).count;
      const b = occurrences([z], p.from, p.to).count;
      const value = a * pd.events[pdf]!.customValue! + b * pd.events[z]!.customValue!;
      expect(sums[p.key]![0]!.value).toBe(r2(value));
      expect(averages[p.key]![0]!.value).toBe(div(value, a + b));
      // Undo carries no custom value.
      expect(sums[p.key]![1]!.value).toBe(0);
      expect(averages[p.key]![1]!.value).toBe(0);
    }
  });

  const base = { ...range, dateSplit: 'week', dataView: 'usageCounts', events: [zoom] };
  it.each([
    [{ divisor: 'usageCounts' }, 'divisor: usageCounts is allowed only with dataView customValues'],
    [{ dateSplit: undefined }, 'dateSplit: required'],
    [{ dateSplit: 'year' }, 'dateSplit: must be one of day, week, month'],
    [{ dataView: undefined }, 'dataView: required'],
    [{ dataView: 'sums' }, 'dataView: must be one of usageCounts, customValues'],
    [{ divisor: 'clients' }, 'divisor: must be one of users, sessions, runtime, usageCounts'],
    [{ events: undefined }, 'events: required'],
    [{ events: [{ combiArray: [] }] }, 'events[0].combiArray: must have at least 1 item(s)'],
    [
      { events: [{ combiArray: [{ category: 'File', name: '(', nameType: 'regex' }] }] },
      'events[0].combiArray[0].name: invalid regular expression',
    ],
  ])('400 %#: %s', async (extra, message) => {
    const r = await s.post(TIMELINE, { ...base, ...extra });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'Bad Request', message });
  });

  it('404 for an unknown product', async () => {
    expect((await s.post(TIMELINE, base, '55555555555')).status).toBe(404);
  });
});
