/**
 * Charts for the digest: spec → SVG (svg.ts: d3-scale ticks, d3-shape paths, labels measured with the font) →
 * PNG (render.ts: resvg-wasm with the bundled DejaVu Sans Condensed, re-encoded losslessly by upng-js).
 */
export { CHART_ASSET_FILES, CHART_ASSETS_DIR_ENV, ChartAssetMissingError } from './assets.ts';
export { type DecodedPng, decodePng, isBlank, PngDecodeError } from './inspect.ts';
export { initChartRenderer, renderChart } from './render.ts';
export {
  type BarsSpec,
  CHART_PALETTE,
  type ChartBase,
  type ChartSpec,
  ChartSpecError,
  type HbarsSpec,
  type LineSeries,
  type LinesSpec,
  type RenderedChart,
  type ValueFormat,
} from './spec.ts';
export { chartSvg } from './svg.ts';
