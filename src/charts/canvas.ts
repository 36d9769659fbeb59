/**
 * A tiny raster canvas in device pixels: just enough for bar, line, area and list charts. Pixel (x, y) covers the
 * square [x, x+1) × [y, y+1). Shapes are anti-aliased by coverage: rectangles exactly, strokes and circles by the
 * distance of the pixel centre to the shape, polygons by exact horizontal coverage over a few sub-scanlines. Every
 * shape is painted once with its coverage (source-over), so joints of a polyline never double-blend.
 */
import { packed, parseColor, type Rgba } from './color.ts';
import type { RasterImage } from './png.ts';

export interface Point {
  x: number;
  y: number;
}

/** Sub-scanlines per pixel row for polygon edges (the vertical anti-aliasing levels). */
const POLYGON_SAMPLES = 4;

const clamp01 = (v: number) => (v <= 0 ? 0 : v >= 1 ? 1 : v);

export class Canvas implements RasterImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  /** The same bytes, one element per pixel, for filling opaque runs in one call. */
  private readonly pixels: Uint32Array;
  private readonly memo: { src: number; rgba: Rgba | undefined; before: number; after: number } = {
    src: -1,
    rgba: undefined,
    before: 0,
    after: 0,
  };

  constructor(width: number, height: number, background = '#ffffff') {
    this.width = width;
    this.height = height;
    this.data = new Uint8Array(width * height * 4);
    this.pixels = new Uint32Array(this.data.buffer);
    this.pixels.fill(packed(parseColor(background)));
  }

  /** An axis-aligned rectangle; fractional edges are blended by the share of each pixel they cover. */
  fillRect(x: number, y: number, w: number, h: number, colour: string): void {
    if (w < 0) [x, w] = [x + w, -w];
    if (h < 0) [y, h] = [y + h, -h];
    const rgba = parseColor(colour);
    const x0 = Math.max(0, Math.floor(x));
    const x1 = Math.min(this.width, Math.ceil(x + w));
    const y0 = Math.max(0, Math.floor(y));
    const y1 = Math.min(this.height, Math.ceil(y + h));
    // Whole pixels strictly inside the rectangle: one fill per row when the colour is opaque.
    const inner0 = Math.max(x0, Math.ceil(x));
    const inner1 = Math.min(x1, Math.floor(x + w));
    const solid = rgba[3] === 255 ? packed(rgba) : undefined;
    const coverX = (px: number) => Math.min(px + 1, x + w) - Math.max(px, x);
    for (let py = y0; py < y1; py++) {
      const coverY = Math.min(py + 1, y + h) - Math.max(py, y);
      if (solid !== undefined && coverY >= 1 && inner1 > inner0) {
        for (let px = x0; px < inner0; px++) this.blend(px, py, rgba, coverX(px));
        this.pixels.fill(solid, py * this.width + inner0, py * this.width + inner1);
        for (let px = inner1; px < x1; px++) this.blend(px, py, rgba, coverX(px));
      } else {
        for (let px = x0; px < x1; px++) this.blend(px, py, rgba, coverY * coverX(px));
      }
    }
  }

  /** A horizontal gridline `thickness` whole pixels thick, centred on `y` and snapped to pixel rows (so crisp). */
  hline(y: number, colour: string, thickness = 1, x0 = 0, x1 = this.width): void {
    this.fillRect(Math.round(x0), Math.round(y - thickness / 2), Math.round(x1) - Math.round(x0), thickness, colour);
  }

  /** A stroked polyline of `lineWidth` pixels with round joins and caps; a single point draws a dot. */
  strokePolyline(points: readonly Point[], lineWidth: number, colour: string): void {
    if (points.length === 0) return;
    const half = lineWidth / 2;
    const box = this.bounds(points, half + 1);
    if (!box) return;
    const mask = new Float32Array(box.w * box.h);
    for (let k = 0; k < Math.max(1, points.length - 1); k++) {
      const a = points[k]!;
      const b = points[k + 1] ?? a;
      const sx0 = Math.max(box.x, Math.floor(Math.min(a.x, b.x) - half - 1));
      const sx1 = Math.min(box.x + box.w, Math.ceil(Math.max(a.x, b.x) + half + 1));
      const sy0 = Math.max(box.y, Math.floor(Math.min(a.y, b.y) - half - 1));
      const sy1 = Math.min(box.y + box.h, Math.ceil(Math.max(a.y, b.y) + half + 1));
      for (let py = sy0; py < sy1; py++) {
        for (let px = sx0; px < sx1; px++) {
          const cover = clamp01(half + 0.5 - distanceToSegment(px + 0.5, py + 0.5, a, b));
          const i = (py - box.y) * box.w + (px - box.x);
          if (cover > mask[i]!) mask[i] = cover;
        }
      }
    }
    this.paintMask(box, mask, parseColor(colour));
  }

  line(x0: number, y0: number, x1: number, y1: number, lineWidth: number, colour: string): void {
    this.strokePolyline(
      [
        { x: x0, y: y0 },
        { x: x1, y: y1 },
      ],
      lineWidth,
      colour,
    );
  }

  /** A filled polygon (even-odd rule), e.g. the area under a line. */
  fillPolygon(points: readonly Point[], colour: string): void {
    if (points.length < 3) return;
    const box = this.bounds(points, 1);
    if (!box) return;
    const rgba = parseColor(colour);
    // Per row: partial coverage of span ends, plus whole-pixel runs as a difference array (O(1) per span).
    const partial = new Float32Array(box.w);
    const runs = new Float32Array(box.w + 1);
    const crossings: number[] = [];
    for (let py = box.y; py < box.y + box.h; py++) {
      partial.fill(0);
      runs.fill(0);
      for (let s = 0; s < POLYGON_SAMPLES; s++) {
        const sy = py + (s + 0.5) / POLYGON_SAMPLES;
        crossings.length = 0;
        for (let k = 0; k < points.length; k++) {
          const a = points[k]!;
          const b = points[(k + 1) % points.length]!;
          if (a.y <= sy !== b.y <= sy) crossings.push(a.x + ((sy - a.y) * (b.x - a.x)) / (b.y - a.y) - box.x);
        }
        crossings.sort((p, q) => p - q);
        for (let k = 0; k + 1 < crossings.length; k += 2) {
          addSpan(partial, runs, crossings[k]!, crossings[k + 1]!, 1 / POLYGON_SAMPLES);
        }
      }
      let run = 0;
      for (let col = 0; col < box.w; col++) {
        run += runs[col]!;
        const cover = partial[col]! + run;
        if (cover > 1e-6) this.blend(box.x + col, py, rgba, cover);
      }
    }
  }

  fillCircle(cx: number, cy: number, radius: number, colour: string): void {
    const box = this.bounds([{ x: cx, y: cy }], radius + 1);
    if (!box) return;
    const mask = new Float32Array(box.w * box.h);
    for (let row = 0; row < box.h; row++) {
      for (let col = 0; col < box.w; col++) {
        const d = Math.hypot(box.x + col + 0.5 - cx, box.y + row + 0.5 - cy);
        mask[row * box.w + col] = clamp01(radius + 0.5 - d);
      }
    }
    this.paintMask(box, mask, parseColor(colour));
  }

  /** The integer pixel box around `points` grown by `pad`, clipped to the canvas; undefined when off-canvas. */
  private bounds(points: readonly Point[], pad: number): { x: number; y: number; w: number; h: number } | undefined {
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const x = Math.max(0, Math.floor(Math.min(...xs) - pad));
    const y = Math.max(0, Math.floor(Math.min(...ys) - pad));
    const w = Math.min(this.width, Math.ceil(Math.max(...xs) + pad)) - x;
    const h = Math.min(this.height, Math.ceil(Math.max(...ys) + pad)) - y;
    return w > 0 && h > 0 ? { x, y, w, h } : undefined;
  }

  private paintMask(box: { x: number; y: number; w: number; h: number }, mask: Float32Array, rgba: Rgba): void {
    for (let row = 0; row < box.h; row++) {
      for (let col = 0; col < box.w; col++) {
        const cover = mask[row * box.w + col]!;
        if (cover > 0) this.blend(box.x + col, box.y + row, rgba, cover);
      }
    }
  }

  /** Source-over of `rgba` at `cover` (0–1) onto one pixel, in straight (non-premultiplied) alpha. */
  private blend(x: number, y: number, rgba: Rgba, cover: number): void {
    const a = rgba[3];
    const src = (a / 255) * clamp01(cover);
    if (src <= 0) return;
    const k = y * this.width + x;
    // Large fills meet the same background pixel over and over: reuse the last result.
    if (src === this.memo.src && rgba === this.memo.rgba && this.pixels[k] === this.memo.before) {
      this.pixels[k] = this.memo.after;
      return;
    }
    this.memo.before = this.pixels[k]!;
    this.mix(k * 4, rgba, src);
    this.memo.src = src;
    this.memo.rgba = rgba;
    this.memo.after = this.pixels[k]!;
  }

  private mix(i: number, [r, g, b]: Rgba, src: number): void {
    const d = this.data;
    if (d[i + 3] === 255) {
      // Opaque destination (every chart's background): the result stays opaque, a plain mix.
      d[i] = (d[i]! + (r - d[i]!) * src + 0.5) | 0;
      d[i + 1] = (d[i + 1]! + (g - d[i + 1]!) * src + 0.5) | 0;
      d[i + 2] = (d[i + 2]! + (b - d[i + 2]!) * src + 0.5) | 0;
      return;
    }
    const dst = d[i + 3]! / 255;
    const out = src + dst * (1 - src);
    const keep = (dst * (1 - src)) / out;
    d[i] = Math.round(r * (src / out) + d[i]! * keep);
    d[i + 1] = Math.round(g * (src / out) + d[i + 1]! * keep);
    d[i + 2] = Math.round(b * (src / out) + d[i + 2]! * keep);
    d[i + 3] = Math.round(out * 255);
  }
}

function distanceToSegment(px: number, py: number, a: Point, b: Point): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : clamp01(((px - a.x) * dx + (py - a.y) * dy) / len2);
  return Math.hypot(px - (a.x + t * dx), py - (a.y + t * dy));
}

/** Adds `weight` × the covered share of each pixel of the span [xa, xb): ends to `partial`, whole pixels to `runs`. */
function addSpan(partial: Float32Array, runs: Float32Array, xa: number, xb: number, weight: number): void {
  const lo = Math.max(0, xa);
  const hi = Math.min(partial.length, xb);
  if (hi <= lo) return;
  const first = Math.floor(lo);
  const last = Math.floor(hi);
  if (first === last) {
    partial[first]! += (hi - lo) * weight;
    return;
  }
  partial[first]! += (first + 1 - lo) * weight;
  runs[first + 1]! += weight;
  runs[last]! -= weight;
  if (last < partial.length) partial[last]! += (hi - last) * weight;
}
