/**
 * The weekly license registry report in a real headless Chromium: hostile license types stay text, and a report of
 * three products with week-over-week changes lays out at 375 px and 800 px (light and dark) without horizontal
 * overflow. Screenshots go to test-artifacts/ for a person to look at.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIsoWeek } from '../../src/core/calendar.ts';
import type { StoredFigures } from '../../src/licenses/report/registry-snapshot.ts';
import { renderLicenseReportEmail } from '../../src/licenses/report/report-email.ts';
import { emptyFigures, type RegistryFigures } from '../../src/licenses/report/report-figures.ts';
import { licenseReportView, type ProductReport } from '../../src/licenses/report/report-view.ts';
import { ARTIFACTS, type EmailBrowser, openEmail, startEmailBrowser } from '../helpers/email-browser.ts';

const HOSTILE_TYPE = '<img src=x onerror=alert(1)>=HYPERLINK("http://evil")';
const LONG_TYPE = 'enterprise-site-license-with-an-unreasonably-long-name-that-never-breaks';

type PageGlobals = {
  document: {
    documentElement: { clientWidth: number; scrollWidth: number };
    body: { innerText: string };
    querySelectorAll(s: string): Iterable<{
      tagName: string;
      getAttributeNames(): string[];
      getBoundingClientRect(): { left: number; right: number };
    }> & { length: number };
  };
};

function figures(scale: number, types: [string, number][]): RegistryFigures {
  const f = emptyFigures();
  f.keys = types.reduce((n, [, k]) => n + k, 0);
  f.byType = types.map(([type, keys]) => ({ type, keys }));
  f.byStatus = { activated: 9 * scale, allowed: 10 * scale, blocked: scale, expired: 3 * scale };
  f.expiring = { within30: 2 * scale, within60: 3 * scale, within90: 5 * scale };
  f.overQuota = scale;
  f.revenueLeaks = { total: 2 * scale, expiredInUse: scale + 1, blockedInUse: scale };
  f.trials = { active: 4 * scale, converted: scale, lost: Math.floor(scale / 2) };
  return f;
}

function product(id: string, name: string, now: RegistryFigures, previous?: RegistryFigures): ProductReport {
  const stored: StoredFigures = {
    format: 'pulse-license-figures/1',
    productId: id,
    date: '2026-11-22',
    isoWeek: '2026-W47',
    takenAt: '2026-11-23T08:00:04.000Z',
    snapshot: { key: `pulse/license-registry/${id}/2026-11-22.csv.gz`, sha256: 'ab'.repeat(32), keys: now.keys },
    comparedWith: previous ? `pulse/license-registry/${id}/2026-11-15.csv.gz` : null,
    figures: now,
  };
  return { name, stored, previous };
}

function sampleReport() {
  const products = [
    product(
      '12345678901',
      'Acme Studio Professional',
      figures(1240, [
        ['purchased', 712_400],
        ['trial', 233_100],
        ['subscription', 1_204_550],
        [LONG_TYPE, 12],
      ]),
      figures(1200, [
        ['purchased', 710_000],
        ['trial', 240_000],
        ['subscription', 1_190_000],
      ]),
    ),
    product(
      '9876543210',
      'Acme Server',
      figures(40, [
        ['purchased', 5100],
        [HOSTILE_TYPE, 1],
      ]),
      figures(41, [['purchased', 5090]]),
    ),
    product('40000000017', 'Acme Mobile (new this week)', figures(3, [['freeware', 420]])),
  ];
  return licenseReportView(
    'Weekly license registry report',
    parseIsoWeek('2026-W47'),
    products,
    'https://archive.example.com/pulse/license-reports/2026-W47/index.html',
  );
}

let env: EmailBrowser;
let html: string;
beforeAll(async () => {
  env = await startEmailBrowser();
  html = await env.template('license-report');
});
afterAll(async () => {
  await env?.close();
});

async function open(width: number, colorScheme: 'light' | 'dark' = 'light') {
  const email = renderLicenseReportEmail(sampleReport(), html);
  return { ...(await openEmail(env.browser, email.html, width, colorScheme)), email };
}

describe('the license report email', () => {
  it('stays under Gmail’s clipping size and shows hostile types as text', async () => {
    const { page, dialogs, email } = await open(800);
    const dom = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      return {
        imgs: document.querySelectorAll('img').length,
        handlers: [...document.querySelectorAll('*')].flatMap((el) =>
          el.getAttributeNames().filter((n) => n.startsWith('on')),
        ),
        text: document.body.innerText,
      };
    });
    await page.close();
    expect(Buffer.byteLength(email.html)).toBeLessThan(100_000);
    expect(dialogs).toEqual([]);
    expect(dom.imgs).toBe(0);
    expect(dom.handlers).toEqual([]);
    expect(dom.text).toContain(HOSTILE_TYPE);
    expect(dom.text).toContain('▲ +14,550'); // subscription keys, week over week
    expect(email.text).toContain(`${HOSTILE_TYPE}: 1 (▲ +1 vs last week)`);
  });

  it.each([
    [375, 'light'],
    [800, 'light'],
    [375, 'dark'],
  ] as const)('fits a %i px viewport (%s); screenshot saved', async (width, scheme) => {
    const { page } = await open(width, scheme);
    const result = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageGlobals;
      const vw = document.documentElement.clientWidth;
      const boxes = [...document.querySelectorAll('table, td, th')].map((el) => el.getBoundingClientRect());
      return {
        scrollWidth: document.documentElement.scrollWidth,
        outside: boxes.filter((b) => b.right > vw + 0.5 || b.left < -0.5).length,
        checked: boxes.length,
      };
    });
    await page.screenshot({ path: join(ARTIFACTS, `license-report-${width}-${scheme}.png`), fullPage: true });
    // The first screen as a reader sees it, at full resolution.
    await page.screenshot({ path: join(ARTIFACTS, `license-report-${width}-${scheme}-first-screen.png`) });
    // …and the screen with the long and hostile license types, where wrapping is put to the test.
    await page.getByText(LONG_TYPE).first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, `license-report-${width}-${scheme}-types.png`) });
    await page.close();
    expect(result.checked).toBeGreaterThan(50);
    expect(result.scrollWidth).toBeLessThanOrEqual(width);
    expect(result.outside).toBe(0);
  });
});
