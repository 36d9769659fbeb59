/**
 * Bundle the AWS SDK or leave it to the runtime? (`node bench/sdk-bundling.ts [function…]`; readable lines on stderr,
 * one JSON line last.) Each function's handler is bundled with the Lambda's build options (bench/lambda-bundle.ts)
 * twice: as deployed (`@aws-sdk/*` external, resolved from node_modules as the Lambda resolves the runtime's copy)
 * and with the SDK inside. Per variant: the minified JS size, the zipped asset (index.mjs alone, as `zip -9`
 * stores it; the source map is left out, as it is not loaded), and the module init time: RUNS fresh `node`
 * processes with the function's NODE_OPTIONS each import the bundle and time it until `handler` is a function
 * (wall and CPU; median). docs/aws.md "AWS SDK: bundled or the runtime's" holds the figures and the decision.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { LAMBDA_BUILD_OPTIONS, lambdaNodeOptions } from './lambda-bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside node_modules, so the external variant finds @aws-sdk/* there.
const OUT = join(ROOT, 'node_modules', '.cache', 'pulse-sdk-bundling');
const RUNS = 11;
const functions = process.argv.slice(2).length ? process.argv.slice(2) : ['archive-copy', 'digest'];
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const PROBE = `
const t0 = performance.now(); const c0 = process.cpuUsage();
const m = await import(process.argv[1]);
if (typeof m.handler !== 'function') throw new Error('no handler');
const c = process.cpuUsage(c0);
console.log(JSON.stringify({ wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }));`;

async function variant(fn: string, sdk: 'external' | 'bundled') {
  const dir = join(OUT, `${fn}-${sdk}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'index.mjs');
  await build({
    ...LAMBDA_BUILD_OPTIONS,
    ...(sdk === 'bundled' ? { external: [] } : {}),
    entryPoints: [join(ROOT, 'functions', fn, 'handler.ts')],
    outfile,
    logLevel: 'error',
  });
  execFileSync('zip', ['-q', '-9', '-j', join(dir, 'asset.zip'), outfile]);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const out = execFileSync(
      process.execPath,
      [...lambdaNodeOptions(512), '--input-type=module', '-e', PROBE, outfile],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    const r = JSON.parse(out) as { wallMs: number; cpuMs: number };
    wall.push(r.wallMs);
    cpu.push(r.cpuMs);
  }
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    fn,
    sdk,
    jsKb: kb(statSync(outfile).size),
    zipKb: kb(statSync(join(dir, 'asset.zip')).size),
    initWallMs: round(median(wall)),
    initCpuMs: round(median(cpu)),
    wallRuns: wall.map(round),
  };
}

const results = [];
for (const fn of functions)
  for (const sdk of ['external', 'bundled'] as const) {
    const r = await variant(fn, sdk);
    results.push(r);
    process.stderr.write(
      `${fn} (SDK ${sdk}): ${r.jsKb} KB JS, ${r.zipKb} KB zipped, init ${r.initWallMs} ms wall / ${r.initCpuMs} ms CPU (median of ${RUNS})\n`,
    );
  }
console.log(JSON.stringify({ runs: RUNS, node: process.version, results }));
