/**
 * The digest's full report page in headless Chromium, as shipped (its Content-Security-Policy on, the charts inline
 * as real PNGs): at 375 and 1280 px the document never scrolls sideways, every chart loads and every table is there
 * under its id; every in-page link resolves to one unique id; hostile names, event names and exception messages stay
 * text, wrap inside 375 px and keep their bidi controls to themselves; axe-core finds no text below 4.5:1 in light or
 * dark mode; ten products still lay out, and the page's size is printed. Screenshots go to test-artifacts/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderDigestReport } from '../../src/digest/render/digest-report.ts';
import type { DigestView } from '../../src/digest/view-model.ts';
import { contrastViolations } from '../helpers/axe.ts';
import { ARTIFACTS, type EmailBrowser, startEmailBrowser } from '../helpers/email-browser.ts';
import { barChartPng } from '../helpers/test-png.ts';
import { HOSTILE, hostileView, sampleView } from './sample-views.ts';

/** The few browser globals the page functions below use; the project compiles without the DOM lib. */
interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
interface PageElement {
  id: string;
  childNodes: ArrayLike<unknown & { textContent: string | null }>;
  tagName: string;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  parentElement: PageElement | null;
  getAttribute(name: string): string | null;
  getAttributeNames(): string[];
  getBoundingClientRect(): Box;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
  closest(selector: string): PageElement | null;
}
interface PageImage extends PageElement {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
}
interface PageGlobals {
  document: {
    title: string;
    images: Iterable<PageImage>;
    body: PageElement & { innerText: string };
    documentElement: PageElement;
    getElementById(id: string): PageElement | null;
    createRange(): {
      setStart(node: unknown, offset: number): void;
      setEnd(node: unknown, offset: number): void;
      getBoundingClientRect(): Box;
    };
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
  };
  getComputedStyle(el: PageElement): { direction: string; backgroundColor: string; unicodeBidi: string };
  scrollY: number;
}

let env: EmailBrowser;
let template: string;

beforeAll(async () => {
  env = await startEmailBrowser();
  template = await env.template('digest-report');
});
afterAll(async () => {
  await env?.close();
});

/** A real PNG per chart at its 2× pixel size, keyed by cid; one encoding per size. */
function imagesFor(view: DigestView, leaveOut: string[] = []): Map<string, Uint8Array> {
  const bySize = new Map<string, Uint8Array>();
  const images = new Map<string, Uint8Array>();
  for (const chart of view.products.flatMap((p) => p.charts)) {
    if (leaveOut.includes(chart.cid)) continue;
    const size = `${chart.width}x${chart.height}`;
    if (!bySize.has(size)) bySize.set(size, barChartPng(chart.width * 2, chart.height * 2));
    images.set(chart.cid, bySize.get(size)!);
  }
  return images;
}

const render = (view: DigestView, leaveOut: string[] = []) =>
  renderDigestReport(view, imagesFor(view, leaveOut), template);

/** The page's HTML without its inline images: what the markup itself weighs. */
const leanBytes = (html: string) =>
  Buffer.byteLength(html.replace(/data:image\/png;base64,[A-Za-z0-9+/=]+/g, 'data:image/png;base64,'));

interface Opened {
  page: Page;
  /** What any script tried to show. */
  dialogs: string[];
  /** Every request beyond the page itself and its data: images. */
  requests: string[];
}

