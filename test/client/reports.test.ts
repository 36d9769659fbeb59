/** dateRangeReport, currentReport and usageDistribution through the typed client, against the emulator. */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { BasicTimelineRequest } from '../../src/client/families/event-reports.ts';
import type {
  Counts,
  DateRangeSegmentedSplitResponse,
  DateRangeSplitResponse,
  DateRangeTotalsResponse,
} from '../../src/client/families/generic-reports.ts';
import type { GlobalFilters, Levels, Segment } from '../../src/client/families/request-types.ts';
import { binEntries, binLowerBound } from '../../src/client/index.ts';
import { TEST_TODAY } from '../helpers/emulator-session.ts';
import { expectSameAsWire, isCount, type Peer, periodStarts, startPeer } from './typed-vs-wire.ts';

let peer: Peer;
beforeAll(async () => {
  peer = await startPeer();
});
afterAll(() => peer.close());

const base = {
  startDate: '2026-08-03',
  stopDate: '2026-11-15',
  clientStatus: ['new' as const, 'active' as const, 'lost' as const],
  daysUntilDeclaredLost: 30,
  dateReportedLost: 'dateDeclaredLost' as const,
};
const byVersion = { level1: { property: 'prodVersion', sort: 'active' as const } };
/** Integer counts of exactly the requested statuses (absolute mode). */
const countsAreIntegers = (c: Counts, statuses: string[] = base.clientStatus) =>
  Object.keys(c).join() === statuses.join() && Object.values(c).every(isCount);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('dateRangeReport', () => {
  it('without a split: totals, equal to the wire JSON', async () => {
    const r = await peer.client.dateRangeReport(peer.productId, base);
    expectTypeOf(r).toEqualTypeOf<DateRangeTotalsResponse>();
    await expectSameAsWire(peer, r, 'dateRangeReport', peer.productId, base);
    expect(r.result.totals && countsAreIntegers(r.result.totals)).toBe(true);
    expect(r.result.totals?.active).toBeGreaterThan(0);
  });

  it('without a split, by levels: a level tree whose level1 totals cover the active units', async () => {
    const body = { ...base, clientStatus: ['active' as const], levels: byVersion };
    const r = await peer.client.dateRangeReport(peer.productId, body);
    await expectSameAsWire(peer, r, 'dateRangeReport', peer.productId, body);
    const level1 = Object.values(r.result.level1 ?? {});
    expect(level1.length).toBeGreaterThan(1);
    // Every client has one version, so the segments partition the active clients; sorted by active, descending.
    const active = level1.map((n) => n.totals.active!);
    expect(sum(active)).toBe(r.result.totals?.active);
    expect(active).toEqual([...active].sort((a, b) => b - a));
  });

  it('split by week: one entry per Monday of the range, integer counts', async () => {
    const body = { ...base, dateSplit: 'week' as const };
    const r = await peer.client.dateRangeReport(peer.productId, body);
    expectTypeOf(r).toEqualTypeOf<DateRangeSplitResponse>();
    await expectSameAsWire(peer, r, 'dateRangeReport', peer.productId, body);
    expect(Object.keys(r.result)).toEqual(periodStarts(base.startDate, base.stopDate, 'week'));
    expect(Object.values(r.result).every((c) => countsAreIntegers(c))).toBe(true);
    // New clients per week add up to the new clients of the whole range.
    const totals = await peer.client.dateRangeReport(peer.productId, base);
    expect(sum(Object.values(r.result).map((c) => c.new!))).toBe(totals.result.totals?.new);
  });

  it('split by month with level1: segment maps per period', async () => {
    const body = { ...base, clientStatus: ['active' as const], dateSplit: 'month' as const, levels: byVersion };
    const r = await peer.client.dateRangeReport(peer.productId, body);
    expectTypeOf(r).toEqualTypeOf<DateRangeSegmentedSplitResponse>();
    await expectSameAsWire(peer, r, 'dateRangeReport', peer.productId, body);
    expect(Object.keys(r.result)).toEqual(periodStarts(base.startDate, base.stopDate, 'month'));
    for (const segments of Object.values(r.result)) {
      expect(Object.keys(segments).length).toBeGreaterThan(0);
      expect(Object.values(segments).every((c) => countsAreIntegers(c, ['active']))).toBe(true);
    }
  });
});

