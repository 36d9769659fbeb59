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
import { SAMPLE_SPECS } from '../test/charts/sample-specs.ts';

const RUNS = 50;
const WARM_UP = 10;
const INIT_PROCESSES = 7;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const round2 = (x: number) => Math.round(x * 100) / 100;

if (process.argv.includes('--init')) {
  let t = performance.now();
  const charts = await import('../src/charts/index.ts');
  const importMs = performance.now() - t;
  t = performance.now();
  await charts.initChartRenderer();
  const initMs = performance.now() - t;
  t = performance.now();
  await charts.renderChart(SAMPLE_SPECS.bars);
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
  const SPECS: Record<string, ChartSpec> = SAMPLE_SPECS;
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
