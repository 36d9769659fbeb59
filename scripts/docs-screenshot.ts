/**
 * Makes docs/images/digest-email.png, the README's picture of the digest email: a real digest, rendered by
 * `pulse digest --preview --local` from the emulator's data set (seed 1, today 2026-11-20, ISO week 2026-W46), its
 * chart images put back in place of their `cid:` links, opened in Debian's headless Chromium at 800 px, and its first
 * screen (800 × 910 CSS px: the week, what changed, the headline figures, the first chart) saved as a 256-colour PNG.
 * Same data, same week: the same picture.
 *
 *   node scripts/docs-screenshot.ts [--out FILE]
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { chromium } from 'playwright-core';
import UPNG from 'upng-js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCREENSHOT = join(ROOT, 'docs/images/digest-email.png');
const WIDTH = 800;
const HEIGHT = 910;
const WEEK = '2026-W46';
const EMULATOR = { seed: 1, today: '2026-11-20' };

/** Renders the preview into `dir` with the CLI (as a person would) and returns the .eml's path. */
function renderPreview(dir: string): string {
  const out = join(dir, 'preview');
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/pulse.ts'), 'digest', '--preview', '--local', '--week', WEEK, '--work-dir', dir, '--out', out],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PULSE_LOCAL_EMULATOR: JSON.stringify(EMULATOR) } },
  );
  if (run.status !== 0) throw new Error(`pulse digest --preview failed (exit ${run.status}): ${run.stderr}`);
  const eml = run.stdout.split('\n').find((line) => line.trim().endsWith('.eml'));
  if (!eml) throw new Error(`pulse digest --preview printed no .eml path: ${run.stdout}`);
  return eml.trim();
}

/** The email's HTML part with every `cid:` image replaced by its attachment as a data: URL. */
async function inlineHtml(emlPath: string): Promise<string> {
  const mail = await simpleParser(await readFile(emlPath));
  if (typeof mail.html !== 'string') throw new Error(`${emlPath} has no HTML part`);
  const images = new Map(mail.attachments.map((a) => [a.contentId?.replace(/^<|>$/g, ''), a]));
  return mail.html.replace(/src="cid:([^"]+)"/g, (whole, cid: string) => {
    const image = images.get(cid);
    return image ? `src="data:${image.contentType};base64,${image.content.toString('base64')}"` : whole;
  });
}

/** The first screen of `html` at WIDTH px, as a 256-colour PNG. */
async function screenshot(html: string): Promise<Buffer> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT }, deviceScaleFactor: 1 });
    await page.setContent(html, { waitUntil: 'load' });
    const png = await page.screenshot({ fullPage: false });
    const decoded = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer);
    const rgba = UPNG.toRGBA8(decoded);
    return Buffer.from(UPNG.encode(rgba, decoded.width, decoded.height, 256));
  } finally {
    await browser.close();
  }
}

export async function makeScreenshot(file = SCREENSHOT): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'pulse-docs-screenshot-'));
  try {
    const png = await screenshot(await inlineHtml(renderPreview(dir)));
    await writeFile(file, png);
    return png.length;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf('--out');
  const file = at > 0 ? process.argv[at + 1]! : SCREENSHOT;
  try {
    const bytes = await makeScreenshot(file);
    process.stdout.write(`wrote ${file} (${Math.round(bytes / 1024)} KB)\n`);
  } catch (error) {
    process.stderr.write(`docs-screenshot failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
