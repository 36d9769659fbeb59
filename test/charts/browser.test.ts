/**
 * The charts in a real browser: Chromium loads each PNG over HTTP as an email client's renderer would, reports its
 * natural size (the 2× device size) and, drawn onto a canvas, the very pixels our decoder reads.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChartSpec, decodePng, type RenderedChart, renderChart } from '../../src/charts/index.ts';
import { launchChromium } from '../helpers/email-browser.ts';

/** The page globals the evaluated code uses, typed just enough (the project compiles without the DOM lib). */
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
  getBoundingClientRect(): { width: number; height: number };
}
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(image: PageImage, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray<ArrayBuffer> };
  } | null;
}
declare const document: { getElementById(id: string): PageImage; createElement(tag: 'canvas'): PageCanvas };

const WEEKS = ['W40', 'W41', 'W42', 'W43', 'W44', 'W45', 'W46', 'W47', 'W48'];
const SPECS: Record<string, ChartSpec> = {
  bars: {
    kind: 'bars',
    title: 'Active clients per week',
    categories: WEEKS,
    values: [120, 340, 280, 410, 390, 150, 460, 500, 530],
    highlightLast: true,
  },
  lines: {
    kind: 'lines',
    title: 'New and lost clients per week',
    categories: WEEKS,
    series: [
      { name: 'New', values: [4100, 4150, 4120, 4210, 4300, 4280, 4350, 4400, 4210], area: true },
      { name: 'Lost', values: [900, 1300, 1100, 1000, 1200, 1250, 1150, 1300, 1280] },
    ],
  },
  hbars: {
    kind: 'hbars',
    title: 'Active clients by country',
    categories: ['Germany', 'ישראל', 'مصر', 'France', 'Japan'],
    values: [5400, 3100, 1200, 800, 120],
  },
  histogram: {
    kind: 'bars',
    title: 'Active clients by active days',
    categories: ['1', '2', '3', '4', '5', '6', '7'],
    values: [3, 9, 14, 20, 17, 11, 6],
  },
  retention: {
    kind: 'lines',
    title: 'Still engaged',
    format: 'percent',
    categories: ['0', '1', '2', '3', '4'],
    series: [{ name: 'Engaged', values: [100, 71.5, 60.25, 55, 52.5], area: true }],
  },
  empty: { kind: 'bars', title: 'Nothing yet', categories: [], values: [] },
};
let charts: Record<string, RenderedChart>;

let server: Server;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  charts = Object.fromEntries(
    await Promise.all(Object.entries(SPECS).map(async ([name, spec]) => [name, await renderChart(spec)] as const)),
  );
  server = createServer((req, res) => {
    const name = /^\/(\w+)\.png$/.exec(req.url ?? '')?.[1];
    const chart = name ? charts[name] : undefined;
    if (chart) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': chart.png.length }).end(chart.png);
    } else if (req.url === '/') {
      const imgs = Object.entries(charts).map(
        ([n, c]) => `<img id="${n}" src="/${n}.png" width="${c.width}" height="${c.height}" alt="${n}">`,
      );
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>${imgs.join('')}`);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('charts in Chromium', () => {
  it('load at their 2× natural size and show exactly the pixels we encoded', async () => {
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/`, { waitUntil: 'load' });
    for (const [name, chart] of Object.entries(charts)) {
      const seen = await page.evaluate(async (id) => {
        const img = document.getElementById(id);
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const ctx = canvas.getContext('2d');
        ctx?.drawImage(img, 0, 0);
        const pixels = ctx?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray(0);
        const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', pixels));
        const box = img.getBoundingClientRect();
        return {
          complete: img.complete,
          naturalWidth: img.naturalWidth,
          naturalHeight: img.naturalHeight,
          cssWidth: box.width,
          cssHeight: box.height,
          pixelBytes: pixels.length,
          pixelSha256: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join(''),
        };
      }, name);
      expect(seen.complete, name).toBe(true);
      expect([seen.naturalWidth, seen.naturalHeight], name).toEqual([chart.width * 2, chart.height * 2]);
      expect([seen.cssWidth, seen.cssHeight], name).toEqual([chart.width, chart.height]);
      const ours = decodePng(chart.png).data;
      expect(seen.pixelBytes, name).toBe(ours.length);
      expect(seen.pixelSha256, name).toBe(createHash('sha256').update(ours).digest('hex'));
    }
    await page.close();
  });
});
