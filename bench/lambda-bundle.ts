/**
 * How Pulse's Lambdas are bundled and started (lib/constructs/pulse-function.ts): the local esbuild, ESM for Node 24,
 * minified, an external source map, the AWS SDK left to the runtime, the same `require` banner; and the Node options
 * every function runs with (its NODE_OPTIONS). The benches that measure a bundle build and run it with these.
 */
import type { BuildOptions } from 'esbuild';

export const LAMBDA_BUILD_OPTIONS = {
  bundle: true,
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
