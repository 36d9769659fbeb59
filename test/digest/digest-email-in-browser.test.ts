/**
 * The digest email of a real run (emulator data, the real charts) as its readers see it, in headless Chromium with
 * the attached PNGs in place of their `cid:` references: at most 3,500 px tall at 800 px for the sample products,
 * no horizontal overflow at 375 and 800 px, the week, the "what changed" sentences and the headline figures on the
 * first screen, every image loaded at 2×, text contrast ≥ 4.5:1 (axe-core) in light and dark mode, and the HTML part
 * under 90 KB — Gmail clips above 102 KB — for 1, 3 and 10 products. Screenshots go to test-artifacts/.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreparedDigest } from '../../src/digest/prepare.ts';
import { EMAIL_HIGHLIGHTS } from '../../src/digest/render/digest-model.ts';
import { contrastViolations } from '../helpers/axe.ts';
import { ARTIFACTS, launchChromium } from '../helpers/email-browser.ts';
import { type RealDigests, startRealDigests } from '../helpers/real-digest.ts';
import { HOSTILE } from './sample-views.ts';

/** What the issue allows: the email of the sample products at 800 px, and its HTML part for up to 10 products. */
const MAX_HEIGHT_AT_800 = 3500;
const MAX_HTML_BYTES = 90 * 1024;
/** A desktop mail client's reading pane: what the reader sees before scrolling. */
const FIRST_SCREEN = { width: 800, height: 900 };

/** Inside page functions only (the project compiles without the DOM lib). */
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  getAttribute(name: string): string | null;
}
interface PageElement {
  getBoundingClientRect(): { left: number; right: number; top: number; bottom: number };
  textContent: string | null;
}
type PageGlobals = {
  document: {
    images: Iterable<PageImage>;
    documentElement: { clientWidth: number; scrollWidth: number; scrollHeight: number };
    querySelectorAll(selector: string): Iterable<PageElement>;
    body: { innerText: string };
  };
};

let digests: RealDigests;
let browser: Browser;
const prepared = new Map<number, PreparedDigest>();

beforeAll(async () => {
  [digests, browser] = await Promise.all([startRealDigests(), launchChromium()]);
  for (const n of [1, 2, 3, 10]) prepared.set(n, await digests.prepare(n));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await digests?.close();
});

/** The HTML as a mail client shows it: each `cid:` reference replaced by its attached PNG. */
function withImages(p: PreparedDigest): string {
  let html = p.html;
  for (const img of p.images)
    html = html.replaceAll(`cid:${img.cid}`, `data:image/png;base64,${Buffer.from(img.content).toString('base64')}`);
  return html;
}

async function open(p: PreparedDigest, width: number, colorScheme: 'light' | 'dark' = 'light', height = 900) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme });
  await page.setContent(withImages(p), { waitUntil: 'load' });
  return page;
}

function measure(page: Page) {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const root = document.documentElement;
    const vw = root.clientWidth;
    const images = [...document.images];
    const boxes = [...document.querySelectorAll('img, table, p, li, h1, h2')].map((el) => el.getBoundingClientRect());
    return {
      height: root.scrollHeight,
      scrollWidth: root.scrollWidth,
      viewport: vw,
      outside: boxes.filter((b) => b.right > vw + 0.5 || b.left < -0.5).length,
      images: images.length,
      notLoaded: images.filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.getAttribute('alt')),
      notSharp: images
        .filter((i) => i.naturalWidth !== 2 * Number(i.getAttribute('width')))
        .map((i) => `${i.naturalWidth} for width ${i.getAttribute('width')}`),
    };
  });
}

