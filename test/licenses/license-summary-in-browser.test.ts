/**
 * A first run's summary email (licenses.firstRun "summary") in a real headless Chromium, at 375 px and 800 px, light
 * and dark: it fits without horizontal overflow, says what happens next with the configured stages, and its text
 * keeps WCAG AA contrast (axe-core) in both schemes — the "more in the CSV" box was light on light in dark mode.
 * Screenshots go to test-artifacts/ (and $PULSE_SHOTS_DIR when set) for a person to look at.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LICENSE_STAGE_DEFAULTS } from '../../src/config/licenses-schema.ts';
import type { ShownAlert } from '../../src/licenses/alerts/alert.ts';
import { renderLicenseAlertEmail } from '../../src/licenses/alerts/alert-email.ts';
import { alertView, byUrgency, summarize } from '../../src/licenses/alerts/alert-view.ts';
import type { Stage } from '../../src/licenses/alerts/stage.ts';
import { stagesText, summaryView } from '../../src/licenses/alerts/summary-view.ts';
import { contrastViolations } from '../helpers/axe.ts';
import { ARTIFACTS, type EmailBrowser, openEmail, startEmailBrowser } from '../helpers/email-browser.ts';

/** What the page code reads (the DOM types are not in this project's lib). */
type PageGlobals = {
  document: { title: string; body: { innerText: string }; documentElement: { scrollWidth: number } };
};

let email: EmailBrowser;
let templateHtml: string;
const SHOTS = process.env.PULSE_SHOTS_DIR;

beforeAll(async () => {
  email = await startEmailBrowser();
  templateHtml = await email.template('license-alert');
  if (SHOTS) await mkdir(SHOTS, { recursive: true });
}, 60_000);
afterAll(() => email?.close());

const STAGES: Stage[] = ['blocked-in-use', 'expired-in-use', 'expiry-day', 'before-7', 'after-7', 'over-quota'];

function alerts(n: number): ShownAlert[] {
  return Array.from({ length: n }, (_, i): ShownAlert => {
    const stage = STAGES[i % STAGES.length]!;
    return {
      productId: '12345678901',
      key: {
        licenseKey: i === 3 ? 'W'.repeat(200) : `K${String(i).padStart(4, '0')}-ABCDE-FGHJK`,
        licenseType: i % 4 === 0 ? 'trial' : 'subscription',
        expiryDate: '2026-12-04',
        clientCount: i,
        overQuotaCount: stage === 'over-quota' ? 2 : 0,
        lastSeenDate: '2026-11-22',
      },
      stage,
      daysLeft: 7,
      expiredInUse: false,
      ledgerKey: `k${i}`,
      usage: { lastWindow: i % 5, previousWindow: i % 3 },
      labels: i % 2 ? ['revenueLeak'] : ['renewalPriority', 'conversionCandidate'],
    };
  }).sort(byUrgency);
}

const ctx = { today: '2026-11-27', productName: () => 'Example Desktop', windowDays: 30, footer: 'Sent by Pulse' };

function summaryHtml(n: number) {
  const all = alerts(n);
  const view = summaryView(alertView(all, 50, ctx), summarize(all), ['Example Desktop'], LICENSE_STAGE_DEFAULTS);
  return renderLicenseAlertEmail(view, templateHtml);
}

describe('the first-run summary email in Chromium', () => {
  it.each([
    [375, 'light'],
    [800, 'light'],
    [375, 'dark'],
    [800, 'dark'],
  ] as const)('fits %i px (%s), says what happens next, readable contrast; screenshot saved', async (width, scheme) => {
    const { html, text } = summaryHtml(60);
    const { page, dialogs } = await openEmail(email.browser, html, width, scheme);
    const dom = await page.evaluate(() => {
      const d = (globalThis as unknown as PageGlobals).document;
      return { scrollWidth: d.documentElement.scrollWidth, text: d.body.innerText, title: d.title };
    });
    for (const dir of [ARTIFACTS, SHOTS].filter((d): d is string => d !== undefined)) {
      await page.screenshot({ path: join(dir, `license-summary-${width}-${scheme}.png`) });
      await page.screenshot({ path: join(dir, `license-summary-${width}-${scheme}-full.png`), fullPage: true });
    }
    const contrast = await contrastViolations(page);
    await page.close();
    expect(dom.scrollWidth).toBeLessThanOrEqual(width);
    expect(dialogs).toEqual([]);
    expect(dom.title).toBe('License keys already in an alert stage · 27 Nov 2026');
    expect(dom.text).toContain('Pulse now alerts you when a license key of Example Desktop reaches a new stage.');
    expect(dom.text).toContain('60 keys are in one already: here they are, once, by stage.');
    expect(dom.text).toContain('What happens next');
    expect(dom.text).toContain(stagesText(LICENSE_STAGE_DEFAULTS));
    expect(dom.text).toContain('Showing the 50 most urgent of 60 alerts');
    expect(contrast).toEqual([]);
    // The text part says the same.
    expect(text).toContain(
      `What happens next: You get an email only when a key reaches a new stage: ${stagesText(LICENSE_STAGE_DEFAULTS)}.`,
    );
  });

  it('names the configured stages, in the order a key reaches them', () => {
    expect(stagesText(LICENSE_STAGE_DEFAULTS)).toBe(
      '60, 30, 14, 7 and 1 days before it expires; on its expiry day; 1, 7 and 30 days after it; ' +
        'or when it goes over quota, or is blocked or expired but still in use',
    );
    expect(stagesText({ daysBefore: [1], onExpiryDay: false, daysAfter: [] })).toBe(
      '1 day before it expires; or when it goes over quota, or is blocked or expired but still in use',
    );
  });

  it('an alert email has no "what happens next" box', () => {
    const { html, text } = renderLicenseAlertEmail(alertView(alerts(6), 50, ctx), templateHtml);
    expect(text).not.toContain('What happens next');
    expect(html).not.toContain('What happens next');
  });
});