async function open(
  html: string,
  width: number,
  colorScheme: 'light' | 'dark' = 'light',
  bypassCSP = false,
): Promise<Opened> {
  const page = await env.browser.newPage({ viewport: { width, height: 800 }, colorScheme, bypassCSP });
  const dialogs: string[] = [];
  const requests: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => {
    if (!/^(data|about):/.test(r.url())) requests.push(r.url());
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { page, dialogs, requests };
}

/** The document's width, every image's state, and every box that sticks out of the viewport (outside scrollers). */
function layout(page: Page) {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const root = document.documentElement;
    const vw = root.clientWidth;
    const outside = [...document.querySelectorAll('body *')]
      .filter((el) => !el.parentElement?.closest('.scroll'))
      .map((el) => ({ tag: el.tagName, box: el.getBoundingClientRect(), text: (el.textContent ?? '').slice(0, 50) }))
      .filter(({ box }) => box.right > vw + 0.5 || box.left < -0.5);
    return {
      viewport: vw,
      scrollWidth: root.scrollWidth,
      outside: outside.map(({ tag, text }) => `${tag}: ${text}`),
      images: [...document.images].map((img) => ({
        ok: img.complete && img.naturalWidth > 0,
        natural: [img.naturalWidth, img.naturalHeight],
        attr: [Number(img.getAttribute('width')), Number(img.getAttribute('height'))],
        shown: img.getBoundingClientRect().right - img.getBoundingClientRect().left,
      })),
      /** Table wrappers whose table is wider than they are (it scrolls inside; the page does not). */
      scrolling: [...document.querySelectorAll('.scroll')]
        .filter((s) => s.scrollWidth > s.clientWidth + 1)
        .map((s) => s.getAttribute('aria-label')),
    };
  });
}

/** Each table of the view by id: whether the element is there, its table's body rows, or its text when empty. */
function tablesById(page: Page, ids: string[]) {
  return page.evaluate((wanted) => {
    const { document } = globalThis as unknown as PageGlobals;
    return wanted.map((id) => {
      const el = document.getElementById(id);
      return {
        id,
        found: el !== null,
        rows: el?.querySelectorAll('table tbody tr').length ?? 0,
        heading: el?.querySelector('h3')?.textContent ?? null,
        text: el?.textContent ?? '',
      };
    });
  }, ids);
}

const chartsOf = (view: DigestView) => view.products.flatMap((p) => p.charts);
const tablesOf = (view: DigestView) => view.products.flatMap((p) => p.tables);

describe('the full report at 375 and 1280 px', () => {
  for (const width of [375, 1280])
    it(`fits ${width} px with every chart loaded and every table under its id; screenshot saved`, async () => {
      const view = sampleView();
      const { page, requests, dialogs } = await open(render(view), width);
      const result = await layout(page);
      const tables = await tablesById(
        page,
        tablesOf(view).map((t) => t.id),
      );
      await page.screenshot({ path: join(ARTIFACTS, `digest-report-${width}.png`), fullPage: true });
      await page.close();

      expect(result.scrollWidth).toBeLessThanOrEqual(width);
      expect(result.outside).toEqual([]);
      // No table needs its own scrollbar for the sample data, not even at 375 px.
      expect(result.scrolling).toEqual([]);
      expect(result.images).toHaveLength(chartsOf(view).length);
      for (const [i, img] of result.images.entries()) {
        const chart = chartsOf(view)[i]!;
        expect(img.ok).toBe(true);
        expect(img.natural).toEqual([chart.width * 2, chart.height * 2]);
        expect(img.attr).toEqual([chart.width, chart.height]);
        expect(img.shown).toBeLessThanOrEqual(Math.min(chart.width, width));
      }
      for (const [i, t] of tables.entries()) {
        const table = tablesOf(view)[i]!;
        expect(t.found, t.id).toBe(true);
        expect(t.heading).toBe(table.title);
        expect(t.rows).toBe(table.rows.length);
        if (table.rows.length === 0) expect(t.text).toContain(table.emptyText);
      }
      expect(requests).toEqual([]);
      expect(dialogs).toEqual([]);
    });

  it('fits 375 px in dark mode with the banner and a chart left out; charts sit in light frames; screenshot saved', async () => {
    const view = sampleView({ banner: 'Data incomplete: the exception lines of 15 Nov 2026 could not be downloaded.' });
    const missing = view.products[1]!.charts[2]!;
    const { page } = await open(render(view, [missing.cid]), 375, 'dark');
    const result = await layout(page);
    const colours = await page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      return {
        body: g.getComputedStyle(g.document.body).backgroundColor,
        frame: g.getComputedStyle(g.document.querySelector('figure')!).backgroundColor,
      };
    });
    const banner = page.getByRole('alert');
    const bannerText = await banner.textContent();
    const missingText = await page.locator(`#${view.products[1]!.anchor} .missing`).textContent();
    await page.screenshot({ path: join(ARTIFACTS, 'digest-report-375-dark.png'), fullPage: true });
    await page.close();

    expect(result.scrollWidth).toBeLessThanOrEqual(375);
    expect(result.outside).toEqual([]);
    expect(result.images).toHaveLength(chartsOf(view).length - 1);
    expect(result.images.every((i) => i.ok)).toBe(true);
    expect(colours.body).toBe('rgb(13, 17, 23)');
    expect(colours.frame).toBe('rgb(255, 255, 255)');
    expect(bannerText).toBe(view.banner);
    expect(missingText).toContain(missing.title);
    expect(missingText).toContain(missing.alt);
  });
});

