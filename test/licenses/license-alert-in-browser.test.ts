/**
 * The license alert email in a real headless Chromium: hostile key and type text stays text, and a realistic email
 * (every stage, every label, a 256-character key, more keys than shown) lays out at 375 px and 800 px without
 * horizontal overflow. Screenshots go to test-artifacts/ for a person to look at.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTemplates, TEMPLATES_DIR } from '../../scripts/build-templates.ts';
import type { ShownAlert } from '../../src/licenses/alerts/alert.ts';
import { renderLicenseAlertEmail } from '../../src/licenses/alerts/alert-email.ts';
import { alertView, byUrgency } from '../../src/licenses/alerts/alert-view.ts';
import type { Label } from '../../src/licenses/alerts/labels.ts';
import { MAX_HTML_BYTES, renderFitting } from '../../src/licenses/alerts/notify-recipient.ts';
import type { Stage } from '../../src/licenses/alerts/stage.ts';
import { ARTIFACTS, launchChromium, openEmail } from '../helpers/email-browser.ts';

interface PageDocument {
  title: string;
  body: { innerText: string };
  documentElement: { clientWidth: number; scrollWidth: number };
  querySelectorAll(selector: string): { length: number };
}
type PageGlobals = { document: PageDocument };

const HOSTILE_KEY = `<script>alert("key")</script>=HYPERLINK("x") # ü😀`;
const HOSTILE_TYPE = `<img src=x onerror=alert("type")>`;

let browser: Browser;
let dir: string;
let templateHtml: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pulse-templates-'));
  await buildTemplates(TEMPLATES_DIR, dir);
  templateHtml = await readFile(join(dir, 'license-alert.html'), 'utf8');
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

function alert(i: number, stage: Stage, labels: Label[], over: Partial<ShownAlert['key']> = {}): ShownAlert {
  const daysLeft = stage.startsWith('before-')
    ? Number(stage.slice(7))
    : stage.startsWith('after-')
      ? -Number(stage.slice(6))
      : stage === 'expiry-day'
        ? 0
        : -40;
  return {
    productId: i % 3 === 0 ? '9876543210' : '12345678901',
    key: {
      licenseKey: `K${String(i).padStart(4, '0')}-ABCDE-FGHJK-LMNPQ`,
      licenseType: i % 4 === 0 ? 'trial' : 'purchased',
      expiryDate: '2026-12-01',
      clientCount: 3 + i,
      overQuotaCount: stage === 'over-quota' ? 2 : -1,
      lastSeenDate: '2026-11-22',
      ...over,
    },
    stage,
    daysLeft,
    expiredInUse: labels.includes('revenueLeak'),
    ledgerKey: `k${i}`,
    usage: { lastWindow: (i * 7) % 11, previousWindow: (i * 5) % 9 },
    labels,
  };
}

function sample(): ShownAlert[] {
  const alerts = [
    alert(1, 'blocked-in-use', ['revenueLeak'], { expiryDate: null }),
    alert(2, 'expired-in-use', ['revenueLeak']),
    alert(3, 'expiry-day', ['renewalPriority']),
    alert(4, 'before-1', ['atRisk', 'conversionCandidate'], { licenseKey: HOSTILE_KEY, licenseType: HOSTILE_TYPE }),
    alert(5, 'before-7', ['renewalPriority'], { licenseKey: 'X'.repeat(256) }),
    alert(6, 'after-1', ['revenueLeak']),
    alert(7, 'before-30', [], { licenseType: 'enterprise-site-license-with-a-very-long-type-name-without-breaks' }),
    alert(8, 'over-quota', []),
  ];
  for (let i = 9; i < 70; i++) alerts.push(alert(i, i % 2 ? 'before-60' : 'after-7', i % 3 ? [] : ['atRisk']));
  return alerts.sort(byUrgency);
}

const ctx = {
  today: '2026-11-23',
  productName: (id: string) => (id === '9876543210' ? 'Example Server' : 'Example Desktop'),
  windowDays: 30,
  footer: 'Sent by Pulse',
};

async function open(html: string, width: number, colorScheme: 'light' | 'dark' = 'light') {
  const { page, dialogs } = await openEmail(browser, html, width, colorScheme);
  const dom = await page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    return {
      viewport: document.documentElement.clientWidth,
      scrollWidth: document.documentElement.scrollWidth,
      scripts: document.querySelectorAll('script').length,
      imgs: document.querySelectorAll('img').length,
      text: document.body.innerText,
      title: document.title,
    };
  });
  return { page, dialogs, dom };
}

describe('the license alert email in Chromium', () => {
  it.each([375, 800])('fits a %i px viewport; hostile text stays text; screenshot saved', async (width) => {
    const { html } = renderLicenseAlertEmail(alertView(sample(), 50, ctx), templateHtml);
    expect(Buffer.byteLength(html)).toBeLessThan(100_000);
    const { page, dialogs, dom } = await open(html, width);
    await page.screenshot({ path: join(ARTIFACTS, `license-alert-${width}.png`), fullPage: true });
    await page.screenshot({ path: join(ARTIFACTS, `license-alert-${width}-top.png`) });
    await page.close();
    expect(dom.scrollWidth).toBeLessThanOrEqual(width);
    expect(dialogs).toEqual([]);
    expect(dom.scripts).toBe(0);
    expect(dom.imgs).toBe(0);
    expect(dom.text).toContain(HOSTILE_KEY);
    expect(dom.text).toContain(HOSTILE_TYPE);
    expect(dom.text).toContain('Showing the 50 most urgent of 69 alerts');
    expect(dom.title).toBe('License keys that need action · 23 Nov 2026');
  });

  it('shows fewer keys than maxKeysInEmail when their HTML would pass 100 KB', () => {
    const long = Array.from({ length: 500 }, (_, i) =>
      alert(i, 'before-7', ['renewalPriority'], {
        licenseKey: `${i}-${'Ω'.repeat(250)}`,
        licenseType: 'x'.repeat(200),
      }),
    );
    const { rendered, limit } = renderFitting(long, 500, ctx);
    expect(Buffer.byteLength(rendered.html)).toBeLessThanOrEqual(MAX_HTML_BYTES);
    expect(limit).toBeGreaterThan(10);
    expect(limit).toBeLessThan(500);
    expect(rendered.text).toContain(`Showing the ${limit} most urgent of 500 alerts`);
  });

  it('fits 375 px in dark mode; screenshot saved', async () => {
    const { html } = renderLicenseAlertEmail(alertView(sample().slice(0, 8), 50, ctx), templateHtml);
    const { page, dom } = await open(html, 375, 'dark');
    await page.screenshot({ path: join(ARTIFACTS, 'license-alert-375-dark.png'), fullPage: true });
    await page.close();
    expect(dom.scrollWidth).toBeLessThanOrEqual(375);
  });
});
