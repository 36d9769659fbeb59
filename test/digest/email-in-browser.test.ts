/**
 * The rendered emails in a real headless Chromium: hostile values stay text in the parsed DOM, and a realistic digest
 * lays out at 375 px (phone) and 800 px without horizontal overflow. Screenshots go to test-artifacts/ for a person to
 * look at. `cid:` images cannot load in a browser, so each is replaced by a drawn placeholder of its attribute size.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  renderFailureNotice,
  renderMailEventNotice,
  renderUnknownDeliveryNotice,
} from '../../src/core/render/owner-notices.ts';
import { renderDigestEmail } from '../../src/digest/render/digest-email.ts';
import { ARTIFACTS, type EmailBrowser, openEmail, startEmailBrowser } from '../helpers/email-browser.ts';
import { HOSTILE, hostileView, sampleView } from './sample-views.ts';

/** The few browser globals the page functions below use; the project compiles without the DOM lib. */
interface PageElement {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getAttributeNames(): string[];
  getBoundingClientRect(): { left: number; right: number };
}
interface PageImage extends PageElement {
  src: string;
  decode(): Promise<void>;
}
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void } | null;
  toDataURL(type: string): string;
}
interface PageDocument {
  images: Iterable<PageImage>;
  title: string;
  body: { innerText: string };
  documentElement: { clientWidth: number; scrollWidth: number };
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement> & { length: number };
  createElement(tag: 'canvas'): PageCanvas;
}
/** Inside page functions only (they run in the browser, so they cannot call a helper from this file). */
type PageGlobals = { document: PageDocument };

let env: EmailBrowser;
let digestHtml: string;
let noticeHtml: string;

beforeAll(async () => {
  env = await startEmailBrowser();
  digestHtml = await env.template('digest');
  noticeHtml = await env.template('failure-notice');
});
afterAll(async () => {
  await env?.close();
});

const open = (html: string, width: number, colorScheme: 'light' | 'dark' = 'light') =>
  openEmail(env.browser, html, width, colorScheme);

/** Draws a bar-chart-like placeholder at 2× for every cid: image, the way the attached PNG would fill it. */
async function fillCidImages(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const { document } = globalThis as unknown as PageGlobals;
    const images = [...document.images].filter((img) => img.getAttribute('src')?.startsWith('cid:'));
    for (const img of images) {
      const w = Number(img.getAttribute('width'));
      const h = Number(img.getAttribute('height'));
      const canvas = document.createElement('canvas');
      canvas.width = w * 2;
      canvas.height = h * 2;
      const g = canvas.getContext('2d')!;
      g.fillStyle = '#f4f6f9';
      g.fillRect(0, 0, canvas.width, canvas.height);
      g.fillStyle = '#3b6fb6';
      for (let i = 0; i < 12; i++) {
        const barH = canvas.height * (0.35 + 0.5 * Math.abs(Math.sin(i * 1.3)));
        g.fillRect(24 + i * ((canvas.width - 48) / 12), canvas.height - barH, (canvas.width - 48) / 12 - 8, barH);
      }
      img.src = canvas.toDataURL('image/png');
      await img.decode();
    }
    return images.length;
  });
}

/** Everything that sticks out to the right (or left) of the viewport. */
function overflow(page: Page) {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const vw = document.documentElement.clientWidth;
    const boxes = [...document.querySelectorAll('img, table')].map((el) => {
      const r = el.getBoundingClientRect();
      return { tag: el.tagName, left: r.left, right: r.right, text: (el.textContent ?? '').slice(0, 60) };
    });
    return {
      viewport: vw,
      scrollWidth: document.documentElement.scrollWidth,
      outside: boxes.filter((b) => b.right > vw + 0.5 || b.left < -0.5),
      checked: boxes.length,
    };
  });
}

/**
 * A notice opened at `width`: checked to fit (no horizontal scroll, nothing outside the page), screenshot saved; its
 * text, and how many elements a hostile value could have injected (scripts, images with handlers).
 */
async function noticeAt(html: string, width: number, screenshot: string) {
  const { page } = await open(html, width);
  const result = await overflow(page);
  const text = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);
  const injected = await page.evaluate(
    () => (globalThis as unknown as PageGlobals).document.querySelectorAll('script, img[onerror]').length,
  );
  await page.screenshot({ path: join(ARTIFACTS, screenshot), fullPage: true });
  await page.close();
  expect(result.scrollWidth).toBeLessThanOrEqual(width);
  expect(result.outside).toEqual([]);
  return { text, injected };
}

describe('hostile values in a browser', () => {
  it('no script, event handler or javascript: URL reaches the DOM, and the text shows literally', async () => {
    const view = hostileView();
    const { page, dialogs } = await open(renderDigestEmail(view, digestHtml).html, 800);
    const dom = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      const all = [...document.querySelectorAll('*')];
      return {
        scripts: document.querySelectorAll('script').length,
        handlers: all.flatMap((el) => el.getAttributeNames().filter((n) => n.startsWith('on'))),
        jsUrls: all.flatMap((el) =>
          ['href', 'src', 'action', 'formaction']
            .map((n) => el.getAttribute(n) ?? '')
            .filter((v) => /^\s*javascript:/i.test(v)),
        ),
        imgs: [...document.images].map((i) => ({ src: i.getAttribute('src'), alt: i.getAttribute('alt') })),
        link: document.querySelector('a.link')?.getAttribute('href'),
        text: document.body.innerText,
        title: document.title,
      };
    });
    await page.close();
    expect(dialogs).toEqual([]);
    expect(dom.scripts).toBe(0);
    expect(dom.handlers).toEqual([]);
    expect(dom.jsUrls).toEqual([]);
    expect(dom.link).toBe('#');
    // Only the charts of the three product blocks, each a cid image; the hostile alt text stays an attribute value.
    expect(dom.imgs).toHaveLength(6);
    for (const img of dom.imgs) expect(img.src).toMatch(/^cid:[a-z-]+-\d+\.png$/);
    expect(dom.imgs[0]!.alt).toBe(HOSTILE.imgOnError);
    expect(dom.title).toBe(`${HOSTILE.script} · ${HOSTILE.imgOnError}`);
    for (const literal of [
      HOSTILE.script,
      HOSTILE.imgOnError,
      HOSTILE.singleQuote,
      `Data incomplete: ${HOSTILE.script}`,
      HOSTILE.long,
    ])
      expect(dom.text).toContain(literal);
  });
});

