/** Reading charts back in tests: colours of pixels and the runs of a colour along columns or rows. */
import type { RasterImage } from '../../src/charts/index.ts';

export function colourAt(image: RasterImage, x: number, y: number): string {
  const i = (y * image.width + x) * 4;
  const hex = (k: number) => image.data[i + k]!.toString(16).padStart(2, '0');
  return `#${hex(0)}${hex(1)}${hex(2)}`;
}

export interface Run {
  /** First and last column (or row) of the run. */
  from: number;
  to: number;
  /** Longest extent of the colour across the run, in pixels. */
  length: number;
  /** Smallest and largest coordinate along the other axis where the colour occurs. */
  min: number;
  max: number;
}

/**
 * Groups adjacent columns (axis 'x') or rows (axis 'y') that contain any of `colours` into runs, e.g. one run per
 * bar; `length` is the most pixels of those colours in one column (or row) of the run: a bar's height (or width).
 */
export function runsOf(image: RasterImage, colours: readonly string[], axis: 'x' | 'y'): Run[] {
  const wanted = new Set(colours.map((c) => c.toLowerCase()));
  const [outer, inner] = axis === 'x' ? [image.width, image.height] : [image.height, image.width];
  const runs: Run[] = [];
  let current: Run | undefined;
  for (let a = 0; a < outer; a++) {
    let count = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let b = 0; b < inner; b++) {
      const [x, y] = axis === 'x' ? [a, b] : [b, a];
      if (!wanted.has(colourAt(image, x, y))) continue;
      count++;
      min = Math.min(min, b);
      max = Math.max(max, b);
    }
    if (count === 0) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = { from: a, to: a, length: count, min, max };
      runs.push(current);
    } else {
      current.to = a;
      current.length = Math.max(current.length, count);
      current.min = Math.min(current.min, min);
      current.max = Math.max(current.max, max);
    }
  }
  return runs;
}

/** Every distinct colour in the image with its pixel count. */
export function colourCounts(image: RasterImage): Map<string, number> {
  const counts = new Map<string, number>();
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const c = colourAt(image, x, y);
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  return counts;
}

/** Where `colours` occur in column x: how many pixels, and the topmost and bottommost row. */
export function columnOf(
  image: RasterImage,
  x: number,
  colours: readonly string[],
): { count: number; top: number; bottom: number } {
  const wanted = new Set(colours.map((c) => c.toLowerCase()));
  let count = 0;
  let top = Number.POSITIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (let y = 0; y < image.height; y++) {
    if (!wanted.has(colourAt(image, x, y))) continue;
    count++;
    top = Math.min(top, y);
    bottom = Math.max(bottom, y);
  }
  return { count, top, bottom };
}
