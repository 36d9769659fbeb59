/**
 * Chart rendering cost (`node bench/charts.ts`; prints one JSON line last):
 * - init: in each of INIT_PROCESSES fresh processes (this script with `--init`), the import of src/charts/index.ts
 *   (d3, resvg's JS glue, upng-js) and then `initChartRenderer()` (the wasm module compiled and instantiated, both
 *   fonts read and parsed), and the first render after it; medians over the processes.
 * - per kind: the digest's typical chart at its default size (552 px wide, PNG at 2×) rendered RUNS times after
 *   WARM_UP warm-ups; the time is `renderChart` end to end (validation, SVG layout, rasterising, PNG encoding),
 *   with the SVG layout's share (`chartSvg`) timed on its own.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const RUNS = 50;
const WARM_UP = 10;
const INIT_PROCESSES = 7;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const round2 = (x: number) => Math.round(x * 100) / 100;

const WEEKS = [
  '2026-W40',
  '2026-W41',
  '2026-W42',
  '2026-W43',
  '2026-W44',
  '2026-W45',
  '2026-W46',
  '2026-W47',
  '2026-W48',
];

if (process.argv.includes('--init')) {
  let t = performance.now();
  const charts = await import('../src/charts/index.ts');
  const importMs = performance.now() - t;
  t = performance.now();
  await charts.initChartRenderer();
  const initMs = performance.now() - t;
  t = performance.now();
  await charts.renderChart({ kind: 'bars', title: 'First', categories: WEEKS, values: WEEKS.map((_, i) => i * 100) });
  const firstRenderMs = performance.now() - t;
  console.log(JSON.stringify({ importMs, initMs, firstRenderMs }));
} else {
  const self = fileURLToPath(import.meta.url);
  const inits = Array.from(
    { length: INIT_PROCESSES },
    () =>
      JSON.parse(execFileSync(process.execPath, [self, '--init'], { encoding: 'utf8' }).trim().split('\n').at(-1)!) as {
        importMs: number;
        initMs: number;
        firstRenderMs: number;
      },
  );
  const median = (f: (x: (typeof inits)[number]) => number) => round2(quantile(inits.map(f), 0.5));
  const init = {
    processes: INIT_PROCESSES,
    importMs: median((x) => x.importMs),
    initMs: median((x) => x.initMs),
    totalMs: median((x) => x.importMs + x.initMs),
    firstRenderMs: median((x) => x.firstRenderMs),
  };

  const { chartSvg, initChartRenderer, renderChart } = await import('../src/charts/index.ts');
  type ChartSpec = Parameters<typeof renderChart>[0];
  /** The digest's charts: nine weeks, a week-by-week pair of series, a top-10 list. */
  const SPECS: Record<string, ChartSpec> = {
    bars: {
      kind: 'bars',
      title: 'Active clients per week',
      categories: WEEKS,
      values: [3120, 3340, 3280, 3410, 3390, 3150, 3460, 3500, 3530],
      highlightLast: true,
    },
    lines: {
      kind: 'lines',
      title: 'New and lost clients per week',
      categories: WEEKS,
      series: [
        { name: 'New', values: [900, 1200, 800, 1300, 1000, 950, 1400, 1500, 1210], area: true },
        { name: 'Lost', values: [700, 650, 900, 1000, 1100, 950, 800, 1300, 1200] },
      ],
    },
    hbars: {
      kind: 'hbars',
      title: 'Active clients by country',
      categories: [
        'United States',
        'Germany',
        'United Kingdom',
        'Israel',
        'Egypt',
        'France',
        'Japan',
        'Brazil',
        'India',
        'Canada',
      ],
      values: [5400, 3100, 1200, 800, 420, 310, 200, 120, 90, 40],
      valueLabels: [
        '5,400 (44.1%)',
        '3,100 (25.3%)',
        '1,200 (9.8%)',
        '800 (6.5%)',
        '420 (3.4%)',
        '310 (2.5%)',
        '200 (1.6%)',
        '120 (1.0%)',
        '90 (0.7%)',
        '40 (0.3%)',
      ],
    },
  };
  await initChartRenderer();

  async function timeEach(f: () => unknown): Promise<number[]> {
    for (let i = 0; i < WARM_UP; i++) await f();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      await f();
      times.push(performance.now() - t);
    }
    return times;
  }

  const kinds = [];
  for (const [name, spec] of Object.entries(SPECS)) {
    const chart = await renderChart(spec);
    const render = await timeEach(() => renderChart(spec));
    const svg = await timeEach(() => chartSvg(spec));
    kinds.push({
      name,
      css: `${chart.width}×${chart.height}`,
      pngBytes: chart.png.length,
      renderP50Ms: round2(quantile(render, 0.5)),
      renderP95Ms: round2(quantile(render, 0.95)),
      svgP50Ms: round2(quantile(svg, 0.5)),
    });
  }
  process.stderr.write(
    `init (median of ${init.processes} processes): import ${init.importMs} ms + initChartRenderer ${init.initMs} ms = ${init.totalMs} ms; first render ${init.firstRenderMs} ms\n`,
  );
  for (const k of kinds) {
    process.stderr.write(
      `${k.name.padEnd(6)} ${k.css.padEnd(8)} p50 ${k.renderP50Ms} ms (SVG ${k.svgP50Ms} ms), p95 ${k.renderP95Ms} ms, ${k.pngBytes} B\n`,
    );
  }
  console.log(JSON.stringify({ runs: RUNS, warmUp: WARM_UP, init, kinds }));
}
