/**
 * SVG → PNG: resvg (compiled to WebAssembly, so the pixels are the same on x64 and arm64) rasterises the chart
 * at `scale` device pixels per CSS pixel with the bundled fonts only (no system fonts: the same glyphs everywhere),
 * and upng-js re-encodes the pixels losslessly, several times smaller than resvg's own PNG (a palette when the chart
 * has at most 256 colours, else RGB without the alpha channel, which is always opaque here).
 */
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { readChartAsset } from './assets.ts';
import { chartFonts, FONT_FAMILY } from './fonts.ts';
import type { ChartSpec, RenderedChart } from './spec.ts';
import { CHART_PALETTE } from './spec.ts';
import { type ChartLayout, layoutChart } from './svg.ts';
import UPNG from './upng.ts';

let ready: Promise<Uint8Array[]> | undefined;

/**
 * Loads the WebAssembly module and the fonts, once per process (resvg's initWasm throws when called twice).
 * Concurrent and repeated calls share one promise; after a failure (e.g. a missing asset) the next call retries.
 * A Lambda can call it at module init so the first digest does not pay for it.
 */
export async function initChartRenderer(): Promise<void> {
  await renderer();
}

/** The font buffers to hand to resvg, once the renderer is ready. */
function renderer(): Promise<Uint8Array[]> {
  ready ??= load().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

async function load(): Promise<Uint8Array[]> {
  const fonts = chartFonts();
  try {
    await initWasm(readChartAsset('resvg.wasm'));
  } catch (error) {
    // Another copy of this module (a second bundle in the same process) got there first: resvg is ready.
    if (!(error instanceof Error && /already initialized/i.test(error.message))) throw error;
  }
  return [fonts.regular.bytes, fonts.bold.bytes];
}

/** A chart spec → its PNG (and SVG); throws ChartSpecError for an invalid spec. */
export async function renderChart(spec: ChartSpec): Promise<RenderedChart> {
  return await renderLayout(layoutChart(spec));
}

/** A laid-out SVG (a digest chart, an alert's evidence chart) → its opaque PNG at `layout.scale`. */
export async function renderLayout(layout: ChartLayout): Promise<RenderedChart> {
  const fontBuffers = await renderer();
  const resvg = new Resvg(layout.svg, {
    font: { fontBuffers, defaultFontFamily: FONT_FAMILY, loadSystemFonts: false },
    fitTo: { mode: 'zoom', value: layout.scale },
    background: CHART_PALETTE.background,
  });
  let pixels: Uint8Array;
  let width: number;
  let height: number;
  try {
    const image = resvg.render();
    try {
      ({ pixels, width, height } = image);
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
  const expected = [layout.width * layout.scale, layout.height * layout.scale];
  if (width !== expected[0] || height !== expected[1]) {
    throw new Error(`resvg rendered ${width}×${height} device px, expected ${expected.join('×')}`);
  }
  return { png: encodePng(pixels, width, height), width: layout.width, height: layout.height, svg: layout.svg };
}

/** Lossless PNG of RGBA pixels; upng-js picks a palette or drops the alpha channel when it can. */
export function encodePng(rgba: Uint8Array, width: number, height: number): Uint8Array {
  const own =
    rgba.byteOffset === 0 && rgba.byteLength === rgba.buffer.byteLength
      ? (rgba.buffer as ArrayBuffer)
      : new Uint8Array(rgba).buffer;
  return new Uint8Array(UPNG.encode([own], width, height, 0));
}
