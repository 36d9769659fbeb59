/**
 * Emails in a real headless Chromium (Debian's /usr/bin/chromium, installed by scripts/ensure-chromium.sh): one
 * launch per test file, and a page per email at a viewport width, recording any dialog a script would open.
 */
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/** Screenshots for a person to look at (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

/** The HTML in a new page `width` px wide; `dialogs` collects what any alert() would have said. */
export async function openHtml(browser: Browser, html: string, width: number, colorScheme: 'light' | 'dark' = 'light') {
  const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { page, dialogs };
}
