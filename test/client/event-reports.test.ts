/**
 * The event tracking reports (lifetimeHistogram through advancedFullReport) through the typed client against the
 * emulator: each result equals the wire JSON and holds the report's invariants; the lifetimeDataTable pager returns
 * exactly the rows of the unpaged table.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { ListEventsResponse } from '../../src/client/families/event-management.ts';
import { type CategoryTable, type EventTable, histogramBins } from '../../src/client/families/lifetime-reports.ts';
import type { SingleEventSelector } from '../../src/client/families/request-types.ts';
import { binLowerBound } from '../../src/client/index.ts';
import { expectSameAsWire, isCount, type Peer, periodStarts, startPeer } from './typed-vs-wire.ts';

let peer: Peer;
let events: ListEventsResponse['result'];
beforeAll(async () => {
  peer = await startPeer();
  events = (await peer.client.listEvents(peer.productId)).result;
});
afterAll(() => peer.close());

const range = { startDate: '2026-09-01', stopDate: '2026-10-31' };
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
/** Events of the product (from listEvents) with a collection flag set. */
const selectors = (flag: 'basic' | 'advanced'): SingleEventSelector[] =>
  events.flatMap((c) =>
    c.categoryEventNames.filter((e) => e[flag]).map((e) => ({ category: c.category, name: e.eventName })),
  );

describe('lifetimeHistogram', () => {
  it('equals the wire JSON; bins ascend, list every selector in order, and add up to usedAtLeastOnce', async () => {
    const [a, b, c] = selectors('basic');
    const combination = { combiLabel: 'b or c', combiArray: [b!, c!] };
    const body = { ...range, events: [a!, combination] };
    const r = await peer.client.lifetimeHistogram(peer.productId, body);
    await expectSameAsWire(peer, r, 'lifetimeHistogram', peer.productId, body);
    const { usedAtLeastOnce, neverUsed } = r.summary;
    const population = usedAtLeastOnce[0]!.value + neverUsed[0]!.value;
    expect(usedAtLeastOnce.map((v, k) => v.value + neverUsed[k]!.value)).toEqual([population, population]);
    const { eventCount, averageCountPerActiveDay, averageCountPerActiveWeek, averageCountPerActiveMonth } = r.result;
    for (const series of [
      eventCount,
      averageCountPerActiveDay,
      averageCountPerActiveWeek,
      averageCountPerActiveMonth,
    ]) {
      const bins = histogramBins(series);
      expect(bins.length).toBe(series.length);
      const lows = bins.map((x) => binLowerBound(x.bin));
      expect(lows).toEqual([...lows].sort((x, y) => x - y));
      for (const bin of bins)
        expect(bin.values.map((v) => ('combiLabel' in v ? v.combiLabel : v.name))).toEqual([a!.name, 'b or c']);
    }
    // Default eventCount bins start at 1 and end open, so they hold every unit that used the event.
    const perSelector = [0, 1].map((k) => sum(histogramBins(r.result.eventCount).map((x) => x.values[k]!.value)));
    expect(perSelector).toEqual(usedAtLeastOnce.map((v) => v.value));
  });
});

