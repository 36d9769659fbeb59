/** Reading rendered charts back in tests: pixels by colour, in regions given in CSS px. */
import { CHART_PALETTE, type DecodedPng, decodePng } from '../../src/charts/index.ts';

export interface Region {
  /** CSS px, left/top inclusive, right/bottom exclusive. */
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const rgbOf = (hex: string) =>
  [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/** Pixels in `region` (scaled to device px) for which `test(r, g, b, a)` holds. */
export function countPixels(
  image: DecodedPng,
  scale: number,
  region: Region,
  test: (r: number, g: number, b: number, a: number) => boolean,
): number {
  const x0 = Math.max(0, Math.round(region.left * scale));
  const x1 = Math.min(image.width, Math.round(region.right * scale));
  const y0 = Math.max(0, Math.round(region.top * scale));
  const y1 = Math.min(image.height, Math.round(region.bottom * scale));
  let n = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * image.width + x) * 4;
      const d = image.data;
      if (test(d[i]!, d[i + 1]!, d[i + 2]!, d[i + 3]!)) n++;
    }
  }
  return n;
}

const [tr, tg, tb] = rgbOf(CHART_PALETTE.text);
/** Text ink: the glyphs' fully covered pixels, near the text colour (gridlines and bars are far lighter or bluer). */
export const isTextInk = (r: number, g: number, b: number) =>
  Math.abs(r - tr) <= 24 && Math.abs(g - tg) <= 24 && Math.abs(b - tb) <= 24;

export const isColour = (hex: string) => {
  const [cr, cg, cb] = rgbOf(hex);
  return (r: number, g: number, b: number) => r === cr && g === cg && b === cb;
};

export const notWhite = (r: number, g: number, b: number) => r !== 255 || g !== 255 || b !== 255;

export const decode = (png: Uint8Array) => decodePng(png);
