/**
 * What the bench children print (their last JSON line) and how a figure becomes a row of bench/RESULTS.md. A ratio
 * ≤ 1 always means "met": value / target for an upper bound, target / value for a lower bound (`atLeast`).
 */

export interface Row {
  metric: string;
  value: number;
  unit: string;
  target: number;
  /** A lower bound (≥ target), e.g. a speed-up. */
  atLeast?: boolean;
  /** A condition beside the number that failed (e.g. mjml in the bundle): the row is not met whatever the value. */
  failure?: string;
  detail: string;
}

/** bench/render.ts */
export interface RenderResult {
  compiledMs: number;
  mjmlAtRunTimeMs: number;
  ratio: number;
  htmlBytes: number;
  targetMs: number;
  targetRatio: number;
}

/** bench/charts.ts */
export interface ChartsResult {
  runs: number;
  warmUp: number;
  /** Medians over fresh processes: the import of src/charts/index.ts, then initChartRenderer(), then one render. */
  init: { processes: number; importMs: number; initMs: number; totalMs: number; firstRenderMs: number };
  kinds: {
    name: string;
    css: string;
    pngBytes: number;
    renderP50Ms: number;
    renderP95Ms: number;
    /** The SVG layout's share (chartSvg). */
    svgP50Ms: number;
  }[];
}

/** Targets of issue 4's chart rows. */
export const CHART_RENDER_TARGET_MS = 50;
export const CHART_INIT_TARGET_MS = 150;

export function chartRows(charts: ChartsResult): Row[] {
  return [
    ...charts.kinds.map(
      (k): Row => ({
        metric: `chart render ${k.name} ${k.css} at 2×`,
        value: k.renderP50Ms,
        unit: 'ms',
        target: CHART_RENDER_TARGET_MS,
        detail: `p50 of ${charts.runs} after ${charts.warmUp} warm-ups; p95 ${k.renderP95Ms} ms; SVG layout ${k.svgP50Ms} ms of it; ${(k.pngBytes / 1024).toFixed(1)} KB PNG`,
      }),
    ),
    {
      metric: 'chart renderer init (wasm + fonts)',
      value: charts.init.totalMs,
      unit: 'ms',
      target: CHART_INIT_TARGET_MS,
      detail: `median of ${charts.init.processes} fresh processes: import of src/charts/index.ts ${charts.init.importMs} ms + initChartRenderer() ${charts.init.initMs} ms; the first render after it ${charts.init.firstRenderMs} ms (cold JIT)`,
    },
  ];
}

/** bench/bundle.ts */
export interface BundleResult {
  entry: string;
  esbuild: string;
  bytes: number;
  sizeKb: number;
  sourceMapKb: number;
  inputs: number;
  mjmlInputs: string[];
  largestInputs: { path: string; kb: number }[];
  largestPackages: { name: string; kb: number }[];
  targetKb: number;
}

/** bench/digest.ts */
export interface DigestResult {
  clients: number;
  productEntries: number;
  distinctProducts: number;
  calls: number;
  reportOperations: string[];
  latencyMs: number;
  concurrency: number;
  failedCalls: { concurrent: number; sequential: number };
  sequentialMs: number;
  concurrentMs: number;
  ratio: number;
  rounds: { sequentialMs: number; concurrentMs: number; ratio: number }[];
  byCap: { concurrency: number; concurrentMs: number; ratio: number }[];
  targetRatio: number;
}

/** bench/channels.ts: one channel request rendered from the model, per message and kind. */
export interface ChannelsResult {
  runs: number;
  warmUp: number;
  hugeRuns: number;
  targetMs: number;
  cases: { message: string; kind: string; p50Ms: number; p95Ms: number; bytes: number }[];
  /** 10 KB of text in every field: no job builds it, reported beside the target. */
  huge: { message: string; kind: string; p50Ms: number; p95Ms: number; bytes: number }[];
}

