/**
 * The chart font, loaded once per process: the same bytes go to the renderer and to the text measurement, so
 * layout (truncation, label collisions) uses the advances resvg will draw with.
 */
import { readChartAsset } from './assets.ts';
import { type FontMetrics, readTtf } from './ttf.ts';

/** The family name both TTFs declare; also the renderer's default family. */
export const FONT_FAMILY = 'DejaVu Sans Condensed';

export interface ChartFont {
  bytes: Uint8Array;
  metrics: FontMetrics;
}
export interface ChartFonts {
  regular: ChartFont;
  bold: ChartFont;
}

let fonts: ChartFonts | undefined;

export function chartFonts(): ChartFonts {
  if (!fonts) {
    const load = (asset: 'DejaVuSansCondensed.ttf' | 'DejaVuSansCondensed-Bold.ttf'): ChartFont => {
      const bytes = readChartAsset(asset);
      return { bytes, metrics: readTtf(bytes) };
    };
    fonts = { regular: load('DejaVuSansCondensed.ttf'), bold: load('DejaVuSansCondensed-Bold.ttf') };
  }
  return fonts;
}

/** The width of `text` in CSS px at `size` px. */
export function textWidth(text: string, size: number, bold = false): number {
  const f = chartFonts();
  return (bold ? f.bold : f.regular).metrics.textWidth(text, size);
}
