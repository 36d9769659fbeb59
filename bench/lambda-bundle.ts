/**
 * How Pulse's Lambdas are bundled and started (lib/constructs/pulse-function.ts): the local esbuild, ESM for Node 24,
 * minified, an external source map, the AWS SDK left to the runtime, the same `require` banner; and the Node options
 * every function runs with (its NODE_OPTIONS). The benches that measure a bundle build and run it with these.
 */
import { type BuildOptions, build, stop } from 'esbuild';
import { NO_PAKO } from '../lib/constructs/bundle-aliases.ts';

export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
  alias: { pako: NO_PAKO },
  platform: 'node',
  format: 'esm',
  target: 'node24',
  minify: true,
  sourcemap: true,
  external: ['@aws-sdk/*'],
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
} as const satisfies BuildOptions;

export { lambdaNodeOptions } from '../lib/constructs/node-options.ts';
export { FUNCTION_MEMORY_MB } from '../lib/stacks/function-memory.ts';

/**
 * Bundles `entry` (a bench script) like a Lambda into `outfile`, which should lie inside node_modules so the bundle
 * finds the AWS SDK it leaves external, as the Lambda finds the runtime's. Returns the JS size in KiB.
 */
export async function bundleLikeLambda(entry: string, outfile: string): Promise<number> {
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    entryPoints: [entry],
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  await stop();
  const js = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('.mjs'))!;
  return Math.round((js[1].bytes / 1024) * 10) / 10;
}