describe('currentReport', () => {
  const current = { startDate: '2026-10-01', clientStatus: ['new' as const, 'active' as const] };

  it('without levels: totals of startDate…today, as dateRangeReport over the same range', async () => {
    const r = await peer.client.currentReport(peer.productId, current);
    await expectSameAsWire(peer, r, 'currentReport', peer.productId, current);
    const range = await peer.client.dateRangeReport(peer.productId, { ...current, stopDate: TEST_TODAY });
    expect(r.result.totals).toEqual(range.result.totals);
    expect(r.result.level1).toBeUndefined();
  });

  it('with two levels in percentOfActive mode: a tree without totals, level-1 active adding up to 100', async () => {
    const body = {
      ...current,
      resultMode: 'percentOfActive' as const,
      levels: { level1: { property: 'prodEdition' }, level2: { property: 'osWordLength' } },
    };
    const r = await peer.client.currentReport(peer.productId, body);
    await expectSameAsWire(peer, r, 'currentReport', peer.productId, body);
    expect(r.result.totals).toBeUndefined();
    const level1 = Object.values(r.result.level1 ?? {});
    expect(sum(level1.map((n) => n.totals.active!))).toBeCloseTo(100, 0);
    expect(level1.every((n) => Object.keys(n.level2 ?? {}).length > 0)).toBe(true);
  });
});

describe('usageDistribution', () => {
  const body = { startDate: '2026-10-01', stopDate: '2026-10-31' };

  it('returns the wire JSON; active-day bins 1…31; nested histograms add up to users; bins ascend', async () => {
    const r = await peer.client.usageDistribution(peer.productId, body);
    await expectSameAsWire(peer, r, 'usageDistribution', peer.productId, body);
    const { activeDays, sessions, runtime } = r.result;
    expect(Object.keys(activeDays).map(Number)).toEqual(Array.from({ length: 31 }, (_, k) => k + 1));
    for (const block of Object.values(activeDays)) {
      expect(isCount(block.users)).toBe(true);
      expect(sum(Object.values(block.sessions))).toBe(block.users);
      expect(sum(Object.values(block.runtime))).toBe(block.users);
    }
    // The same clients, whichever block counts them.
    const users = (b: Record<string, { users?: number | undefined }>) => sum(Object.values(b).map((x) => x.users ?? 0));
    expect(users(sessions)).toBe(users(activeDays));
    expect(users(runtime)).toBe(users(activeDays));
    for (const bins of [sessions, runtime]) {
      const lows = binEntries(bins).map(([label]) => binLowerBound(label));
      expect(lows.length).toBeGreaterThan(2);
      expect(lows).toEqual([...lows].sort((a, b) => a - b));
    }
  });
});

type Rejects<T, U> = T extends U ? false : true;
/** `divisor: "usageCounts"` is only allowed with `dataView: "customValues"`. */
const timelineWithCountDivisor = {
  startDate: '2026-10-01',
  stopDate: '2026-10-31',
  dateSplit: 'week',
  dataView: 'usageCounts',
  divisor: 'usageCounts',
  events: [],
} as const;

describe('typed request pieces', () => {
  it('filters and explicit segments reach the service: a filtered total equals its segment', async () => {
    const values = (await peer.client.propertyValues(peer.productId, { property: 'prodEdition' })).result;
    const [edition, ...others] = values.map((v) => v.value);
    const active = { ...base, clientStatus: ['active' as const] };
    const globalFilters: GlobalFilters = { prodEdition: { type: 'string', value: edition! } };
    const filtered = await peer.client.dateRangeReport(peer.productId, { ...active, globalFilters });
    const segments: Segment[] = [
      { type: 'string', value: edition! },
      { type: 'stringArray', value: others, segmentLabel: 'others' },
    ];
    const body = { ...active, levels: { level1: { property: 'prodEdition', segments } } };
    const r = await peer.client.dateRangeReport(peer.productId, body);
    await expectSameAsWire(peer, r, 'dateRangeReport', peer.productId, body);
    expect(Object.keys(r.result.level1 ?? {})).toEqual([edition, 'others']);
    expect(r.result.level1?.[edition!]?.totals.active).toBe(filtered.result.totals?.active);
  });

  it('reject malformed bodies at compile time', () => {
    // Each line fails to compile unless the request type rejects the body (`Rejects` is true only then).
    const rejected = [
      true satisfies Rejects<{ type: 'regex'; value: string }, Segment>, // no split: needs segmentLabel
      true satisfies Rejects<{ type: 'regex'; value: string; segmentLabel: 'x'; limit: 2 }, Segment>, // limit needs split
      true satisfies Rejects<{ type: 'numberRange'; segmentLabel: 'x' }, Segment>, // no bound
      true satisfies Rejects<{ level1: { property: 'a' }; level3: { property: 'b' } }, Levels>,
      true satisfies Rejects<{ os: { platform: { value: string[] } } }, GlobalFilters>, // no type
      true satisfies Rejects<{ ram: { type: 'numberRange' } }, GlobalFilters>,
      true satisfies Rejects<typeof timelineWithCountDivisor, BasicTimelineRequest>,
    ];
    const accepted = { type: 'regex', value: '^1', split: true, limit: 2 } as const satisfies Segment;
    expect(rejected).toHaveLength(7);
    expect(accepted.split).toBe(true);
  });
});
