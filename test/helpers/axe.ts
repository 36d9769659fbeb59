/**
 * axe-core's colour-contrast rule in a Playwright page: WCAG AA, 4.5:1 for text (3:1 for large text), over the
 * colours the page actually computes (so a `prefers-color-scheme: dark` page is checked in the scheme the page was
 * opened with). axe is injected as a script tag: a page with a Content-Security-Policy must be opened with
 * `bypassCSP: true`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { AxeResults, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

const AXE_SCRIPT = join(dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js');

/** One line per element whose text contrast is too low: its selector and axe's summary (the colours, the ratio). */
export async function contrastViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const options: RunOptions = { runOnly: ['color-contrast'], resultTypes: ['violations'] };
  return page.evaluate(async (opts) => {
    const { axe } = globalThis as unknown as { axe: { run(options: RunOptions): Promise<AxeResults> } };
    const results = await axe.run(opts);
    return results.violations.flatMap((v) =>
      v.nodes.map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? v.help).replace(/\s+/g, ' ').trim()}`),
    );
  }, options);
}
