/**
 * The churn reports (churnAndEngagement through churnLifetimeHistogram) through the typed client against the emulator:
 * each result equals the wire JSON; the lost-client reports agree with the `lost` count of dateRangeReport for the same
 * range and loss parameters.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { ChurnHistogramResponse } from '../../src/client/families/churn.ts';
import { type EventTable, histogramBins } from '../../src/client/families/lifetime-reports.ts';
import { binEntries, binLowerBound } from '../../src/client/index.ts';
import { expectSameAsWire, isCount, type Peer, periodStarts, startPeer } from './typed-vs-wire.ts';

let peer: Peer;
/** Clients lost in `lostRange` per dateRangeReport: the population of every lost-client report below. */
let lostClients: number;
const lostRange = {
  startDate: '2026-06-01',
  stopDate: '2026-10-31',
  daysUntilDeclaredLost: 21,
  dateReportedLost: 'dateLastSeen' as const,
};
beforeAll(async () => {
  peer = await startPeer();
  const r = await peer.client.dateRangeReport(peer.productId, { ...lostRange, clientStatus: ['lost'] });
  lostClients = r.result.totals!.lost!;
});
afterAll(() => peer.close());

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('churnAndEngagement', () => {
  const cohort = {
    startDate: '2026-05-01',
    stopDate: '2026-07-31',
    daysUntilDeclaredLost: 30,
    dateSplit: 'month' as const,
  };

  it('equals the wire JSON; periods 0…n; integer counts with percentages of engaged + lost', async () => {
    const r = await peer.client.churnAndEngagement(peer.productId, cohort);
    await expectSameAsWire(peer, r, 'churnAndEngagement', peer.productId, cohort);
    const series = Object.values(r.result);
    expect(series).toHaveLength(1);
    const periods = Object.keys(series[0]!);
    expect(periods).toEqual(periods.map((_, n) => String(n)));
    for (const p of Object.values(series[0]!)) {
      expect([p.engaged, p.lost].every(isCount)).toBe(true);
      if (p.engaged + p.lost > 0) expect(p.engagedPercent + p.lostPercent).toBeCloseTo(100, 0);
    }
  });

  it('by installationMonth: one series per install month of the cohort', async () => {
    const body = { ...cohort, segmentBy: 'installationMonth' };
    const r = await peer.client.churnAndEngagement(peer.productId, body);
    await expectSameAsWire(peer, r, 'churnAndEngagement', peer.productId, body);
    expect(Object.keys(r.result)).toEqual(periodStarts(cohort.startDate, cohort.stopDate, 'month'));
  });
});

describe('churnHistogramDays, churnHistogramRuntime and churnHistogramSessions', () => {
  const histograms = ['churnHistogramDays', 'churnHistogramRuntime', 'churnHistogramSessions'] as const;

  it.each(histograms)("%s equals the wire JSON; ascending bins summing to dateRangeReport's lost count", async (id) => {
    const r: ChurnHistogramResponse = await peer.client[id](peer.productId, lostRange);
    await expectSameAsWire(peer, r, id, peer.productId, lostRange);
    expect(lostClients).toBeGreaterThan(0);
    const bins = binEntries(r.result);
    expect(bins.length).toBeGreaterThan(3);
    const lows = bins.map(([label]) => binLowerBound(label));
    expect(new Set(lows).size).toBe(lows.length);
    expect(lows).toEqual([...lows].sort((a, b) => a - b));
    expect(bins.every(([, n]) => isCount(n))).toBe(true);
    expect(sum(bins.map(([, n]) => n))).toBe(lostClients);
  });
});

describe('churnLifetimeDataTable', () => {
  it('equals the wire JSON; the shared pager returns the same rows; segments count lost clients', async () => {
    const body = { ...lostRange, segmentBy: 'prodEdition', sorting: { events: 'uniqueUsersUsedAtLeastOnce' as const } };
    const full = await peer.client.churnLifetimeDataTable(peer.productId, body);
    expectTypeOf(full).toEqualTypeOf<EventTable>();
    await expectSameAsWire(peer, full, 'churnLifetimeDataTable', peer.productId, body);
    expect(full.result).toHaveLength(full.matchingEventsCount);
    const rows = [];
    for await (const page of peer.client.churnLifetimeDataTablePages(peer.productId, { ...body, paging: { limit: 6 } }))
      rows.push(...page.result);
    expect(rows).toEqual(full.result);
    // Editions partition the lost clients.
    for (const row of full.result) expect(sum(row.segments!.map((s) => s.active!))).toBe(lostClients);
  });
});

describe('churnLifetimeHistogram', () => {
  it('equals the wire JSON; used + never used = the lost clients of dateRangeReport for every selector', async () => {
    const listed = (await peer.client.listEvents(peer.productId)).result;
    const events = listed.slice(0, 2).map((c) => ({ category: c.category, name: c.categoryEventNames[0]!.eventName }));
    const body = { ...lostRange, events };
    const r = await peer.client.churnLifetimeHistogram(peer.productId, body);
    await expectSameAsWire(peer, r, 'churnLifetimeHistogram', peer.productId, body);
    expect(r.summary.usedAtLeastOnce.map((v, k) => v.value + r.summary.neverUsed[k]!.value)).toEqual([
      lostClients,
      lostClients,
    ]);
    expect(histogramBins(r.result.averageCountPerActiveWeek).every((b) => b.values.length === 2)).toBe(true);
  });
});