describe('lifetimeDataTable', () => {
  const sorting = { events: 'eventCounts' as const };

  it('unpaged: every row, equal to the wire JSON, integer counts, sorted as asked', async () => {
    const body = { ...range, sorting };
    const r = await peer.client.lifetimeDataTable(peer.productId, body);
    expectTypeOf(r).toEqualTypeOf<EventTable>();
    await expectSameAsWire(peer, r, 'lifetimeDataTable', peer.productId, body);
    expect(r.returnedEventsCount).toBe(r.matchingEventsCount);
    expect(r.result).toHaveLength(r.matchingEventsCount);
    const counts = r.result.map((row) => row.eventCount);
    expect(counts.every(isCount)).toBe(true);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
  });

  it('the pager walks startAt until all rows came: its pages concatenate to the unpaged table', async () => {
    const body = { ...range, sorting, segmentBy: 'prodEdition' };
    const full = await peer.client.lifetimeDataTable(peer.productId, body);
    const pages: EventTable[] = [];
    for await (const page of peer.client.lifetimeDataTablePages(peer.productId, { ...body, paging: { limit: 4 } })) {
      expectTypeOf(page).toEqualTypeOf<EventTable>();
      pages.push(page);
    }
    expect(pages).toHaveLength(Math.ceil(full.matchingEventsCount / 4));
    expect(pages.flatMap((p) => p.result)).toEqual(full.result);
    expect(full.result.every((row) => (row.segments?.length ?? 0) > 0)).toBe(true);
  });

  it('categorized pages from an offset: rows grouped by category, counted per event', async () => {
    const body = { ...range, categorizeEvents: true as const, paging: { startAt: 3, limit: 5 } };
    const first = await peer.client.lifetimeDataTable(peer.productId, body);
    expectTypeOf(first).toEqualTypeOf<CategoryTable>();
    await expectSameAsWire(peer, first, 'lifetimeDataTable', peer.productId, body);
    expect(sum(first.result.map((c) => c.categoryData.length))).toBe(first.returnedEventsCount);
    let rows = 0;
    for await (const page of peer.client.lifetimeDataTablePages(peer.productId, body)) rows += page.returnedEventsCount;
    expect(rows).toBe(first.matchingEventsCount - 3);
  });
});

describe('basicDataTable', () => {
  it('equals the wire JSON; covers the basic events; category usage is the sum of its events', async () => {
    const r = await peer.client.basicDataTable(peer.productId, range);
    await expectSameAsWire(peer, r, 'basicDataTable', peer.productId, range);
    const listed = r.result.flatMap((c) => Object.keys(c.categoryEventsData).map((name) => `${c.category}/${name}`));
    expect(listed.sort()).toEqual(
      selectors('basic')
        .map((e) => `${e.category}/${e.name}`)
        .sort(),
    );
    for (const c of r.result) {
      const usage = Object.values(c.categoryEventsData).map((e) => e.eventUsage.cumulativeUsageCount);
      expect(usage.every(isCount)).toBe(true);
      expect(sum(usage)).toBe(c.categoryUsageSummary.cumulativeUsageCount);
    }
  });
});

describe('basicTimeline', () => {
  it('equals the wire JSON; one entry per week, one value per selector in request order', async () => {
    const [a, b] = selectors('basic');
    const body = {
      ...range,
      dateSplit: 'week' as const,
      dataView: 'usageCounts' as const,
      events: [{ combiLabel: 'both', combiArray: [a!, b!] }, a!],
    };
    const r = await peer.client.basicTimeline(peer.productId, body);
    await expectSameAsWire(peer, r, 'basicTimeline', peer.productId, body);
    expect(Object.keys(r.result)).toEqual(periodStarts(range.startDate, range.stopDate, 'week'));
    for (const [both, single] of Object.values(r.result)) {
      expect(both && 'combiLabel' in both && both.combiLabel).toBe('both');
      expect(single && 'name' in single && single.name).toBe(a!.name);
      expect(both!.value).toBeGreaterThanOrEqual(single!.value);
    }
  });
});

describe('advancedFullReport', () => {
  it('equals the wire JSON; per segment and event, usage frequency adds up to the users who used it', async () => {
    const body = { ...range, events: selectors('advanced').slice(0, 2), segmentBy: 'prodEdition' };
    const r = await peer.client.advancedFullReport(peer.productId, body);
    await expectSameAsWire(peer, r, 'advancedFullReport', peer.productId, body);
    const items = r.result.detailedReport;
    expect(items.length).toBeGreaterThan(2);
    expect(items.length % 2).toBe(0);
    for (const item of items) {
      expect(typeof item.segmentLabel).toBe('string');
      const frequency = Object.values(item.data?.usageFrequency ?? {});
      expect(frequency).toHaveLength(22);
      expect(sum(frequency)).toBe(item.data?.uniqueUsersUsedAtLeastOnce);
    }
  });
});
