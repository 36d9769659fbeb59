/**
 * A minimal PNG encoder: 8-bit RGBA, non-interlaced, zlib from node:zlib. Each scanline gets the filter (None, Sub
 * or Up) with the smallest sum of absolute signed bytes, the standard heuristic from the PNG specification; charts
 * are long horizontal runs (Sub) and tall bars (Up), which both compress to almost nothing. The output depends only
 * on the pixels and the zlib build, so the same image always gives the same bytes (no timestamps, no text chunks).
 */
import { crc32, deflateSync } from 'node:zlib';

/** Pixels in row-major RGBA order, 4 bytes per pixel, not premultiplied. */
export interface RasterImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export const PNG_SIGNATURE = Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10);
const BYTES_PER_PIXEL = 4;
/** The largest side we encode: far above any chart, small enough that a bad size fails fast. */
const MAX_SIDE = 16_384;
/** zlib's default: on filtered charts within a few per cent of level 9's size at a third of its time. */
const DEFLATE_LEVEL = 6;

export function encodePng(image: RasterImage): Uint8Array {
  const { width, height, data } = image;
  for (const [name, side] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_SIDE) {
      throw new RangeError(`PNG ${name} must be an integer from 1 to ${MAX_SIDE}, got ${side}`);
    }
  }
  if (data.length !== width * height * BYTES_PER_PIXEL) {
    throw new RangeError(`PNG data holds ${data.length} bytes; ${width}×${height} RGBA needs ${width * height * 4}`);
  }
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type 6 (RGBA), deflate, adaptive filtering, no interlace
  const idat = deflateSync(filterScanlines(image), { level: DEFLATE_LEVEL });
  return concat([PNG_SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))]);
}

/** |signed byte|: the cost of a filtered byte in the minimum-sum heuristic. */
const COST = Uint16Array.from({ length: 256 }, (_, v) => (v < 128 ? v : 256 - v));

/** Every row as one filter-type byte followed by the filtered bytes. */
function filterScanlines({ width, height, data }: RasterImage): Uint8Array {
  const stride = width * BYTES_PER_PIXEL;
  const out = new Uint8Array(height * (stride + 1));
  const rowBytes = (y: number) => Buffer.from(data.buffer, data.byteOffset + y * stride, stride);
  for (let y = 0; y < height; y++) {
    const at = y * (stride + 1) + 1;
    const row = y * stride;
    const prev = row - stride;
    // Most chart rows repeat the row above: Up makes them all zeros (`out` starts zeroed), the cheapest possible.
    if (y > 0 && rowBytes(y).equals(rowBytes(y - 1))) {
      out[at - 1] = 2;
      continue;
    }
    let costNone = 0;
    let costSub = 0;
    let costUp = 0;
    for (let i = 0; i < stride; i++) {
      const x = data[row + i]!;
      costNone += COST[x]!;
      costSub += COST[(x - (i >= BYTES_PER_PIXEL ? data[row + i - BYTES_PER_PIXEL]! : 0)) & 255]!;
      costUp += COST[(x - (y > 0 ? data[prev + i]! : 0)) & 255]!;
    }
    // Ties go to None, so row 0 (where Up equals None) never uses Up.
    const filter = costNone <= costSub && costNone <= costUp ? 0 : costSub <= costUp ? 1 : 2;
    out[at - 1] = filter;
    if (filter === 0) {
      out.set(data.subarray(row, row + stride), at);
    } else if (filter === 1) {
      out.set(data.subarray(row, row + BYTES_PER_PIXEL), at);
      for (let i = BYTES_PER_PIXEL; i < stride; i++) out[at + i] = data[row + i]! - data[row + i - BYTES_PER_PIXEL]!;
    } else {
      for (let i = 0; i < stride; i++) out[at + i] = data[row + i]! - data[prev + i]!;
    }
  }
  return out;
}

function chunk(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + body.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, body.length);
  const typeBytes = new TextEncoder().encode(type);
  out.set(typeBytes, 4);
  out.set(body, 8);
  view.setUint32(8 + body.length, crc32(body, crc32(typeBytes)));
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
