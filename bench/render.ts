/**
 * The renderer's targets (`node bench/render.ts`; prints readable lines, then one JSON line last):
 * - render from the compiled template: median ms per email (HTML + text) for the sample three-section digest,
 *   target ≤ 5 ms;
 * - against compiling the MJML at run time for every email (mjml2html, then the same fill), target ≥ 20× faster.
 */
import { join } from 'node:path';
import { compileMjmlFile, TEMPLATES_DIR } from '../scripts/build-templates.ts';
import { renderDigestEmail } from '../src/digest/render/digest-email.ts';
import { sampleView } from '../test/digest/sample-views.ts';

const COMPILED_RUNS = 2000;
const WARM_UP = 200;
const MJML_RUNS = 15;
const TARGET_MS = 5;
const TARGET_RATIO = 20;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const log = (s: string) => process.stdout.write(`${s}\n`);

const source = join(TEMPLATES_DIR, 'digest.mjml');
const view = sampleView({ banner: 'Data incomplete: exception lines missing' });
const compiledHtml = await compileMjmlFile(source);

function time(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

for (let i = 0; i < WARM_UP; i++) renderDigestEmail(view, compiledHtml);
const compiled = Array.from({ length: COMPILED_RUNS }, () => time(() => renderDigestEmail(view, compiledHtml)));

// Run-time MJML: what a renderer without the build step would do for every email.
const atRunTime: number[] = [];
for (let i = 0; i < MJML_RUNS + 2; i++) {
  const start = performance.now();
  const html = await compileMjmlFile(source);
  renderDigestEmail(view, html);
  if (i >= 2) atRunTime.push(performance.now() - start); // the first two warm up mjml's modules
}

const { html, text } = renderDigestEmail(view, compiledHtml);
const compiledMs = median(compiled);
const mjmlMs = median(atRunTime);
const ratio = mjmlMs / compiledMs;
log(`sample digest: ${view.products.length} sections, ${html.length} bytes HTML, ${text.length} bytes text`);
log(`compiled template: ${round3(compiledMs)} ms per email (median of ${COMPILED_RUNS}; target ≤ ${TARGET_MS} ms)`);
log(`MJML at run time:  ${round3(mjmlMs)} ms per email (median of ${MJML_RUNS})`);
log(`compiled is ${Math.round(ratio)}× faster (target ≥ ${TARGET_RATIO}×)`);
log(
  JSON.stringify({
    compiledMs: round3(compiledMs),
    mjmlAtRunTimeMs: round3(mjmlMs),
    ratio: Math.round(ratio * 10) / 10,
    htmlBytes: html.length,
    targetMs: TARGET_MS,
    targetRatio: TARGET_RATIO,
  }),
);
