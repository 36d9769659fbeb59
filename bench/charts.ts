/**
 * Chart rendering speed, in one fresh process (`node bench/charts.ts`; prints one JSON line last): for each kind,
 * the digest's typical chart at its default size (560×160 CSS px, PNG at 2×) rendered 200 times after 20 warm-ups;
 * the time is `renderChart` end to end (validation, rasterising, PNG filtering and deflate). Also the PNG size and
 * the encoder's share, timed on the already rendered pixels.
 */
import { type ChartSpec, decodePng, encodePng, renderChart } from '../src/charts/index.ts';

const RUNS = 200;
const WARM_UP = 20;
/** Nine weeks, as the digest shows them. */
const SPECS: Record<string, ChartSpec> = {
  bars: { kind: 'bars', values: [3120, 3340, 3280, 3410, 3390, 3150, 3460, 3500, 3530], highlightLast: true },
  line: {
    kind: 'line',
    series: [
      { values: [4100, 4150, 4120, 4210, 4300, 4280, 4350, 4400, 4210], area: true },
      { values: [900, 1200, 800, 1300, 1000, 950, 1400, 1500, 1200] },
    ],
  },
  hbars: { kind: 'hbars', values: [5400, 3100, 1200, 800, 420, 310, 200, 120, 90, 40] },
  histogram: { kind: 'histogram', values: [3, 9, 14, 20, 17, 11, 6, 2, 1, 0, 1, 4, 2, 1, 0, 0, 1, 3, 2, 1] },
  sparkline: { kind: 'sparkline', values: [5, 7, 6, 9, 12, 10, 14, 13, 15], area: true },
};

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const round2 = (x: number) => Math.round(x * 100) / 100;

function timeEach(f: () => unknown): number[] {
  for (let i = 0; i < WARM_UP; i++) f();
  return Array.from({ length: RUNS }, () => {
    const t = performance.now();
    f();
    return performance.now() - t;
  });
}

const kinds = Object.entries(SPECS).map(([name, spec]) => {
  const chart = renderChart(spec);
  const render = timeEach(() => renderChart(spec));
  const pixels = decodePng(chart.png);
  const encode = timeEach(() => encodePng(pixels));
  return {
    name,
    css: `${chart.width}×${chart.height}`,
    pngBytes: chart.png.length,
    renderP50Ms: round2(quantile(render, 0.5)),
    renderP95Ms: round2(quantile(render, 0.95)),
    encodeP50Ms: round2(quantile(encode, 0.5)),
  };
});
for (const k of kinds) {
  process.stderr.write(
    `${k.name.padEnd(10)} ${k.css.padEnd(8)} p50 ${k.renderP50Ms} ms (encode ${k.encodeP50Ms} ms), p95 ${k.renderP95Ms} ms, ${k.pngBytes} B\n`,
  );
}
console.log(JSON.stringify({ runs: RUNS, warmUp: WARM_UP, kinds }));
