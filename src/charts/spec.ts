/**
 * What a chart shows, its palette and the validation of a spec that may come from untyped code. Sizes are CSS
 * pixels; the PNG is `scale` × that (2 by default, sharp on high-density screens, shown at the CSS size).
 */

/** `count`: "1,204" (en-US grouping). `percent` (values in 0–100): "61.0%" on labels, "60%" on ticks. */
export type ValueFormat = 'count' | 'percent';

export interface ChartBase {
  title: string;
  /** CSS px; default 552 (the digest's content width; phones shrink it to about 327). */
  width?: number;
  /** CSS px; default 220, for hbars derived from the row count. */
  height?: number;
  /** Device pixels per CSS pixel; default 2. */
  scale?: number;
}
/** Vertical bars (weekly counts, histogram bins), the category under each bar and the value above it. */
export interface BarsSpec extends ChartBase {
  kind: 'bars';
  categories: readonly string[];
  values: readonly number[];
  /** The last bar (this week) in the strong colour, the rest muted. */
  highlightLast?: boolean;
  format?: ValueFormat;
}
export interface LineSeries {
  name: string;
  values: readonly number[];
  /** Fill between the line and the baseline with a light tint of its colour. */
  area?: boolean;
}
/** Series over the same categories (index i of every series is category i); a legend from two series on. */
export interface LinesSpec extends ChartBase {
  kind: 'lines';
  categories: readonly string[];
  series: readonly LineSeries[];
  format?: ValueFormat;
  /** Keep 0 on the value axis; default true, so a 2 % change does not look like a cliff. */
  includeZero?: boolean;
}
/** Top-N lists (versions, countries): one horizontal bar per row, the first category on top. */
export interface HbarsSpec extends ChartBase {
  kind: 'hbars';
  categories: readonly string[];
  values: readonly number[];
  /** The label at each bar's end, e.g. "1,204 (34.5%)"; default the value formatted as a count. */
  valueLabels?: readonly string[];
}
export type ChartSpec = BarsSpec | LinesSpec | HbarsSpec;
export type ChartKind = ChartSpec['kind'];

export interface RenderedChart {
  /** PNG bytes, `width × scale` by `height × scale` device pixels, opaque. */
  png: Uint8Array;
  /** CSS size, for the img width/height attributes. */
  width: number;
  height: number;
  /** The SVG the PNG was rendered from. */
  svg: string;
}

/**
 * Okabe–Ito colours (distinguishable with every common colour-vision deficiency) for the data; the muted bar is
 * the primary blue mixed 60 % with white, so "this week" stands out by lightness as well as by hue. Text is dark
 * grey (10:1 on white, well above the 4.5:1 of WCAG AA) on an opaque white background, which stays readable when a
 * mail client darkens the page around the image.
 */
export const CHART_PALETTE = {
  background: '#ffffff',
  text: '#374151',
  grid: '#e5e7eb',
  /** The zero line. */
  axis: '#9ca3af',
  series: ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00'],
  bar: '#0072b2',
  mutedBar: '#99c7e0',
  negative: '#d55e00',
  mutedNegative: '#eebf99',
  /** A value label inside its bar. */
  onBar: '#ffffff',
} as const;

/** The colours that mean data; an image without a pixel of any of them shows no data (inspect.ts isBlank). */
export const DATA_COLOURS: readonly string[] = [
  ...new Set([
    ...CHART_PALETTE.series,
    CHART_PALETTE.bar,
    CHART_PALETTE.mutedBar,
    CHART_PALETTE.negative,
    CHART_PALETTE.mutedNegative,
  ]),
];

export class ChartSpecError extends Error {
  override name = 'ChartSpecError';
}

export const DEFAULT_WIDTH = 552;
export const DEFAULT_HEIGHT = 220;
const KINDS: readonly ChartKind[] = ['bars', 'lines', 'hbars'];
const FORMATS: readonly ValueFormat[] = ['count', 'percent'];
const MAX_VALUES = 2000;
const MAX_SERIES = 12;
/** Larger magnitudes are surely a bug upstream, and they would overflow the axis arithmetic. */
const MAX_MAGNITUDE = 1e15;
/** At most 16 million device pixels (64 MB of RGBA) per chart. */
const MAX_DEVICE_PIXELS = 16_000_000;
const MAX_LABEL_LENGTH = 10_000;

export const SIZE_LIMITS = {
  width: { min: 200, max: 2000 },
  height: { min: 100, max: 4000 },
  scale: { min: 1, max: 4 },
} as const;

/** A validated spec with its sizes resolved (height still undefined for hbars without one). */
export interface Frame {
  width: number;
  height: number | undefined;
  scale: number;
}

