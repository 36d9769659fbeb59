/**
 * Figures against independent computations from the emulator's raw JSON (fetched on a separate, client-free
 * session), and totals against sums of the products.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import type { DigestData } from '../../src/digest/data.ts';
import { computeFigures, type DigestFigures, metricFigure, round } from '../../src/digest/figures.ts';
import { collectWith, type DigestPeer, startDigestPeer } from './digest-peer.ts';

let peer: DigestPeer;
let data: DigestData;
let figures: DigestFigures;

type Counts = { new: number; active: number; lost: number };
type Line = Record<string, string>;

beforeAll(async () => {
  peer = await startDigestPeer();
  data = await collectWith(peer, lastCompleteIsoWeek(new Date(peer.emu.clock.now()), 'UTC'));
  figures = computeFigures(data, { names: peer.names });
});
afterAll(() => peer.close());

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const pct = (v: number, base: number) => Number((((v - base) / base) * 100).toFixed(1));

describe('rounding', () => {
  it('rounds half away from zero, symmetric for negatives, never -0', () => {
    expect([round(2.25), round(-2.25), round(0.05), round(-0.04), round(1.25, 0)]).toEqual([2.3, -2.3, 0.1, 0, 1]);
    expect(Object.is(round(-0.01), 0)).toBe(true);
  });

  it('gives no change percentages from a zero or missing base', () => {
    expect(metricFigure([5])).toEqual({
      value: 5,
      previous: null,
      changePercent: null,
      average4: null,
      vsAverage4Percent: null,
    });
    expect(metricFigure([0, 0, 0, 0, 3]).changePercent).toBeNull();
  });
});

describe('per-product figures', () => {
  it("this week's new / active / lost equal the raw weekly report, with both deltas", async () => {
    for (const p of figures.products) {
      const body = data.calls.find((c) => c.productId === p.productId && c.purpose === 'weekly')!.request;
      const raw = await peer.raw<{ result: Record<string, Counts> }>('dateRangeReport', p.productId, body);
      const weeks = Object.keys(raw.result).sort();
      expect(weeks.at(-1)).toBe(figures.start);
      for (const m of ['new', 'active', 'lost'] as const) {
        const series = weeks.map((w) => raw.result[w]![m]);
        const [value, previous] = [series.at(-1)!, series.at(-2)!];
        const f = p.activity![m];
        expect(f.value).toBe(value);
        expect(f.previous).toBe(previous);
        expect(f.changePercent).toBe(previous === 0 ? null : pct(value, previous));
        const avg = sum(series.slice(-5, -1)) / 4;
        expect(f.average4).toBe(Number(avg.toFixed(1)));
        expect(f.vsAverage4Percent).toBe(avg === 0 ? null : pct(value, avg));
      }
      expect(p.activity!.series.map((w) => w.active)).toEqual(weeks.map((w) => raw.result[w]!.active));
    }
  });

  it('usage, versions and countries follow the raw reports', async () => {
    for (const p of figures.products) {
      const ud = await peer.raw<{ result: { activeDays: Record<string, { users: number }> } }>(
        'usageDistribution',
        p.productId,
        { startDate: figures.start, stopDate: figures.stop },
      );
      expect(p.usage!.users).toBe(sum(Object.values(ud.result.activeDays).map((b) => b.users)));

      const versions = data.calls.find((c) => c.productId === p.productId && c.purpose === 'versions')!.request;
      const raw = await peer.raw<{ result: Record<string, Record<string, { active: number }>> }>(
        'dateRangeReport',
        p.productId,
        versions,
      );
      const week = raw.result[figures.start]!;
      const top = Math.max(...Object.values(week).map((c) => c.active));
      expect(week[p.versions!.leader!]!.active).toBe(top);
      expect(p.versions!.rows.map((r) => r.label).sort()).toEqual(Object.keys(week).sort());
      expect(Math.abs(sum(p.versions!.rows.map((r) => r.percent)) - 100)).toBeLessThan(0.5);
      const activeInWeek = p.activity!.active.value;
      expect(sum(p.versions!.rows.map((r) => r.active))).toBe(activeInWeek);
      expect(p.countries!.rows.length).toBeLessThanOrEqual(10);
    }
  });

  it('groups the week’s exception lines and ranks them by frequency', async () => {
    for (const p of figures.products) {
      const raw = await peer.raw<{ result: Line[] }>('exceptionsLastLines', p.productId, { lineCount: 1000 });
      const inWeek = raw.result.filter((l) => {
        const day = l.timestamp!.slice(0, 10);
        return day >= figures.start && day <= figures.stop;
      });
      expect(p.exceptions!.total).toBe(inWeek.length);
      const counts = new Map<string, number>();
      for (const l of inWeek) {
        const key = `${l['exception.type']}|${l['exception.message']!.replace(/[0-9]+/g, 'N')}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      expect(p.exceptions!.top.map((g) => g.count)).toEqual([...counts.values()].sort((a, b) => b - a).slice(0, 5));
      const leader = p.exceptions!.leader!;
      expect(counts.get(`${leader.type}|${leader.message}`)).toBe(Math.max(...counts.values()));
    }
  });

  it('top events come in descending count order, at most 10', () => {
    for (const p of figures.products) {
      const counts = p.topEvents!.map((e) => e.count);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
      expect(counts.length).toBeLessThanOrEqual(10);
    }
  });

  it('retention percentages are engaged / (engaged + lost) of each period', () => {
    for (const p of figures.products)
      for (const pt of p.retention!.points)
        expect(pt.engagedPercent).toBe(
          pt.engaged + pt.lost === 0 ? 0 : Number(((pt.engaged / (pt.engaged + pt.lost)) * 100).toFixed(1)),
        );
  });
});

describe('the total of a multi-product digest', () => {
  it('sums the weekly series, usage, churn bins, countries and exceptions of the products', () => {
    const total = figures.total!;
    expect(total.isTotal).toBe(true);
    expect(total.name).toBe('All products');
    total.activity!.series.forEach((w, i) => {
      for (const m of ['new', 'active', 'lost'] as const)
        expect(w[m]).toBe(sum(figures.products.map((p) => p.activity!.series[i]![m])));
    });
    expect(total.activity!.active.value).toBe(sum(figures.products.map((p) => p.activity!.active.value)));
    expect(total.usage!.users).toBe(sum(figures.products.map((p) => p.usage!.users)));
    expect(total.churn!.lostInWeek).toBe(sum(figures.products.map((p) => p.churn!.lostInWeek!)));
    expect(total.exceptions!.total).toBe(sum(figures.products.map((p) => p.exceptions!.total)));
    for (const row of total.countries!.rows) {
      const perProduct = data.products.map((p) => p.countries!.week.find((c) => c.label === row.label)?.active ?? 0);
      expect(row.active).toBe(sum(perProduct));
    }
  });

  it('leaves out what does not add up across products: top-10 event lists and versions', () => {
    expect(figures.total!.topEvents).toBeNull();
    expect(figures.total!.versions).toBeNull();
  });

  it('has no total for a single product, and no total section a product is missing', () => {
    expect(computeFigures({ ...data, products: data.products.slice(0, 1) }).total).toBeNull();
    const [first, second] = data.products;
    const { usage: _dropped, ...withoutUsage } = second!;
    const partial = computeFigures({ ...data, products: [first!, withoutUsage] });
    expect(partial.total!.usage).toBeNull();
    expect(partial.total!.activity).not.toBeNull();
  });

  it('is the same however often it is computed (no clock, no randomness)', () => {
    expect(computeFigures(structuredClone(data), { names: peer.names })).toEqual(figures);
    expect(figures.start).toBe(data.week.start);
    expect(addDays(figures.start, 6)).toBe(figures.stop);
  });
});
