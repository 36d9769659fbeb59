/**
 * buildDigestView: en-US text, deltas and good/bad flags, the headline table, each section's lead sentence, top
 * exception, anchors and the email's charts, aligned tables with ids, deterministic charts whose alt text has the numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBlank, renderChart } from '../../src/charts/index.ts';
import { lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import { type BuiltDigest, buildDigestView, kpiOf } from '../../src/digest/build-view.ts';
import type { DigestData } from '../../src/digest/data.ts';
import { computeFigures, type DigestFigures, metricFigure } from '../../src/digest/figures.ts';
import { computeHighlights } from '../../src/digest/highlights.ts';
import { collectWith, type DigestPeer, startDigestPeer } from './digest-peer.ts';

let peer: DigestPeer;
let data: DigestData;
let figures: DigestFigures;
let built: BuiltDigest;
const generatedAt = new Date('2026-11-16T07:00:00Z');
const buildOpts = {
  title: 'Weekly executive digest',
  generatedAt,
  timeZone: 'Europe/Berlin',
  notable: { notableChangePercent: 10 },
};

beforeAll(async () => {
  peer = await startDigestPeer();
  data = await collectWith(peer, lastCompleteIsoWeek(new Date(peer.emu.clock.now()), 'UTC'));
  figures = computeFigures(data, { names: peer.names });
  built = buildDigestView(figures, computeHighlights(figures, { notableChangePercent: 10 }), buildOpts);
});
afterAll(() => peer.close());

describe('buildDigestView', () => {
  it('fills the header and footer', () => {
    const { view } = built;
    expect(view.title).toBe('Weekly executive digest');
    expect(view.isoWeek).toBe('2026-W46');
    expect(view.weekLabel).toBe('Week 46 · 9–15 Nov 2026');
    expect(view.banner).toBeNull();
    expect(view.viewInBrowserUrl).toBeNull();
    expect(view.footer).toBe('Generated 2026-11-16 08:00 Europe/Berlin by Pulse');
    expect(view.highlights).toEqual(computeHighlights(figures, { notableChangePercent: 10 }));
    const banner = buildDigestView(figures, [], { ...buildOpts, banner: 'Data incomplete: x', viewInBrowserUrl: 'u' });
    expect([banner.view.banner, banner.view.viewInBrowserUrl]).toEqual(['Data incomplete: x', 'u']);
  });

  it('has the total first, then one section per product in digest order', () => {
    expect(built.view.products.map((p) => [p.id, p.isTotal])).toEqual([
      ['total', true],
      ...peer.productIds.map((id) => [id, false]),
    ]);
    expect(built.view.products.slice(1).map((p) => p.name)).toEqual(peer.productIds.map((id) => peer.names[id]));
  });

  it('states KPIs as en-US numbers with signed deltas vs last week and the 4-week average', () => {
    const [total, ...products] = built.view.products;
    for (const [view, fig] of [
      [total!, figures.total!],
      ...products.map((p, i) => [p, figures.products[i]!] as const),
    ] as const) {
      const active = view.kpis.find((k) => k.label === 'Active clients')!;
      expect(active.value).toBe(fig.activity!.active.value.toLocaleString('en-US'));
      expect(active.delta).toMatch(
        /^([+-]\d+\.\d%|0\.0%|n\/a) vs last week · ([+-]\d+\.\d%|0\.0%|n\/a) vs 4-week avg$/,
      );
      expect(view.kpis.map((k) => k.label).slice(0, 3)).toEqual(['Active clients', 'New clients', 'Lost clients']);
    }
    expect(kpiOf('active', metricFigure([1000, 1000, 1000, 1000, 1204]))).toEqual({
      label: 'Active clients',
      value: '1,204',
      delta: '+20.4% vs last week · +20.4% vs 4-week avg',
      trend: 'up',
      good: true,
    });
  });

  it('calls lost going up bad news and lost going down good news', () => {
    expect(kpiOf('lost', metricFigure([10, 12]))).toMatchObject({ trend: 'up', good: false });
    expect(kpiOf('lost', metricFigure([12, 10]))).toMatchObject({ trend: 'down', good: true });
    expect(kpiOf('new', metricFigure([12, 10]))).toMatchObject({ trend: 'down', good: false });
    expect(kpiOf('active', metricFigure([10, 10]))).toMatchObject({ trend: 'flat', good: null });
    expect(kpiOf('new', metricFigure([7]))).toMatchObject({
      trend: 'flat',
      good: null,
      delta: 'n/a vs last week · n/a vs 4-week avg',
    });
  });

  it('right-aligns numeric columns and left-aligns text columns', () => {
    const numeric = /^(—|[\d,]+(\.\d)?%?)$/;
    for (const product of built.view.products)
      for (const t of product.tables) {
        expect(t.align).toHaveLength(t.columns.length);
        for (const row of t.rows) expect(row).toHaveLength(t.columns.length);
        t.align.forEach((align, i) => {
          if (align === 'right') expect(t.rows.every((r) => numeric.test(r[i]!))).toBe(true);
        });
        // The first column is always the row label.
        expect(t.align[0]).toBe('left');
      }
    const titles = built.view.products[1]!.tables.map((t) => t.title);
    expect(titles).toEqual(expect.arrayContaining(['Clients per week', 'Versions', 'Top countries']));
  });

  it('has a headline row per section with each activity figure and its week-over-week change', () => {
    const { headline, products } = built.view;
    expect(headline.columns).toEqual(['Active clients', 'New clients', 'Lost clients']);
    expect(headline.rows.map((r) => [r.name, r.anchor, r.isTotal])).toEqual(
      products.map((p) => [p.name, p.anchor, p.isTotal]),
    );
    const fig = figures.products[0]!.activity!;
    const row = headline.rows[1]!;
    expect(row.anchor).toBe(`product-${peer.productIds[0]}`);
    expect(row.cells[0]!.value).toBe(fig.active.value.toLocaleString('en-US'));
    expect(row.cells[2]!.change).toMatch(/^([+-]\d+\.\d%|0\.0%|n\/a)$/);
    expect(headline.rows[0]!.anchor).toBe('all-products');
  });

  it('gives each section a lead sentence, its top exception, anchored tables and the email its two charts', () => {
    for (const p of built.view.products) {
      expect(p.emailCharts).toEqual([`active-${p.id}.png`, `new-lost-${p.id}.png`]);
      const ids = p.tables.map((t) => t.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(id).toMatch(new RegExp(`^${p.anchor}-[a-z-]+$`));
    }
    const first = built.view.products[1]!;
    const top = figures.products[0]!.exceptions!.top[0]!;
    expect(first.topException).toContain(`${top.count.toLocaleString('en-US')} this week`);
    expect(first.topException).toContain(top.type);
    expect(first.notable).not.toBeNull();
    expect(first.tables.map((t) => t.id)).toContain(`${first.anchor}-exceptions`);
  });

  it('names charts deterministically and puts the numbers in the alt text', () => {
    const [total, first] = built.view.products;
    const cids = built.view.products.flatMap((p) => p.charts.map((c) => c.cid));
    expect(new Set(cids).size).toBe(cids.length);
    expect(built.charts.map((c) => c.cid)).toEqual(cids);
    for (const p of built.view.products)
      for (const c of p.charts) expect(c.cid).toMatch(new RegExp(`^[a-z-]+-${p.id}\\.png$`));
    const active = first!.charts.find((c) => c.cid === `active-${peer.productIds[0]}.png`)!;
    const series = figures.products[0]!.activity!.series;
    // Every week's value, so a reader without images still has the chart.
    for (const w of series) expect(active.alt).toContain(w.active.toLocaleString('en-US'));
    expect(active.alt).toContain('(this week');
    expect(total!.charts.find((c) => c.cid === 'active-total.png')!.alt).toContain(
      figures.total!.activity!.active.value.toLocaleString('en-US'),
    );
    // Same input, same view and the same chart specs.
    const again = buildDigestView(figures, built.view.highlights, buildOpts);
    expect(again).toEqual(built);
  });

  it('gives chart specs the chart renderer draws, none of them blank, at the size the view states', async () => {
    const sizes = new Map(built.view.products.flatMap((p) => p.charts.map((c) => [c.cid, c] as const)));
    for (const { cid, spec } of built.charts) {
      const png = await renderChart(spec);
      expect(isBlank(png.png)).toBe(false);
      expect([png.width, png.height]).toEqual([sizes.get(cid)!.width, sizes.get(cid)!.height]);
    }
  });

  it('leaves out a chart with nothing to show and says so in its table', () => {
    const quiet = structuredClone(data);
    const p = quiet.products[0]!;
    p.churnHistograms = {
      days: p.churnHistograms!.days!.map((b) => ({ ...b, count: 0 })),
      sessions: p.churnHistograms!.sessions!.map((b) => ({ ...b, count: 0 })),
      runtime: p.churnHistograms!.runtime!.map((b) => ({ ...b, count: 0 })),
    };
    p.countries = { week: [], previousWeek: [] };
    const view = buildDigestView(computeFigures(quiet, { names: peer.names }), [], buildOpts).view.products[1]!;
    expect(view.charts.some((c) => c.cid.startsWith('countries-'))).toBe(false);
    const countries = view.tables.find((t) => t.title === 'Top countries')!;
    expect([countries.rows, countries.emptyText]).toEqual([[], 'No active clients this week.']);
    const lost = view.tables.find((t) => t.title === 'Lost clients by lifetime active days')!;
    expect([lost.rows, lost.emptyText]).toEqual([[], 'No clients were lost this week.']);
  });
});
