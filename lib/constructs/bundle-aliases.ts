/**
 * Modules the Lambda bundles replace (esbuild `alias`): pako by an empty stand-in, because src/charts/upng.ts hands
 * upng-js Node's zlib and nothing calls pako (45 KB of the digest function's JS).
 */
import { fileURLToPath } from 'node:url';

export const NO_PAKO = fileURLToPath(new URL('../../src/charts/no-pako.cjs', import.meta.url));
