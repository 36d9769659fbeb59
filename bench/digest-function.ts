/**
 * The digest function as Lambda gets it (`node bench/digest-function.ts`; readable lines on stderr, one JSON line
 * last): the handler bundled like the construct bundles it (bench/lambda-bundle.ts), with what the stack ships
 * beside it — the compiled templates and the chart renderer's wasm and fonts (src/charts/assets.ts) — zipped as the
 * CDK asset is (deflate). Then module init plus renderer init, each in a fresh process started with the function's
 * NODE_OPTIONS: the time from `import()` of the bundle until the chart renderer (started by the module) is ready.
 * Targets (issue 13): JS ≤ 600 KB, the zipped function ≤ 3 MB, module + renderer init ≤ 250 ms.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { CHART_ASSET_FILES } from '../src/charts/assets.ts';
import { bundleLikeLambda, FUNCTION_MEMORY_MB, lambdaNodeOptions } from './lambda-bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Inside node_modules, so the bundle finds the AWS SDK it leaves external, as the Lambda finds the runtime's. */
const DIR = join(ROOT, 'node_modules/.cache/pulse-bench-digest-function');
const INIT_RUNS = 7;
const TARGETS = { jsKb: 600, zipMb: 3, initMs: 250 };
const TEMPLATES = ['digest', 'digest-report', 'failure-notice'];

rmSync(DIR, { recursive: true, force: true });
mkdirSync(join(DIR, 'templates'), { recursive: true });
mkdirSync(join(DIR, 'chart-assets'), { recursive: true });
const jsKb = await bundleLikeLambda(join(ROOT, 'bench/digest-init-entry.ts'), join(DIR, 'index.mjs'));
for (const t of TEMPLATES) copyFileSync(join(ROOT, `templates/compiled/${t}.html`), join(DIR, `templates/${t}.html`));
for (const [name, from] of Object.entries(CHART_ASSET_FILES))
  copyFileSync(join(ROOT, from), join(DIR, 'chart-assets', name));

/** Every file of the asset (the source map too: the construct ships it), as the CDK zips it. */
const files: Record<string, Uint8Array> = {};
const walk = (dir: string) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else files[relative(DIR, path)] = readFileSync(path);
  }
};
walk(DIR);
const unzipped = Object.values(files).reduce((n, f) => n + f.length, 0);
const zipped = zipSync(files, { level: 6 }).length;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const largest = Object.entries(files)
  .sort(([, a], [, b]) => b.length - a.length)
  .slice(0, 4)
  .map(([name, f]) => `${name} ${Math.round(f.length / 1024)} KB`);

const PROBE = `
const t0 = performance.now();
const m = await import(${JSON.stringify(join(DIR, 'index.mjs'))});
const t1 = performance.now();
await m.initChartRenderer();
const t2 = performance.now();
console.log(JSON.stringify({ moduleMs: t1 - t0, totalMs: t2 - t0 }));
`;
const env = {
  ...process.env,
  NODE_OPTIONS: lambdaNodeOptions(FUNCTION_MEMORY_MB.digest).join(' '),
  PULSE_CHART_ASSETS_DIR: join(DIR, 'chart-assets'),
  PULSE_TEMPLATES_DIR: join(DIR, 'templates'),
};
const inits = Array.from({ length: INIT_RUNS }, () => {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], { env, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { moduleMs: number; totalMs: number };
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round1 = (x: number) => Math.round(x * 10) / 10;
const initMs = round1(median(inits.map((i) => i.totalMs)));
const moduleMs = round1(median(inits.map((i) => i.moduleMs)));
rmSync(DIR, { recursive: true, force: true });

process.stderr.write(
  `digest function: JS ${jsKb} KB, zipped ${mb(zipped)} MB (unzipped ${mb(unzipped)} MB; ${largest.join(', ')}), ` +
    `init ${initMs} ms (module ${moduleMs} ms), median of ${INIT_RUNS} processes\n`,
);
console.log(
  JSON.stringify({
    jsKb,
    zipMb: mb(zipped),
    unzippedMb: mb(unzipped),
    largestFiles: largest,
    initMs,
    moduleMs,
    initRuns: inits.map((i) => round1(i.totalMs)),
    targets: TARGETS,
  }),
);