describe('the email of a real digest in Chromium', () => {
  for (const count of [2, 3]) {
    it(`${count} products: at most ${MAX_HEIGHT_AT_800} px tall at 800 px, every chart loaded at 2×, no overflow`, async () => {
      const p = prepared.get(count)!;
      const page = await open(p, 800);
      const m = await measure(page);
      await page.screenshot({ path: join(ARTIFACTS, `digest-email-${count}-products-800.png`), fullPage: true });
      await page.close();
      expect(m.height).toBeLessThanOrEqual(MAX_HEIGHT_AT_800);
      expect(m.images).toBe(2 * count);
      expect(m.notLoaded).toEqual([]);
      expect(m.notSharp).toEqual([]);
      expect(m.scrollWidth).toBeLessThanOrEqual(800);
      expect(m.outside).toBe(0);
    });
  }

  it('fits a 375 px phone without horizontal overflow; screenshot saved', async () => {
    const page = await open(prepared.get(3)!, 375);
    const m = await measure(page);
    await page.screenshot({ path: join(ARTIFACTS, 'digest-email-3-products-375.png'), fullPage: true });
    await page.close();
    expect(m.notLoaded).toEqual([]);
    expect(m.scrollWidth).toBeLessThanOrEqual(375);
    expect(m.outside).toBe(0);
  });

  it('the first screen at 800 px shows the week, what changed and every product’s headline figures', async () => {
    const p = prepared.get(3)!;
    const page = await open(p, FIRST_SCREEN.width, 'light', FIRST_SCREEN.height);
    await page.screenshot({ path: join(ARTIFACTS, 'digest-email-first-screen-800.png') });
    const week = (await page.getByText(p.view.weekLabel, { exact: true }).boundingBox())!;
    // The sentences themselves, not the hidden preheader that repeats the first one.
    const sentences = await page.locator('li.item').all();
    expect(sentences.length).toBe(Math.min(p.view.highlights.length, EMAIL_HIGHLIGHTS));
    const lastSentence = (await sentences.at(-1)!.boundingBox())!;
    const rows = await page.locator('td.hl-name').all();
    const lastRow = (await rows.at(-1)!.boundingBox())!;
    await page.close();
    expect(week.y + week.height).toBeLessThanOrEqual(FIRST_SCREEN.height);
    expect(lastSentence.y + lastSentence.height).toBeLessThanOrEqual(FIRST_SCREEN.height);
    expect(rows).toHaveLength(p.view.headline.rows.length);
    expect(lastRow.y + lastRow.height).toBeLessThanOrEqual(FIRST_SCREEN.height);
  });

  for (const scheme of ['light', 'dark'] as const)
    it(`text contrast is at least 4.5:1 in ${scheme} mode (axe-core), at 375 and 800 px`, async () => {
      for (const width of [375, 800]) {
        const page = await open(prepared.get(3)!, width, scheme);
        const violations = await contrastViolations(page);
        if (scheme === 'dark')
          await page.screenshot({ path: join(ARTIFACTS, `digest-email-${width}-dark.png`), fullPage: true });
        await page.close();
        expect(violations, `${scheme} at ${width} px`).toEqual([]);
      }
    });

  it('hostile product names (HTML, very long, right-to-left) stay text and wrap at 375 px', async () => {
    // The config allows names of up to 200 characters: the longest unbroken one.
    const long = HOSTILE.long.slice(0, 200);
    const p = await digests.prepare(3, { names: [HOSTILE.script, long, HOSTILE.rtl] });
    const page = await open(p, 375);
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const m = await measure(page);
    const text = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
    await page.screenshot({ path: join(ARTIFACTS, 'digest-email-hostile-375.png'), fullPage: true });
    await page.close();
    expect(dialogs).toEqual([]);
    expect(p.html).not.toMatch(/<script/i);
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(long);
    expect(m.scrollWidth).toBeLessThanOrEqual(375);
    expect(m.outside).toBe(0);
  });
});

describe('Gmail clipping', () => {
  for (const count of [1, 3, 10])
    it(`the HTML part of a ${count}-product digest stays under 90 KB (Gmail clips at 102 KB)`, async () => {
      const { htmlBytes, textBytes } = await digests.mime(prepared.get(count)!);
      expect(htmlBytes).toBeLessThan(MAX_HTML_BYTES);
      expect(textBytes).toBeGreaterThan(0);
    });

  it('the text part carries the headline figures and the charts’ numbers', () => {
    const p = prepared.get(3)!;
    for (const row of p.view.headline.rows) {
      expect(p.text).toContain(`- ${row.name}: `);
      for (const cell of row.cells) if (cell) expect(p.text).toContain(cell.value);
    }
    for (const product of p.view.products.filter((x) => !x.isTotal))
      for (const cid of product.emailCharts)
        expect(p.text).toContain(`Chart: ${product.charts.find((c) => c.cid === cid)!.alt}`);
  });
});