describe('anchors', () => {
  it('every in-page link resolves to exactly one element, ids are unique, and every anchor of the view is there', async () => {
    const view = sampleView();
    const { page } = await open(render(view), 1280);
    const dom = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      const ids = [...document.querySelectorAll('[id]')].map((el) => el.id);
      const links = [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')!);
      return {
        ids,
        links,
        unresolved: links
          .filter((h) => h.startsWith('#'))
          .filter((h) => document.getElementById(decodeURIComponent(h.slice(1))) === null),
        contents: [...document.querySelectorAll('nav ol a')].map((a) => a.getAttribute('href')),
        headline: [...document.querySelectorAll('#figures tbody th a')].map((a) => a.getAttribute('href')),
        sections: [...document.querySelectorAll('main > section[id]')].map((s) => ({
          id: s.id,
          tableLinks: [...s.querySelectorAll('.in a')].map((a) => a.getAttribute('href')),
          backToTop: s.querySelectorAll('a[href="#top"]').length,
        })),
      };
    });
    // Following a contents link brings its section to the top of the window.
    const target = view.products[1]!.anchor;
    await page.click(`nav a[href="#${target}"]`);
    const top = await page.evaluate(
      (id) => (globalThis as unknown as PageGlobals).document.getElementById(id)!.getBoundingClientRect().top,
      target,
    );
    await page.close();

    expect(new Set(dom.ids).size).toBe(dom.ids.length);
    expect(dom.links.length).toBeGreaterThan(30);
    expect(dom.links.every((h) => h.startsWith('#'))).toBe(true);
    expect(dom.unresolved).toEqual([]);
    for (const p of view.products) expect(dom.ids).toContain(p.anchor);
    for (const t of tablesOf(view)) expect(dom.ids).toContain(t.id);
    expect(dom.contents).toEqual(['#changes', '#figures', ...view.products.map((p) => `#${p.anchor}`)]);
    expect(dom.headline).toEqual(view.headline.rows.map((r) => `#${r.anchor}`));
    expect(dom.sections.map((s) => s.id)).toEqual(['changes', 'figures', ...view.products.map((p) => p.anchor)]);
    for (const [i, p] of view.products.entries()) {
      expect(dom.sections[i + 2]!.tableLinks).toEqual(p.tables.map((t) => `#${t.id}`));
      expect(dom.sections[i + 2]!.backToTop).toBe(1);
    }
    expect(Math.abs(top)).toBeLessThanOrEqual(1);
  });
});