export function channelRows(r: ChannelsResult): Row[] {
  const slowest = r.cases.reduce((a, b) => (b.p50Ms > a.p50Ms ? b : a));
  const byMessage = (cases: ChannelsResult['cases']) =>
    [...new Set(cases.map((c) => c.message))]
      .map(
        (m) =>
          `${m}: ${cases
            .filter((c) => c.message === m)
            .map((c) => `${c.kind} ${c.p50Ms}`)
            .join(', ')} ms`,
      )
      .join('; ');
  return [
    {
      metric: 'channel request from the model (Slack, Teams, signed webhook), slowest',
      value: slowest.p50Ms,
      unit: 'ms',
      target: r.targetMs,
      detail: `p50 of ${r.runs} after ${r.warmUp} warm-ups, slowest ${slowest.kind} for ${slowest.message} (p95 ${slowest.p95Ms} ms); ${byMessage(r.cases)}; 10 KB in every field (p50 of ${r.hugeRuns}, beside the target): ${byMessage(r.huge).replace(/^[^:]*: /, '')}`,
    },
  ];
}

/** bench/usage-alerts.ts */
export interface UsageAlertsResult {
  rules: number;
  products: number;
  calls: number;
  callTarget: number;
  backtestMs: number;
  backtestRuns: number;
  backtestChanges: number;
  backtestTargetMs: number;
}

export function usageAlertRows(r: UsageAlertsResult, bundle: BundleResult): Row[] {
  return [
    {
      metric: `usage alerts: report calls of a run, ${r.rules} rules over ${r.products} products`,
      value: r.calls,
      unit: 'calls',
      target: r.callTarget,
      detail:
        'one dateRangeReport per product (every client count and share), one split by the segment property, one basicTimeline (every event); target: one per product and metric family (exception and engagement rules, not among these 20, cost a file listing plus a download per file, and one usageDistribution per period: docs/usage-alerts.md "Cost")',
    },
    {
      metric: "usage alerts: a year's backtest of 10 rules against the local emulator",
      value: r.backtestMs,
      unit: 'ms',
      target: r.backtestTargetMs,
      detail: `median of ${r.backtestRuns}; ${r.backtestChanges} state changes found over 365 days`,
    },
    {
      metric: "usage-alerts Lambda bundle, minified (the digest's budget)",
      value: bundle.sizeKb,
      unit: 'KB',
      target: bundle.targetKb,
      ...(bundle.mjmlInputs.length > 0 ? { failure: `${bundle.mjmlInputs.length} mjml modules in the bundle` } : {}),
      detail: `${bundle.bytes} B, ${bundle.inputs} inputs; largest packages: ${bundle.largestPackages
        .slice(0, 3)
        .map((p) => `${p.name} ${p.kb} KB`)
        .join(', ')}`,
    },
  ];
}

export const isMet = (r: Row) => r.failure === undefined && (r.atLeast ? r.value >= r.target : r.value <= r.target);

function formatValue(value: number, unit: string): string {
  if (unit === 'ms') return `${value.toFixed(value < 100 ? (value < 10 ? 2 : 1) : 0)} ms`;
  if (unit === '×') return `${value.toFixed(value < 10 ? 2 : 0)} ×`;
  if (unit === 'KB') return `${value.toFixed(1)} KB`;
  return `${value.toFixed(0)} ${unit}`;
}

/** Metric, median, target, ratio, met, detail. */
export function rowCells(r: Row): string[] {
  const ratio = r.atLeast ? r.target / r.value : r.value / r.target;
  return [
    r.metric,
    formatValue(r.value, r.unit),
    `${r.atLeast ? '≥' : '≤'} ${r.target} ${r.unit}`,
    ratio.toFixed(2),
    isMet(r) ? 'yes' : `NO${r.failure ? `: ${r.failure}` : ''}`,
    r.detail,
  ];
}

