/**
 * A Lambda's bundle size (`node bench/bundle.ts [functions/<fn>/handler.ts]`, the digest's by default; prints
 * readable lines on stderr, then one JSON line last): the handler bundled in memory by the local esbuild with the options the CDK construct
 * gives it (bench/lambda-bundle.ts: ESM for Node 24, minified, external source map, the AWS SDK left to the
 * runtime, the same `require` banner). Target ≤ 600 KB (1 KB = 1024 bytes) for the minified JS; the source map is
 * a separate file and not counted. Also lists any mjml module that reached the bundle (bench/run.ts fails that row:
 * the email templates must be compiled at build time), and the five inputs that add the most bytes to the output.
 */
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version } from 'esbuild';
import { LAMBDA_BUILD_OPTIONS } from './lambda-bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(ROOT, process.argv[2] ?? 'functions/digest/handler.ts');
const TARGET_KB = 600;
const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;

const result = await build({
  ...LAMBDA_BUILD_OPTIONS,
  entryPoints: [ENTRY],
  // Never written: `write: false` keeps the output in memory; esbuild still needs a path to name it.
  outfile: join(tmpdir(), 'pulse-bundle-bench', 'index.mjs'),
  write: false,
  metafile: true,
  logLevel: 'error',
});

const js = result.outputFiles.find((f) => f.path.endsWith('.mjs'))!;
const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined)!;
const inputs = Object.keys(result.metafile.inputs);
/** Any mjml package (mjml, mjml-core, mjml-section, …) wherever it sits in node_modules. */
const mjmlInputs = inputs.filter((path) => /(^|\/)node_modules\/mjml[^/]*\//.test(path));
const largest = Object.entries(output.inputs)
  .sort(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput)
  .slice(0, 5)
  .map(([path, { bytesInOutput }]) => ({ path, kb: kb(bytesInOutput) }));
/** Bytes in the output per npm package (first-party files under "(project)"), for the report. */
const byPackage = new Map<string, number>();
for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? '(project)';
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
}
const packages = [...byPackage.entries()]
  .sort(([, a], [, b]) => b - a)
  .slice(0, 5)
  .map(([name, bytes]) => ({ name, kb: kb(bytes) }));

const sizeKb = kb(js.contents.length);
process.stderr.write(
  `${relative(ROOT, ENTRY)}: ${sizeKb} KB minified (target ≤ ${TARGET_KB} KB), ${inputs.length} inputs, ` +
    `mjml modules: ${mjmlInputs.length}\nlargest inputs: ${largest.map((l) => `${l.path} ${l.kb} KB`).join(', ')}\n`,
);
console.log(
  JSON.stringify({
    entry: relative(ROOT, ENTRY),
    esbuild: version,
    bytes: js.contents.length,
    sizeKb,
    sourceMapKb: map ? kb(map.contents.length) : 0,
    inputs: inputs.length,
    mjmlInputs,
    largestInputs: largest,
    largestPackages: packages,
    targetKb: TARGET_KB,
  }),
);