describe('hostile values', () => {
  it('no script, event handler or javascript: URL reaches the DOM, and every hostile string shows literally', async () => {
    const view = hostileView();
    // The CSP bypassed: escaping alone must keep scripts out.
    const { page, dialogs, requests } = await open(render(view), 1280, 'light', true);
    const dom = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      const all = [...document.querySelectorAll('*')];
      return {
        scripts: document.querySelectorAll('script, iframe, object, embed, form').length,
        handlers: all.flatMap((el) => el.getAttributeNames().filter((n) => n.startsWith('on'))),
        urls: all.flatMap((el) =>
          ['href', 'src', 'action', 'formaction'].flatMap((n) => {
            const v = el.getAttribute(n);
            return v === null ? [] : [v];
          }),
        ),
        alts: [...document.images].map((i) => i.getAttribute('alt')),
        text: document.body.innerText,
        title: document.title,
        csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
      };
    });
    await page.close();

    expect(dialogs).toEqual([]);
    expect(requests).toEqual([]);
    expect(dom.scripts).toBe(0);
    expect(dom.handlers).toEqual([]);
    // Only links within the page and inline PNGs; the hostile viewInBrowserUrl is nowhere (the page is that URL).
    for (const url of dom.urls) expect(url).toMatch(/^(#|data:image\/png;base64,)/);
    expect(dom.csp).toContain("default-src 'none'");
    expect(dom.title).toBe(`${HOSTILE.script} · ${HOSTILE.imgOnError}`);
    expect(dom.alts).toContain(HOSTILE.imgOnError);
    const p = view.products[1]!;
    for (const literal of [
      HOSTILE.script,
      HOSTILE.imgOnError,
      HOSTILE.singleQuote,
      HOSTILE.long,
      `Data incomplete: ${HOSTILE.script}`,
      `</div>${HOSTILE.script}`,
      p.topException!,
      p.tables[4]!.rows[0]![1]!,
      p.tables[5]!.emptyText,
    ])
      expect(dom.text).toContain(literal);
    // innerText drops the bidi controls' effect but keeps the characters.
    expect(dom.text).toContain(HOSTILE.rtl);
  });

  it('the very long name and the right-to-left text wrap inside 375 px; bidi controls stay inside their element', async () => {
    const view = hostileView();
    // A right-to-left override that is never closed, in a value with the page's own text after it.
    const missing = view.products[2]!.charts[2]!;
    missing.title = `\u202E${HOSTILE.rtl} overridden`;
    view.products[2]!.tables[1]!.rows[0]![0] = `\u202E${HOSTILE.rtl}`;
    const { page } = await open(render(view, [missing.cid]), 375);
    const result = await layout(page);
    const bidi = await page.evaluate(
      ({ long, rtl }) => {
        const g = globalThis as unknown as PageGlobals;
        const { document } = g;
        const vw = document.documentElement.clientWidth;
        const holders = [...document.querySelectorAll('h1, h2, h3, p, li, a, th, td, div')].filter((el) => {
          const text = el.textContent ?? '';
          return (text.includes(long) || text.includes(rtl)) && el.querySelector('p, li, a, th, td, div') === null;
        });
        const lefts = (selector: string) =>
          [...document.querySelectorAll(selector)].map((el) => Math.round(el.getBoundingClientRect().left));
        const rtlRow = [...document.querySelectorAll('tbody tr')].find((tr) => (tr.textContent ?? '').includes(rtl))!;
        /** Where one character of an element's text node is drawn. */
        const charBox = (el: PageElement, node: number, index: number) => {
          const range = document.createRange();
          const text = el.childNodes[node]!;
          range.setStart(text, index);
          range.setEnd(text, index + 1);
          return range.getBoundingClientRect();
        };
        const rtlChange = [...document.querySelectorAll('#changes li')].find((li) => li.textContent === rtl)!;
        const missingNote = document.querySelector('.missing')!;
        const after = missingNote.childNodes[1]!.textContent ?? '';
        return {
          /** The page's text after the unclosed override still runs left to right: "(" left of ")". */
          parens: [charBox(missingNote, 1, after.indexOf('(')).left, charBox(missingNote, 1, after.indexOf(')')).left],
          /** A right-to-left sentence starts at the right edge of its line. */
          rtlStart: charBox(rtlChange, 0, 0).right,
          rtlLineEnd: rtlChange.getBoundingClientRect().right,
          holders: holders.length,
          outside: holders
            .map((el) => ({ tag: el.tagName, box: el.getBoundingClientRect() }))
            .filter(({ box }) => box.right > vw + 0.5 || box.left < -0.5)
            .map(({ tag }) => tag),
          direction: g.getComputedStyle(document.body).direction,
          contentsLefts: lefts('nav ol li'),
          changesLefts: lefts('#changes li'),
          rowCellLefts: [...rtlRow.querySelectorAll('th, td')].map((c) => c.getBoundingClientRect().left),
          sectionDirections: [...document.querySelectorAll('main > section > *')].map(
            (el) => g.getComputedStyle(el).direction,
          ),
          headingDirection: g.getComputedStyle(
            [...document.querySelectorAll('main > section > h2')].find((h) => h.textContent === rtl)!,
          ).direction,
        };
      },
      { long: HOSTILE.long, rtl: HOSTILE.rtl },
    );
    await page.screenshot({ path: join(ARTIFACTS, 'digest-report-375-hostile.png'), fullPage: true });
    await page.close();

    expect(result.scrollWidth).toBeLessThanOrEqual(375);
    expect(result.outside).toEqual([]);
    expect(result.scrolling).toEqual([]);
    expect(bidi.holders).toBeGreaterThan(8);
    expect(bidi.outside).toEqual([]);
    // The page stays left-to-right around the RTL text: list items line up, the row's cells keep their order.
    expect(bidi.direction).toBe('ltr');
    expect(new Set(bidi.contentsLefts).size).toBe(1);
    expect(new Set(bidi.changesLefts).size).toBe(1);
    expect(bidi.rowCellLefts).toEqual([...bidi.rowCellLefts].sort((a, b) => a - b));
    // The RTL product's heading reads right to left (dir="auto"); nothing else in the page does.
    expect(bidi.headingDirection).toBe('rtl');
    expect(bidi.parens[0]).toBeLessThan(bidi.parens[1]!);
    expect(Math.abs(bidi.rtlStart - bidi.rtlLineEnd)).toBeLessThanOrEqual(1);
    expect(bidi.sectionDirections.filter((d) => d === 'rtl')).toHaveLength(1);
  });
});

