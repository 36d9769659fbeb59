/**
 * The full report page as text: one self-contained file (one stylesheet, no script, no URL but its own anchors and
 * inline PNGs), every chart inline from its cid or its alt text in its place, trends with arrow and word, and the
 * stylesheet's light trend colours the same as the email's. The browser tests check the layout.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileHtmlFile, TEMPLATES_DIR } from '../../scripts/build-templates.ts';
import { renderDigestReport } from '../../src/digest/render/digest-report.ts';
import { digestReportModel } from '../../src/digest/render/digest-report-model.ts';
import { TREND_COLOURS } from '../../src/digest/render/trend.ts';
import { barChartPng } from '../helpers/test-png.ts';
import { HOSTILE, hostileView, sampleView } from './sample-views.ts';

let template: string;
beforeAll(async () => {
  template = await compileHtmlFile(join(TEMPLATES_DIR, 'digest-report.html'));
});

const PNG = barChartPng(20, 10);
const imagesOf = (view: ReturnType<typeof sampleView>) =>
  new Map(view.products.flatMap((p) => p.charts.map((c) => [c.cid, PNG] as const)));

describe('the full report page', () => {
  it('is one self-contained file: one stylesheet, no script, no URL but its anchors and inline PNGs', () => {
    const view = sampleView();
    const html = renderDigestReport(view, imagesOf(view), template);
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script|<link|<iframe|@import|url\(|\son\w+=/i);
    const urls = [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(40);
    for (const url of urls) expect(url).toMatch(/^(#[a-z0-9-]+|data:image\/png;base64,[A-Za-z0-9+/]+=*)$/);
    // The page is the view-in-browser target: it never links to itself or anywhere else.
    expect(html).not.toContain('pulse-archive.example.com');
    expect(html).toContain('<title>Weekly product digest · Week 46 · 9–15 Nov 2026</title>');
    expect(html).not.toContain('<!--');
  });

  it('inlines every chart from its cid, and shows a chart without its image as its title and alt text', () => {
    const view = sampleView();
    const [left, empty] = [view.products[1]!.charts[0]!, view.products[2]!.charts[3]!];
    const images = imagesOf(view);
    images.delete(left.cid);
    images.set(empty.cid, new Uint8Array(0));
    const html = renderDigestReport(view, images, template);
    const inline = `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`;
    const charts = view.products.flatMap((p) => p.charts);
    expect(html.split(inline)).toHaveLength(charts.length - 2 + 1);
    expect(html).toContain('<img src="data:image/png;base64,');
    expect(html).toContain('width="552" height="220"');
    expect(html).not.toContain('cid:');
    for (const chart of [left, empty])
      expect(html).toContain(
        `<p class="missing"><strong dir="auto">${chart.title}</strong> (chart not available): ${chart.alt}</p>`,
      );
  });

  it('gives every trend an arrow and a word, and a missing or first-week figure none', () => {
    const view = sampleView();
    view.headline.rows[1]!.cells[0] = null;
    view.headline.rows[2]!.cells[1] = { value: '12', change: 'n/a', trend: 'flat', good: null };
    const model = digestReportModel(view, new Map());
    expect(model.headline!.rows[0]!.cells[0]).toEqual({
      value: '75,793',
      change: '−0.4%',
      arrow: '▼',
      word: 'worse',
      tone: 'bad',
    });
    expect(model.headline!.rows[1]!.cells[0]).toMatchObject({ value: '—', change: '', arrow: '', word: '' });
    expect(model.headline!.rows[2]!.cells[1]).toMatchObject({ value: '12', change: 'n/a', arrow: '', word: '' });
    expect(model.products[1]!.kpis[1]).toMatchObject({
      arrow: '▲',
      word: 'better',
      tone: 'good',
      deltas: ['+12.5% vs last week', '+3.1% vs 4-week avg'],
    });
    expect(model.products[1]!.kpis[3]).toMatchObject({ arrow: '▬', word: 'unchanged', tone: 'neutral' });
    const html = renderDigestReport(view, new Map(), template);
    expect(html).toContain('<td class="n"><b>—</b></td>');
    expect(html).toContain('<td class="n"><b>12</b><br><span class="neutral"><span class="nw">n/a</span></span></td>');
    expect(html).toContain('<span class="bad"><span class="nw">▼ −0.4%</span> worse</span>');
  });

  it('lays tables with two or more text columns over the whole width, the others two abreast', () => {
    const tables = digestReportModel(sampleView(), new Map()).products[0]!.tables;
    expect(tables.map((t) => [t.id, t.wide])).toEqual([
      ['all-products-clients', false],
      ['all-products-churn-days', false],
      ['all-products-events', true],
      ['all-products-countries', false],
      ['all-products-exceptions', true],
      ['all-products-versions', false],
    ]);
  });

  it("colours trends in light mode exactly as the email does (the stylesheet's custom properties)", () => {
    const root = /:root\{([^}]*)\}/.exec(template)![1]!;
    for (const [tone, colour] of Object.entries(TREND_COLOURS)) expect(root).toContain(`--${tone}:${colour};`);
  });

  it('escapes every hostile string; nothing of it becomes markup', () => {
    const view = hostileView();
    const html = renderDigestReport(view, imagesOf(view), template);
    // Every `<` and `"` of a value is escaped, so each tag (its quoted values aside) is the template's own.
    const tags = html.match(/<[^>]*>/g)!.map((t) => t.replace(/"[^"]*"/g, '""'));
    expect(tags.filter((t) => /^<\/?(script|img src=x)|\son\w+=/i.test(t))).toEqual([]);
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('alt="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(html).toContain(HOSTILE.rtl);
    expect(html).toContain(HOSTILE.long);
  });
});
