/**
 * Where the renderer's files come from, and its once-per-process initialisation, each in a fresh Node process:
 * resvg's initWasm may run once per process, so only a new process shows that many concurrent first renders share
 * one initialisation, and that the Lambda layout (PULSE_CHART_ASSETS_DIR) works or fails with a clear error.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { chartAssetPath, readChartAsset } from '../../src/charts/assets.ts';
import { CHART_ASSET_FILES, CHART_ASSETS_DIR_ENV, ChartAssetMissingError } from '../../src/charts/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INDEX = new URL('../../src/charts/index.ts', import.meta.url).href;
const run = promisify(execFile);
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** Runs `code` (an ES module body with `charts` imported) in a fresh Node process; returns its last JSON line. */
async function inFreshProcess(code: string, env: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const module = `import * as charts from ${JSON.stringify(INDEX)};\n${code}`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', module], {
    env: { ...process.env, ...env },
    cwd: ROOT,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

function assetsDir(files: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-chart-assets-'));
  temporary.push(dir);
  for (const f of files) copyFileSync(join(ROOT, CHART_ASSET_FILES[f as keyof typeof CHART_ASSET_FILES]), join(dir, f));
  return dir;
}

const RENDER_MANY = `
const spec = { kind: 'bars', title: 'Fresh', categories: ['a', 'b', 'c'], values: [1, 2, 3] };
const charts_ = await Promise.all([charts.initChartRenderer(), ...Array.from({ length: 16 }, () => charts.renderChart(spec)), charts.initChartRenderer()]);
const pngs = charts_.filter(Boolean).map((c) => Buffer.from(c.png).toString('base64'));
console.log(JSON.stringify({ renders: pngs.length, distinct: new Set(pngs).size, blank: charts.isBlank(charts_[1].png) }));
`;

describe('chart assets', () => {
  it('lists every file the bundle must ship, each present in the project', () => {
    expect(Object.keys(CHART_ASSET_FILES).sort()).toEqual([
      'DejaVuSansCondensed-Bold.ttf',
      'DejaVuSansCondensed.ttf',
      'resvg.wasm',
    ]);
    for (const source of Object.values(CHART_ASSET_FILES)) expect(existsSync(join(ROOT, source)), source).toBe(true);
  });

  it('come from node_modules by default and from PULSE_CHART_ASSETS_DIR when it is set', () => {
    const saved = process.env[CHART_ASSETS_DIR_ENV];
    try {
      delete process.env[CHART_ASSETS_DIR_ENV];
      expect(chartAssetPath('resvg.wasm')).toBe(join(ROOT, CHART_ASSET_FILES['resvg.wasm']));
      process.env[CHART_ASSETS_DIR_ENV] = '/var/task/chart-assets';
      expect(chartAssetPath('DejaVuSansCondensed.ttf')).toBe('/var/task/chart-assets/DejaVuSansCondensed.ttf');
      const error = (() => {
        try {
          readChartAsset('DejaVuSansCondensed-Bold.ttf');
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ChartAssetMissingError);
      expect((error as ChartAssetMissingError).asset).toBe('DejaVuSansCondensed-Bold.ttf');
      expect((error as Error).message).toMatch(
        /chart asset DejaVuSansCondensed-Bold\.ttf is missing \(\/var\/task\/chart-assets\/DejaVuSansCondensed-Bold\.ttf\): PULSE_CHART_ASSETS_DIR=\/var\/task\/chart-assets must hold every file of CHART_ASSET_FILES/,
      );
    } finally {
      if (saved === undefined) delete process.env[CHART_ASSETS_DIR_ENV];
      else process.env[CHART_ASSETS_DIR_ENV] = saved;
    }
  });
});

describe('renderer initialisation, in a fresh process', () => {
  it('is shared by many concurrent first renders and repeated init calls', async () => {
    const result = await inFreshProcess(RENDER_MANY);
    expect(result).toEqual({ renders: 16, distinct: 1, blank: false });
  });

  it('reads the assets from PULSE_CHART_ASSETS_DIR, as in the Lambda bundle', async () => {
    const dir = assetsDir(Object.keys(CHART_ASSET_FILES));
    const result = await inFreshProcess(RENDER_MANY, { [CHART_ASSETS_DIR_ENV]: dir });
    expect(result).toEqual({ renders: 16, distinct: 1, blank: false });
  });

  it('fails with ChartAssetMissingError naming the missing file, and can retry once it is there', async () => {
    const dir = assetsDir(['DejaVuSansCondensed.ttf', 'DejaVuSansCondensed-Bold.ttf']);
    const result = await inFreshProcess(
      `
const errors = [];
for (const attempt of [1, 2]) {
  try { await charts.initChartRenderer(); } catch (e) { errors.push({ name: e.name, asset: e.asset, message: e.message }); }
}
const { copyFileSync } = await import('node:fs');
copyFileSync(${JSON.stringify(join(ROOT, CHART_ASSET_FILES['resvg.wasm']))}, ${JSON.stringify(join(dir, 'resvg.wasm'))});
const chart = await charts.renderChart({ kind: 'hbars', title: 'Retry', categories: ['a'], values: [1] });
console.log(JSON.stringify({ errors, rendered: chart.png.length > 0 }));
`,
      { [CHART_ASSETS_DIR_ENV]: dir },
    );
    const errors = result.errors as { name: string; asset: string; message: string }[];
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ name: 'ChartAssetMissingError', asset: 'resvg.wasm' });
    expect(errors[0]!.message).toContain(join(dir, 'resvg.wasm'));
    expect(result.rendered).toBe(true);
  });
});