/** Checks a spec from possibly untyped code; throws ChartSpecError naming the field. */
export function checkSpec(spec: ChartSpec): Frame {
  if (typeof spec !== 'object' || spec === null) throw new ChartSpecError('chart spec must be an object');
  const kind = (spec as { kind?: unknown }).kind;
  if (!KINDS.includes(kind as ChartKind)) {
    throw new ChartSpecError(`kind is ${JSON.stringify(kind)}; one of ${KINDS.join(', ')}`);
  }
  const at = (field: string) => `${kind}.${field}`;
  checkLabel(at('title'), spec.title);
  checkLabels(at('categories'), spec.categories);
  const n = spec.categories.length;
  if (spec.kind === 'lines') {
    if (!Array.isArray(spec.series)) throw new ChartSpecError(`${at('series')} must be an array`);
    if (spec.series.length > MAX_SERIES) {
      throw new ChartSpecError(`${at('series')} has ${spec.series.length} series; at most ${MAX_SERIES}`);
    }
    spec.series.forEach((s: LineSeries, i) => {
      if (typeof s !== 'object' || s === null) throw new ChartSpecError(`${at(`series[${i}]`)} must be an object`);
      checkLabel(at(`series[${i}].name`), s.name);
      checkValues(at(`series[${i}].values`), s.values, n);
      checkOptionalBoolean(at(`series[${i}].area`), s.area);
    });
    checkOptionalBoolean(at('includeZero'), spec.includeZero);
  } else {
    checkValues(at('values'), spec.values, n);
  }
  if (spec.kind === 'bars') checkOptionalBoolean(at('highlightLast'), spec.highlightLast);
  if (spec.kind !== 'hbars' && spec.format !== undefined && !FORMATS.includes(spec.format)) {
    throw new ChartSpecError(`${at('format')} is ${JSON.stringify(spec.format)}; one of ${FORMATS.join(', ')}`);
  }
  if (spec.kind === 'hbars' && spec.valueLabels !== undefined) {
    checkLabels(at('valueLabels'), spec.valueLabels);
    if (spec.valueLabels.length !== n) {
      throw new ChartSpecError(`${at('valueLabels')} has ${spec.valueLabels.length} labels for ${n} categories`);
    }
  }
  const frame: Frame = {
    width: checkSize(at('width'), spec.width ?? DEFAULT_WIDTH, SIZE_LIMITS.width),
    height:
      spec.height === undefined && spec.kind === 'hbars'
        ? undefined
        : checkSize(at('height'), spec.height ?? DEFAULT_HEIGHT, SIZE_LIMITS.height),
    scale: checkSize(at('scale'), spec.scale ?? 2, SIZE_LIMITS.scale),
  };
  return frame;
}

/** The final height check, once an hbars chart's height is derived from its rows. */
export function checkDeviceSize(kind: ChartKind, width: number, height: number, scale: number, why = ''): void {
  if (height > SIZE_LIMITS.height.max) {
    throw new ChartSpecError(`${kind}.height would be ${height} px${why}; at most ${SIZE_LIMITS.height.max}`);
  }
  const pixels = width * height * scale * scale;
  if (pixels > MAX_DEVICE_PIXELS) {
    throw new ChartSpecError(
      `${kind}.width × height × scale² is ${pixels} device pixels (${width}×${height} at ${scale}×); at most ${MAX_DEVICE_PIXELS}`,
    );
  }
}

function checkLabel(path: string, label: unknown): void {
  if (typeof label !== 'string') throw new ChartSpecError(`${path} must be a string, got ${typeof label}`);
  if (label.length > MAX_LABEL_LENGTH) {
    throw new ChartSpecError(`${path} has ${label.length} characters; at most ${MAX_LABEL_LENGTH}`);
  }
}

function checkLabels(path: string, labels: unknown): void {
  if (!Array.isArray(labels)) throw new ChartSpecError(`${path} must be an array of strings`);
  if (labels.length > MAX_VALUES) {
    throw new ChartSpecError(`${path} has ${labels.length} entries; at most ${MAX_VALUES}`);
  }
  labels.forEach((label: unknown, i) => {
    checkLabel(`${path}[${i}]`, label);
  });
}

function checkValues(path: string, values: unknown, categories: number): void {
  if (!Array.isArray(values)) throw new ChartSpecError(`${path} must be an array of numbers`);
  if (values.length !== categories) {
    throw new ChartSpecError(`${path} has ${values.length} values for ${categories} categories; they must match`);
  }
  values.forEach((v: unknown, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new ChartSpecError(`${path}[${i}] is ${String(v)}; chart values must be finite numbers`);
    }
    if (Math.abs(v) > MAX_MAGNITUDE) throw new ChartSpecError(`${path}[${i}] is ${v}; beyond ±${MAX_MAGNITUDE}`);
  });
}

function checkOptionalBoolean(path: string, v: unknown): void {
  if (v !== undefined && typeof v !== 'boolean') throw new ChartSpecError(`${path} must be true or false`);
}

function checkSize(path: string, v: unknown, range: { min: number; max: number }): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < range.min || v > range.max) {
    throw new ChartSpecError(`${path} must be an integer from ${range.min} to ${range.max}, got ${String(v)}`);
  }
  return v;
}