describe('layout', () => {
  it.each([375, 800])('the sample digest fits a %i px viewport; screenshot saved', async (width) => {
    const { page } = await open(renderDigestEmail(sampleView(), digestHtml).html, width);
    expect(await fillCidImages(page)).toBe(6);
    const result = await overflow(page);
    await page.screenshot({ path: join(ARTIFACTS, `digest-${width}.png`), fullPage: true });
    await page.close();
    expect(result.checked).toBeGreaterThan(10);
    expect(result.scrollWidth).toBeLessThanOrEqual(width);
    expect(result.outside).toEqual([]);
  });

  it('a forced digest with a banner fits 375 px in dark mode; screenshot saved', async () => {
    const view = sampleView({ banner: 'Data incomplete: the exception lines of 15 Nov 2026 could not be downloaded.' });
    const { page } = await open(renderDigestEmail(view, digestHtml).html, 375, 'dark');
    await fillCidImages(page);
    const result = await overflow(page);
    const bannerVisible = await page.getByRole('alert').isVisible();
    await page.screenshot({ path: join(ARTIFACTS, 'digest-375-dark-banner.png'), fullPage: true });
    await page.close();
    expect(bannerVisible).toBe(true);
    expect(result.outside).toEqual([]);
  });

  it('the failure notice fits 375 px; screenshot saved', async () => {
    const notice = renderFailureNotice(
      {
        digestId: 'weekly-exec',
        digestTitle: 'Weekly product digest',
        isoWeek: '2026-W46',
        reasons: [
          'dateRangeReport for 12345678901 failed after 4 retries: 503 Service Unavailable',
          'Chart "Active clients per week" of Acme Studio Professional has no visible pixels',
        ],
        heldAt: '2026-11-16 08:00 Europe/Berlin',
        forceCommand:
          'npx pulse digest --config /etc/pulse/pulse.config.json --digest weekly-exec --week 2026-W46 --force',
        footer: 'Pulse · digest weekly-exec',
      },
      noticeHtml,
    );
    const { page } = await open(notice.html, 375);
    const result = await overflow(page);
    await page.screenshot({ path: join(ARTIFACTS, 'failure-notice-375.png'), fullPage: true });
    await page.close();
    expect(result.scrollWidth).toBeLessThanOrEqual(375);
    expect(result.outside).toEqual([]);
  });

  for (const width of [375, 800]) {
    it(`the unknown-delivery notice fits ${width} px, shows both commands, and keeps a hostile reason as text`, async () => {
      const notice = renderUnknownDeliveryNotice(
        {
          what: 'the digest “Weekly product digest” (weekly-exec) for 2026-W46',
          subjectLabel: 'Weekly product digest (weekly-exec), 2026-W46',
          heading: 'Weekly product digest · 2026-W46',
          address: 'ceo@example.com',
          claimedAt: '2026-11-16T07:00:04.120Z',
          reason: `the mail server may have taken it: ${HOSTILE.script}${HOSTILE.imgOnError}`,
          resendCommand: 'pulse digest --digest weekly-exec --week 2026-W46 --resend-unknown',
          confirmCommand: 'pulse digest --digest weekly-exec --week 2026-W46 --confirm-unknown',
          footer: 'Pulse · digest weekly-exec',
        },
        noticeHtml,
      );
      const { text, injected } = await noticeAt(notice.html, width, `unknown-delivery-notice-${width}.png`);
      expect(text).toContain('--resend-unknown');
      expect(text).toContain('--confirm-unknown');
      expect(text).toContain(`${HOSTILE.script}${HOSTILE.imgOnError}`);
      expect(injected).toBe(0);
    });
  }
  for (const width of [375, 800]) {
    it(`the bounce notice fits ${width} px, shows the clear command, and keeps a hostile diagnostic as text`, async () => {
      const notice = renderMailEventNotice(
        {
          kind: 'bounce',
          what: 'the digest “Weekly product digest” (weekly-exec) for 2026-W46',
          subjectLabel: 'Weekly product digest (weekly-exec), 2026-W46',
          heading: 'Weekly product digest · 2026-W46',
          address: 'ceo@example.com',
          at: '2026-11-16T07:02:11.000Z',
          details: [
            'Permanent bounce (General)',
            `ceo@example.com: smtp; 550 5.1.1 <ceo@example.com>: Recipient address rejected: User unknown in virtual mailbox table ${HOSTILE.script}`,
          ],
          clearCommand: 'pulse mail clear-suppression ceo@example.com',
          footer: 'Pulse · digest weekly-exec',
        },
        noticeHtml,
      );
      const { text, injected } = await noticeAt(notice.html, width, `mail-bounce-notice-${width}.png`);
      expect(text).toContain('Email bounced');
      expect(text).toContain('pulse mail clear-suppression ceo@example.com');
      expect(text).toContain(HOSTILE.script);
      expect(injected).toBe(0);
    });
  }
});