/** A Markdown table with padded columns (the layout Biome's Markdown formatter keeps); `right` = right-aligned. */
export function markdownTable(header: string[], right: boolean[], body: string[][]): string {
  const widths = header.map((h, c) => Math.max(3, h.length, ...body.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((x, c) => (right[c] ? x.padStart(widths[c]!) : x.padEnd(widths[c]!))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (right[c] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

export const resultsTable = (rows: Row[]) =>
  markdownTable(
    ['Metric', 'Median', 'Target', 'Ratio', 'Met', 'Detail'],
    [false, true, true, true, false, false],
    rows.map(rowCells),
  );

/** The digest section of RESULTS.md: how each figure was measured and how the targets are met. */
export function digestNotes(render: RenderResult, charts: ChartsResult, bundle: BundleResult, d: DigestResult): string {
  const ideal = (cap: number) => (Math.ceil(d.calls / cap) / d.calls).toFixed(2);
  const caps = d.byCap.map((b) => `${b.concurrency} → ${b.ratio.toFixed(2)}`).join(', ');
  const tried = [...d.byCap, { concurrency: d.concurrency, ratio: d.ratio }];
  const meets = tried.filter((b) => b.ratio <= d.targetRatio).map((b) => b.concurrency);
  const from = meets.length > 0 ? `from a cap of ${Math.min(...meets)} on` : 'at none of the caps tried';
  return `## Weekly digest

- **Render** (bench/render.ts): the sample three-product digest (${render.htmlBytes} bytes of HTML) filled into the
  template that \`npm run build:templates\` compiled from templates/digest.mjml, HTML and plain-text part, median of
  2000 after 200 warm-ups; against compiling the MJML for every email and then filling it (median of 15). Met
  because MJML runs only at build time: at run time the templater walks a tree of closures compiled once per
  process (src/core/render/templater.ts), with escaping and URL/CSS context checks decided at compile time.
- **Charts** (bench/charts.ts): each kind as the digest draws it (552 px wide, PNG at 2×), \`renderChart\` end to
  end (validation, SVG layout with d3-scale/d3-shape, resvg-wasm rasterising, upng-js lossless re-encoding), p50 of
  ${charts.runs} after ${charts.warmUp} warm-ups. Most of a render is the re-encoding (upng-js maps the pixels to a palette and
  deflates them with pako), then resvg; the layout is well under a millisecond. Init is measured in fresh processes:
  the module import (${charts.init.importMs} ms) plus \`initChartRenderer()\` (${charts.init.initMs} ms: the 2.4 MB wasm compiled and instantiated,
  both fonts read and parsed), done once per process; the first render after it pays the cold JIT (${charts.init.firstRenderMs} ms).
- **Bundle** (bench/bundle.ts): ${bundle.entry} bundled in memory by esbuild ${bundle.esbuild} with the construct's options
  (lib/constructs/scheduled-job.ts: ESM, node24, minified, \`@aws-sdk/*\` external, the \`require\` banner); the
  minified JS counts (1 KB = 1024 bytes), the ${bundle.sourceMapKb} KB source map is a separate file. The metafile's
  ${bundle.inputs} inputs contain ${bundle.mjmlInputs.length === 0 ? 'no mjml module' : `mjml modules: ${bundle.mjmlInputs.join(', ')}`}. Largest packages in the output:
  ${bundle.largestPackages.map((p) => `${p.name} ${p.kb} KB`).join(', ')}. Templates are compiled at build time (no
  mjml) and the client keeps its cookies in a small origin-scoped jar (src/client/cookie-jar.ts): with tough-cookie and
  its public-suffix list (tldts) the bundle measured 606.5 KB before the channels, 159 KB of it those two. The Slack,
  Teams and webhook channels (src/core/channels/, the poster and the channel secrets) added 22.7 KB of Pulse's own code
  (2026-11-27: 596.6 → 619.9 KB); the largest input Pulse never uses is nodemailer's MIME type table (74.4 KB, Pulse
  always names content types), which only an esbuild plugin could drop, and the CDK construct's CLI bundling takes none.
- **Concurrency** (bench/digest.ts): the emulator (${d.clients} clients) adds ${d.latencyMs} ms to every report operation
  (${d.reportOperations.join(', ')}; not to request-csrf, sign-in or logout). The digest lists the emulator's
  ${d.distinctProducts} product ids repeated to ${d.productEntries} entries, so the plan (\`planDigestCalls\`) has ${d.calls} calls. Concurrent =
  \`collectDigestData\` (the job's fetch step) over one session with the config default of ${d.concurrency} in flight;
  sequential = the same planned calls through \`client.call\` one after another, also over one session. Medians of
  ${d.rounds.length} alternating rounds after a warm-up of each without latency; failed calls: ${d.failedCalls.concurrent} concurrent, ${d.failedCalls.sequential} sequential.
  Each call is ${d.latencyMs} ms of waiting, so the ratio is about ⌈${d.calls} / concurrency⌉ / ${d.calls} (${ideal(d.concurrency)} at ${d.concurrency})
  plus what does not overlap: the emulator computes the reports one after another on its one thread, and sign-in
  and logout are paid once by both. Other caps: ${caps} (the target is met ${from}).
`;
}
