/** Dependency-free PNG charts for the digest email; see charts.ts. */
export { Canvas, type Point } from './canvas.ts';
export { renderChart } from './charts.ts';
export { parseColor, type Rgba } from './color.ts';
export { decodePng, type InkOptions, inkRatio, isBlank, PngDecodeError } from './inspect.ts';
export { encodePng, type RasterImage } from './png.ts';
export {
  type BarsSpec,
  CHART_CHROME,
  CHART_PALETTE,
  type ChartSpec,
  ChartSpecError,
  type HbarsSpec,
  type HistogramSpec,
  type LineSeries,
  type LineSpec,
  type RenderedChart,
  type SparklineSpec,
} from './spec.ts';
