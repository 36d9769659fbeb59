/**
 * The emulator serves the interface document (`GET /openapi.json`, its `servers` naming the emulator) and a reference
 * page rendered from it (`GET /docs`) without a session and without anything from outside 127.0.0.1: the page is
 * loaded in Chromium at 800 px with every other host refused, and must show every operation. `pulse emulator` prints
 * both addresses. The screenshot goes to /tmp/contract-shots/.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRoute } from '../../emulator/http/routes.ts';
import type { Emulator } from '../../emulator/index.ts';
import { OPERATIONS } from '../../src/api/operations.ts';
import { launchChromium } from '../helpers/email-browser.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

const SHOTS = '/tmp/contract-shots';
const PULSE = fileURLToPath(new URL('../../bin/pulse.ts', import.meta.url));
const METHODS = ['get', 'post', 'patch', 'put', 'delete'];

interface OpenApi {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
}

let emu: Emulator;
let browser: Browser;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 60 });
  browser = await launchChromium();
  await mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await emu.close();
});

/** The document's operations as [method, path with a product id, summary]. */
function operationsOf(doc: OpenApi) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ method: m.toUpperCase(), path: path.replace('{product_id}', '12345678901'), ...op })),
  );
}

describe('the interface document and its reference page', () => {
  it('serves /openapi.json without Origin or session, naming this emulator, with the 33 operations', async () => {
    const res = await fetch(`${emu.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = (await res.json()) as OpenApi;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: emu.baseUrl, description: 'this emulator' }]);
    const ops = operationsOf(doc);
    // Every documented operation is one the emulator routes, and together they are all 33 of src/api.
    const routed = ops.map((o) => matchRoute(o.method, o.path)?.route.id);
    expect(routed).not.toContain(undefined);
    expect(new Set(routed).size).toBe(33);
    expect([...new Set(routed)].sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
  });

  it('renders /docs in Chromium at 800 px from 127.0.0.1 alone, showing every operation', async () => {
    const page = await browser.newPage({ viewport: { width: 800, height: 1000 } });
    const outside: string[] = [];
    const problems: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'blob:' || url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const res = await page.goto(`${emu.baseUrl}/docs`, { waitUntil: 'networkidle' });
    expect(res?.status()).toBe(200);
    const doc = (await (await fetch(`${emu.baseUrl}/openapi.json`)).json()) as OpenApi;
    const summaries = operationsOf(doc).map((o) => o.summary ?? o.operationId!);
    // At 800 px Redoc folds its menu away; the operations' headings are in the page itself.
    await page.locator('h2', { hasText: summaries[0]! }).first().waitFor({ timeout: 20_000 });
    const text = await page.locator('body').innerText();
    expect(summaries.filter((s) => !text.includes(s))).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/docs-800.png` });
    expect(outside).toEqual([]);
    // Redoc's attribution tries one image from its CDN; the page's policy blocks it (so it never leaves the machine,
    // which page.route confirms above) and Redoc then leaves the image out. Nothing else may fail.
    const attribution = /cdn\.redoc\.ly\/redoc\/logo-mini\.svg' violates the following Content Security Policy/;
    expect(problems.filter((p) => !attribution.test(p))).toEqual([]);
    await page.close();
  }, 60_000);

  it('`pulse emulator` prints the document and page addresses, and both answer', async () => {
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, [PULSE, 'emulator', '--port', '0', '--storage-port', '0', '--clients', '50']);
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
      });
      const line = /interface document (\S+)\s+reference page (\S+)/;
      const deadline = Date.now() + 20_000;
      while (!line.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const [, docUrl, pageUrl] = line.exec(out) ?? [];
      const base = /emulator listening on (\S+)/.exec(out)?.[1];
      expect(docUrl).toBe(`${base}/openapi.json`);
      expect(pageUrl).toBe(`${base}/docs`);
      expect((await fetch(docUrl!)).status).toBe(200);
      expect(await (await fetch(pageUrl!)).text()).toContain('<redoc spec-url="/openapi.json"');
    } finally {
      child?.kill('SIGTERM');
      if (child) await once(child, 'exit');
    }
  }, 30_000);
});
