/**
 * upng-js with Node's zlib in place of pako: upng deflates (each filter candidate) and inflates through two
 * replaceable functions, so the chart PNGs are compressed natively, and the Lambda bundles leave pako out (the
 * `pako` alias to no-pako.cjs in lib/constructs/pulse-function.ts and bench/lambda-bundle.ts: 45 KB of the digest
 * function's 600 KB of JS). Every caller gets the same bytes, in the CLI, the tests and Lambda.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import UPNG from 'upng-js';

interface UpngInternals {
  encode: {
    _filterLine(data: Uint8Array, img: Uint8Array, y: number, bpl: number, bpp: number, type: number): void;
    _filterZero(img: Uint8Array, h: number, bpp: number, bpl: number, data: Uint8Array): Uint8Array;
  };
  decode: { _inflate(data: Uint8Array): Uint8Array };
}

const internals = UPNG as unknown as UpngInternals;

/**
 * upng's own choice, with zlib at the default level, as pako had it: every row filter tried (the costly three skipped
 * on big images), the smallest kept. Level 9 makes the PNGs 12–19 % smaller but the renders 25–35 % slower.
 */
internals.encode._filterZero = (img, h, bpp, bpl, data) => {
  let best: Uint8Array | undefined;
  for (let type = 0; type < 5; type++) {
    if (h * bpl > 500_000 && type >= 2) continue;
    for (let y = 0; y < h; y++) internals.encode._filterLine(data, img, y, bpl, bpp, type);
    const deflated = deflateSync(data, { level: 6 });
    if (best === undefined || deflated.length < best.length) best = deflated;
    if (bpp === 1) break;
  }
  return best!;
};
internals.decode._inflate = (data) => inflateSync(data);

export default UPNG;
