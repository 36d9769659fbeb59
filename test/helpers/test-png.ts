/**
 * Real PNGs for page tests, built byte by byte (node:zlib): a white image with a few blue bars, the way a chart
 * looks, so a screenshot shows where charts sit. Tiny: the rows repeat, and deflate takes them down to a few hundred
 * bytes.
 */
import { crc32, deflateSync } from 'node:zlib';

const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), body.length + 4);
  return out;
};

/** An RGB PNG of `width` × `height` pixels: opaque white with `bars` blue bars of varying height. */
export function barChartPng(width: number, height: number, bars = 9): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter method, no interlace
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height, 0xff);
  const slot = width / bars;
  for (let y = 0; y < height; y++) {
    raw[y * stride] = 0; // filter: none
    for (let b = 0; b < bars; b++) {
      const top = height * (0.15 + 0.6 * Math.abs(Math.sin(b * 1.3)));
      if (y < top) continue;
      for (let x = Math.round(b * slot + slot * 0.2); x < Math.round((b + 1) * slot - slot * 0.2); x++)
        raw.set([0x3b, 0x6f, 0xb6], y * stride + 1 + x * 3);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
