/**
 * An analytics owner's first steps: a config naming their own products (not the emulator's built-in ones) previewed
 * and run with `--local`. The in-process emulator serves those products, the preview prints every path the same
 * way (relative to the working directory inside it), and every .html Pulse writes for a person to open — the
 * preview email, the outbox copy of each sent email, the full report — shows its charts in a real browser, also
 * when the file is moved on its own. Screenshots of the preview at 375 and 800 px go to test-artifacts/.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { ARTIFACTS, launchChromium } from '../helpers/email-browser.ts';
import { PULSE_BIN } from '../helpers/pulse-process.ts';

const PRODUCTS = [
  { id: '55512345678', name: 'Acme Studio' },
  { id: '7000000001', name: 'Acme Cloud' },
];

let tmp: string;
let config: string;
let browser: Browser;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-own-products-'));
  const example = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete example.$schema;
  example.products = PRODUCTS;
  delete example.usageAlerts; // its rules name the example's products
  // UTC: the example's Europe/Berlin week ends before the service's UTC week, and a run in that gap is held.
  for (const d of example.digests) {
    d.productIds = PRODUCTS.map((p) => p.id);
    d.schedule.timeZone = 'UTC';
  }
  config = join(tmp, 'acme.config.json');
  await writeFile(config, JSON.stringify(example));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** `pulse …` as a process of its own in `cwd`, so that paths are printed relative to it. */
function pulseIn(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [PULSE_BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every image of the page at `path`, as the browser decoded it, after taking a screenshot at each width. */
async function imagesOf(path: string, shots: { name: string; widths: number[] } = { name: '', widths: [800] }) {
  const page = await browser.newPage({ viewport: { width: shots.widths[0]!, height: 900 } });
  try {
    await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
    for (const width of shots.widths) {
      await page.setViewportSize({ width, height: 900 });
      if (shots.name) await page.screenshot({ path: join(ARTIFACTS, `${shots.name}-${width}.png`), fullPage: true });
    }
    return await page.$$eval('img', (imgs) =>
      imgs.map((img) => ({ alt: img.alt, naturalWidth: img.naturalWidth, src: img.src.slice(0, 30) })),
    );
  } finally {
    await page.close();
  }
}

const expectAllShown = (images: { naturalWidth: number }[]) => {
  expect(images.length).toBeGreaterThan(0);
  for (const img of images) expect(img, JSON.stringify(img)).toMatchObject({ naturalWidth: expect.any(Number) });
  expect(images.filter((img) => img.naturalWidth === 0)).toEqual([]);
};

describe('a config naming products the bundled example does not have', () => {
  it('--preview --local renders their digest, prints every path relative to the working directory, and its charts show', async () => {
    const r = await pulseIn(tmp, ['digest', '--preview', '--local', '--config', config]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [summary, ...paths] = r.stdout.trimEnd().split('\n');
    expect(summary).toBe('digest: ok (previewed 1, sent 0)');
    // The report page, the email's .html and .eml: all relative to the cwd, none absolute.
    expect(paths.map((p) => p.trim().replace(/[^/]*$/, ''))).toEqual(Array(3).fill('.pulse/preview/'));
    const files = paths.map((p) => join(tmp, p.trim()));
    expect((await readdir(join(tmp, '.pulse', 'preview'))).sort()).toEqual(files.map((f) => f.split('/').pop()).sort());

    const emailHtml = files.find((f) => f.endsWith('.html') && !f.includes('/digest-'))!;
    const html = await readFile(emailHtml, 'utf8');
    for (const p of PRODUCTS) expect(html).toContain(p.name);
    expect(html).not.toContain('cid:');
    const email = await imagesOf(emailHtml, { name: 'own-products-preview', widths: [375, 800] });
    expectAllShown(email);
    expect(email.length).toBeGreaterThanOrEqual(PRODUCTS.length);
    // Moved on its own, it still shows them: nothing it needs lies beside it.
    const moved = join(await mkdtemp(join(tmp, 'moved-')), 'digest.html');
    await copyFile(emailHtml, moved);
    expectAllShown(await imagesOf(moved));

    const report = files.find((f) => f.includes('/digest-'))!;
    const reportImages = await imagesOf(report, { name: 'own-products-report', widths: [375, 800] });
    expectAllShown(reportImages);
    expect(reportImages.length).toBeGreaterThan(email.length);
  }, 120_000);

  it('a --local run sends their digest, and the outbox copy of each email and the full report show the charts', async () => {
    const workDir = join(tmp, 'run');
    const r = await pulseMain(['digest', '--local', '--config', config, '--work-dir', workDir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Two recipients and the example's three channels (a Slack, a Teams and a webhook channel).
    expect(r.stdout).toMatch(/^digest: ok \(sent 5,/);
    const outbox = join(workDir, 'outbox');
    const pages = (await readdir(outbox)).filter((f) => f.endsWith('.html'));
    expect(pages).toHaveLength(3); // two recipients and the full report
    for (const page of pages) {
      const html = await readFile(join(outbox, page), 'utf8');
      expect(html, page).toContain(PRODUCTS[0]!.name);
      expectAllShown(await imagesOf(join(outbox, page)));
    }
  }, 120_000);
});
