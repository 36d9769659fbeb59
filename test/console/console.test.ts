/**
 * `pulse console` over the work directory of a real local run (`pulse start`, once, with a config whose digest
 * title and product name are hostile markup; the emulator's registry plants a hostile license key), in Chromium:
 * every page loads at 375 and 800 px without widening the page and passes axe, the latest digest shows with its
 * charts decoded, every link answers 200, hostile text stays text, a broken chain and a run holding the directory
 * are said, a missing directory gets a clear page, only loopback is served, and the work directory is unchanged.
 * Screenshots of every page go to /tmp/console-shots/.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AxeResults } from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_KEY_TEXT } from '../../emulator/data/license-registry.ts';
import { consoleCommand } from '../../src/cli/console-command.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { type RunningConsole, startConsole } from '../../src/console/console-server.ts';
import { lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { launchChromium } from '../helpers/email-browser.ts';
import { writeExampleConfig } from '../helpers/pulse-process.ts';

const SHOTS = '/tmp/console-shots';
/** Pages of a hundred rows: their screenshots show the first screen only. */
const LONG_PAGES = new Set(['ledger', 'licenses', 'archive-run']);
const HOSTILE_TITLE = '<img src=x onerror=alert(1)> Digest';
const HOSTILE_PRODUCT = '<script>alert("product")</script> Desktop';
const AXE_SCRIPT = join(dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js');

let tmp: string;
let workDir: string;
let before: Map<string, string>;
let consoleUrl: string;
let running: RunningConsole;
let browser: Browser;
let weekOver: boolean;
const dialogs: string[] = [];

/** Every file under `dir` with its SHA-256. */
async function hashes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out.set(
      path,
      createHash('sha256')
        .update(await readFile(path))
        .digest('hex'),
    );
  }
  return out;
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-console-'));
  workDir = join(tmp, 'work');
  const config = await writeExampleConfig(tmp, 'hostile.json', (c) => {
    c.digests[0].title = HOSTILE_TITLE;
    c.products[0].name = HOSTILE_PRODUCT;
  });
  const now = new Date();
  const run = await pulseMain(['start', '--work-dir', workDir, '--config', config]);
  expect(run.stderr).toBe('');
  // Until midnight UTC the week that ended in Berlin is still running in the service's days: the digest is held.
  weekOver = lastCompleteIsoWeek(now, 'Europe/Berlin').stop < now.toISOString().slice(0, 10);
  before = await hashes(workDir);
  running = await startConsole({ workDir, port: 0 });
  consoleUrl = running.url;
  browser = await launchChromium();
  await mkdir(SHOTS, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await running?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function openPage(width: number): Promise<Page> {
  // bypassCSP: the console's CSP allows no script, and axe is injected as one.
  const page = await browser.newPage({ viewport: { width, height: 900 }, bypassCSP: true });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return page;
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  return page.evaluate(async () => {
    const { axe } = globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<AxeResults> } };
    // The message frames hold the messages' own HTML (checked by the email tests), not the console's.
    const results = await axe.run(
      { exclude: [['iframe']] },
      { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'], resultTypes: ['violations'] },
    );
    return results.violations.flatMap((v) => v.nodes.map((n) => `${v.id} ${n.target.join(' ')}: ${v.help}`));
  });
}

/** The console's links found on a page, as absolute URLs of the console. */
const linksOn = (page: Page): Promise<string[]> =>
  page.$$eval('a[href]', (as) => as.map((a) => (a as unknown as { href: string }).href));

/** What the tests read of an image in the page. */
type PageImage = { complete: boolean; naturalWidth: number };

async function pagesToCheck(): Promise<[string, string][]> {
  const html = await (await fetch(consoleUrl + 'outbox')).text();
  const messages = [...html.matchAll(/href="(\/outbox\/messages\/[^"]+)"/g)].map((m) => m[1]!);
  const report = /href="(\/outbox\/reports\/[^"]+)"/.exec(html)?.[1];
  const archive = await (await fetch(consoleUrl + 'archive')).text();
  const run = /href="(\/archive\/run\?[^"]+)"/.exec(archive)?.[1]?.replaceAll('&amp;', '&');
  expect(messages.length).toBeGreaterThan(0);
  expect(report).toBeDefined();
  expect(run).toBeDefined();
  return [
    ['overview', '/'],
    ['outbox', '/outbox'],
    ['message', messages.at(-1)!],
    ['report', report!],
    ['archive', '/archive'],
    ['archive-run', run!],
    ['ledger', '/ledger'],
    ['licenses', '/licenses'],
  ];
}

