/**
 * Headless Chromium for the email tests: the templates compiled into a temporary folder, the browser, and a page
 * with an email's HTML loaded that records every dialog (a script that ran). Screenshots go to ARTIFACTS.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { buildTemplates, TEMPLATES_DIR } from '../../scripts/build-templates.ts';

export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** Debian's Chromium (installed by scripts/ensure-chromium.sh). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

export interface EmailBrowser {
  browser: Browser;
  /** The compiled HTML of templates/<name>.mjml. */
  template(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startEmailBrowser(): Promise<EmailBrowser> {
  const dir = await mkdtemp(join(tmpdir(), 'pulse-templates-'));
  await buildTemplates(TEMPLATES_DIR, dir);
  await mkdir(ARTIFACTS, { recursive: true });
  const browser = await launchChromium();
  return {
    browser,
    template: (name) => readFile(join(dir, `${name}.html`), 'utf8'),
    async close() {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A page of `width` CSS pixels with `html` loaded; `dialogs` collects what any script tried to show. */
export async function openEmail(
  browser: Browser,
  html: string,
  width: number,
  colorScheme: 'light' | 'dark' = 'light',
) {
  const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.setContent(html, { waitUntil: 'load' });
  return { page, dialogs };
}
