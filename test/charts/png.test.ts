import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Canvas, decodePng, encodePng, PngDecodeError, type RasterImage } from '../../src/charts/index.ts';
import { inspectWithPython, pythonRgbPixel, writeRgbPngWithPython } from './python-png.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Flat areas, a gradient, texture, jumpy near-zero bytes and translucent pixels, so the encoder picks every filter it has. */
function patternImage(width: number, height: number): RasterImage {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (y < height / 3) data.set([255, 255, 255, 255], i);
      else if (y < (2 * height) / 3) data.set([x % 256, (x * 2) % 256, 90, 255], i);
      else if (y < (5 * height) / 6)
        data.set([(x * 31 + y * 17) % 256, (x * y) % 256, (x ^ y) % 256, (x * 5) % 256], i);
      // Bytes near 0 that jump about: the rows where no filter beats None.
      else
        data.set(
          [0, 1, 2, 3].map((k) => [0, 2, 254, 1, 255, 253][(x * 7 + y * 3 + k * 5) % 6]!),
          i,
        );
    }
  }
  return { width, height, data };
}

describe('encodePng', () => {
  it('writes a PNG that Python reads back pixel for pixel, with valid CRCs and the IHDR size', () => {
    const image = patternImage(123, 45);
    const report = inspectWithPython(encodePng(image));
    expect(report.chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(report.chunks.every((c) => c.crcOk)).toBe(true);
    expect(report).toMatchObject({ width: 123, height: 45, bitDepth: 8, colourType: 6, interlace: 0 });
    expect(report.filterTypes).toEqual([0, 1, 2]);
    expect(report.rgbaSha256).toBe(sha256(image.data));
  });

  it('round-trips through decodePng', () => {
    const image = patternImage(64, 30);
    const back = decodePng(encodePng(image));
    expect(back.width).toBe(64);
    expect(back.height).toBe(30);
    expect(Buffer.from(back.data).equals(Buffer.from(image.data))).toBe(true);
  });

  it('gives the same bytes for the same pixels', () => {
    const a = encodePng(patternImage(50, 50));
    const b = encodePng(patternImage(50, 50));
    expect(sha256(a)).toBe(sha256(b));
  });

  it('compresses a flat canvas to almost nothing', () => {
    expect(encodePng(new Canvas(1120, 320)).length).toBeLessThan((1120 * 320 * 4) / 500);
  });

  it('refuses sizes and data that do not match', () => {
    expect(() => encodePng({ width: 0, height: 1, data: new Uint8Array(0) })).toThrow(/width must be an integer/);
    expect(() => encodePng({ width: 2, height: 2.5, data: new Uint8Array(20) })).toThrow(/height must be an integer/);
    expect(() => encodePng({ width: 2, height: 2, data: new Uint8Array(15) })).toThrow(/2×2 RGBA needs 16/);
  });
});

describe('decodePng', () => {
  it('decodes an RGB PNG with Average and Paeth filters written by Python', () => {
    const image = decodePng(writeRgbPngWithPython(37, 21));
    expect([image.width, image.height]).toEqual([37, 21]);
    for (const [x, y] of [
      [0, 0],
      [36, 0],
      [5, 7],
      [36, 20],
      [18, 13],
    ] as const) {
      expect([...image.data.subarray((y * 37 + x) * 4, (y * 37 + x) * 4 + 4)]).toEqual(pythonRgbPixel(x, y));
    }
  });

  it('rejects bytes that are not a sound PNG, saying why', () => {
    const png = encodePng(patternImage(8, 8));
    const badCrc = png.slice();
    badCrc[45] = (badCrc[45]! + 1) & 255; // inside the IDAT body
    expect(() => decodePng(badCrc)).toThrow(/bad CRC in IDAT/);
    expect(() => decodePng(png.subarray(0, png.length - 12))).toThrow(/no IEND/);
    expect(() => decodePng(new TextEncoder().encode('GIF89a not a png'))).toThrow(PngDecodeError);
  });
});