describe('pulse console over a real local run', () => {
  it('serves every page at 375 and 800 px: no sideways page scroll, no axe violation (screenshots taken)', async () => {
    for (const width of [375, 800]) {
      const page = await openPage(width);
      for (const [name, path] of await pagesToCheck()) {
        const res = await page.goto(new URL(path, consoleUrl).href);
        expect(res?.status(), path).toBe(200);
        await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: !LONG_PAGES.has(name) });
        const overflow = await page.evaluate(() => {
          const g = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return g.document.documentElement.scrollWidth - g.innerWidth;
        });
        expect(overflow, `${path} at ${width} px is wider than the screen`).toBeLessThanOrEqual(0);
        expect(await axeViolations(page), path).toEqual([]);
      }
      await page.close();
    }
  }, 120_000);

  it('shows the latest digest as its reader sees it, charts decoded, with its full report', async () => {
    const page = await openPage(800);
    await page.goto(consoleUrl + 'outbox');
    const latestDigest = page.locator('tr', { hasText: 'digest exec-weekly' }).first().locator('a');
    if (!weekOver) {
      expect(await page.locator('tr', { hasText: 'digest exec-weekly' }).count()).toBe(0);
      return;
    }
    await latestDigest.click();
    await page.waitForLoadState('load');
    expect(await page.locator('h1').textContent()).toContain(HOSTILE_TITLE);
    const frame = page.frames().find((f) => f.url().endsWith('/view'));
    expect(frame).toBeDefined();
    await frame!.waitForLoadState('load');
    const images = await frame!.$$eval('img', (imgs) =>
      imgs.map((i) => ({
        complete: (i as unknown as PageImage).complete,
        width: (i as unknown as PageImage).naturalWidth,
      })),
    );
    expect(images.length).toBeGreaterThan(2);
    for (const image of images) expect(image).toEqual({ complete: true, width: expect.any(Number) });
    expect(images.every((i) => i.width > 0)).toBe(true);
    // The hostile product name is text inside the message too (the templater escapes it).
    expect(await frame!.locator('body').textContent()).toContain(HOSTILE_PRODUCT);
    await page.getByRole('link', { name: /^digest-exec-weekly-/ }).click();
    await page.waitForLoadState('load');
    const report = page.frames().find((f) => f.url().endsWith('/view'));
    const charts = await report!.$$eval('img', (imgs) => imgs.map((i) => (i as unknown as PageImage).naturalWidth));
    expect(charts.length).toBeGreaterThan(5);
    expect(charts.every((w) => w > 0)).toBe(true);
    await page.close();
  }, 60_000);

  it('answers 200 to every link it shows', async () => {
    const page = await openPage(800);
    const seen = new Set<string>();
    const queue = ['/', '/outbox', '/archive', '/ledger', '/licenses'].map((p) => new URL(p, consoleUrl).href);
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      // Pages are followed further; the messages' own HTML and raw files are not the console's pages.
      if (!res.headers.get('content-type')?.startsWith('text/html') || /\/(view|raw)$/.test(new URL(url).pathname))
        continue;
      await page.goto(url);
      for (const link of await linksOn(page)) if (link.startsWith(consoleUrl)) queue.push(link.split('#')[0]!);
    }
    expect(seen.size).toBeGreaterThan(12);
    await page.close();
  }, 120_000);

  it('keeps hostile text as text: a digest title, a license key; no script runs', async () => {
    const page = await openPage(800);
    await page.goto(consoleUrl + 'outbox');
    if (weekOver) expect(await page.locator('table').textContent()).toContain(HOSTILE_TITLE);
    await page.goto(consoleUrl + 'licenses');
    expect(await page.locator('main').textContent()).toContain(HOSTILE_KEY_TEXT);
    for (const path of ['', 'outbox', 'licenses', 'ledger']) {
      await page.goto(consoleUrl + path);
      // The console's own pages hold no image and no script; only the sandboxed message frames have images.
      expect(await page.locator('main img, script').count(), path).toBe(0);
    }
    expect(dialogs).toEqual([]);
    await page.close();
  }, 60_000);

  it('says when the manifest chain is broken and when a run holds the work directory', async () => {
    const copy = join(tmp, 'tampered');
    await cp(workDir, copy, { recursive: true });
    // A foreign object in the manifests folder, named with markup, as s3rver stores it.
    const manifests = join(copy, 's3', 'pulse-archive', 'pulse', 'manifests');
    const foreign = join(manifests, '<img src=x onerror=alert(2)>.json');
    await writeFile(`${foreign}._S3rver_object`, '{}');
    await writeFile(`${foreign}._S3rver_metadata.json`, JSON.stringify({ 'content-type': 'application/json' }));
    await writeFile(join(copy, 'peers.lock'), String(process.pid));
    const other = await startConsole({ workDir: copy, port: 0 });
    try {
      const page = await openPage(375);
      await page.goto(other.url + 'archive');
      const main = await page.locator('main').textContent();
      expect(main).toContain('Manifest chain broken');
      expect(main).toContain('pulse/manifests/<img src=x onerror=alert(2)>.json: not a manifest name');
      expect(main).toContain(`A run holds this work directory right now (process ${process.pid})`);
      await page.screenshot({ path: join(SHOTS, 'archive-broken-chain-375.png'), fullPage: false });
      expect(dialogs).toEqual([]);
      await page.close();
    } finally {
      await other.close();
    }
  });

  it('gives a missing work directory a clear page, not an error', async () => {
    const missing = await startConsole({ workDir: join(tmp, 'never-run'), port: 0 });
    try {
      for (const path of ['', 'outbox', 'archive', 'ledger', 'licenses']) {
        const res = await fetch(missing.url + path);
        expect(res.status, path).toBe(200);
        expect(await res.text()).toContain('No local run yet: run <code>npm start</code>');
      }
      const page = await openPage(375);
      await page.goto(missing.url);
      await page.screenshot({ path: join(SHOTS, 'no-run-375.png') });
      await page.close();
      expect((await fetch(`${missing.url}outbox/messages/x`)).status).toBe(404);
    } finally {
      await missing.close();
    }
  });

  it('serves loopback only: a non-loopback --host is refused, a foreign Host header is answered 421', async () => {
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
    for (const host of ['0.0.0.0', '192.168.1.10', '::', 'example.com']) {
      await expect(consoleCommand(['--host', host, '--work-dir', workDir], io)).rejects.toThrow(
        `--host ${JSON.stringify(host)} is not a loopback address`,
      );
    }
    const status = await new Promise<number>((done, fail) => {
      const u = new URL(consoleUrl);
      request({ host: u.hostname, port: u.port, path: '/', headers: { Host: 'attacker.example' } }, (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      })
        .on('error', fail)
        .end();
    });
    expect(status).toBe(421);
    expect((await fetch(consoleUrl, { method: 'POST' })).status).toBe(405);
  });

  it('`pulse console` prints its address and serves until stopped', async () => {
    let stdout = '';
    const io: CliIo = { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true }, env: {} };
    let stop!: () => void;
    const until = new Promise<void>((r) => {
      stop = r;
    });
    const done = consoleCommand(['--work-dir', workDir, '--port', '0'], io, { until });
    for (let i = 0; i < 100 && !stdout.includes('console: '); i++) await new Promise((r) => setTimeout(r, 20));
    const url = /console: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)?.[1];
    expect(url).toBeDefined();
    expect((await fetch(url!)).status).toBe(200);
    stop();
    expect(await done).toBe(0);
  });

  it('never writes the work directory: every file is as the run left it', async () => {
    expect(await hashes(workDir)).toEqual(before);
  });
});