describe('contrast (axe-core)', () => {
  for (const scheme of ['light', 'dark'] as const)
    it(`no text below 4.5:1 in ${scheme} mode, at 375 and 1280 px`, async () => {
      const view = sampleView({
        banner: 'Data incomplete: the exception lines of 15 Nov 2026 could not be downloaded.',
      });
      const html = render(view, [view.products[0]!.charts[1]!.cid]);
      for (const width of [375, 1280]) {
        const { page } = await open(html, width, scheme, true);
        const violations = await contrastViolations(page);
        await page.close();
        expect(violations, `${scheme} at ${width} px`).toEqual([]);
      }
    });
});

describe('ten products', () => {
  it('lays out at 375 and 1280 px with every chart loaded; prints the size', async () => {
    const sizes: string[] = [];
    for (const count of [1, 3, 10]) {
      const html = render(sampleView({}, count));
      sizes.push(
        `${count} product(s): ${(leanBytes(html) / 1024).toFixed(1)} KB without images, ${(Buffer.byteLength(html) / 1024).toFixed(0)} KB with the test PNGs`,
      );
    }
    process.stdout.write(`digest report page size: ${sizes.join('; ')}\n`);

    const view = sampleView({}, 10);
    const html = render(view);
    for (const width of [375, 1280]) {
      const { page } = await open(html, width);
      const result = await layout(page);
      const sections = await page.locator('main > section[id^="product-"], main > section#all-products').count();
      if (width === 1280)
        await page.screenshot({ path: join(ARTIFACTS, 'digest-report-10-products-1280.png'), fullPage: true });
      await page.close();
      expect(result.scrollWidth).toBeLessThanOrEqual(width);
      expect(result.outside).toEqual([]);
      expect(result.images).toHaveLength(chartsOf(view).length);
      expect(result.images.every((i) => i.ok)).toBe(true);
      expect(sections).toBe(11);
    }
  });
});
