/**
 * What a chart shows, its palette and the validation of a spec. Sizes are CSS pixels; the PNG is `scale` × that
 * (2 by default, sharp on high-density screens, shown at the CSS size with the img width/height attributes).
 */
import { parseColor } from './color.ts';

export interface ChartFrame {
  /** CSS pixels; default 560 (the email body is 600 px wide), 120 for sparklines. */
  width?: number;
  /** CSS pixels; default 160, 32 for sparklines, `values.length × rowHeight` for hbars. */
  height?: number;
  /** Device pixels per CSS pixel; default 2. */
  scale?: number;
  /** Opaque background (#rrggbb); default white, which stays readable when a mail client darkens the page. */
  background?: string;
}
/** Weekly counts and the like: one bar per value, the last (this week) highlighted. */
export interface BarsSpec extends ChartFrame {
  kind: 'bars';
  values: readonly number[];
  highlightLast?: boolean;
}
export interface LineSeries {
  values: readonly number[];
  /** Default: the palette colour of the series' position. */
  color?: string;
  /** Fill the area between the line and the baseline with a light tint of the colour. */
  area?: boolean;
}
/** Series over the same periods (index i of every series is the same week). */
export interface LineSpec extends ChartFrame {
  kind: 'line';
  series: readonly LineSeries[];
  /** Keep 0 on the value axis; default true, so a 2 % change does not look like a cliff. */
  includeZero?: boolean;
  /** A dot on the last point of each series; default true. */
  markLast?: boolean;
}
/** A small trend line without gridlines; its axis spans just the values. */
export interface SparklineSpec extends ChartFrame {
  kind: 'sparkline';
  values: readonly number[];
  color?: string;
  area?: boolean;
}
/** Top-N lists (versions, countries): one horizontal bar per row, the first row on top. */
export interface HbarsSpec extends ChartFrame {
  kind: 'hbars';
  values: readonly number[];
  /** CSS pixels per row when `height` is not given (so an HTML table beside it can use the same rows); default 24. */
  rowHeight?: number;
}
/** Bin counts of a distribution (as the service returns them), drawn as adjoining bars. */
export interface HistogramSpec extends ChartFrame {
  kind: 'histogram';
  values: readonly number[];
}
export type ChartSpec = BarsSpec | LineSpec | SparklineSpec | HbarsSpec | HistogramSpec;
export type ChartKind = ChartSpec['kind'];

export interface RenderedChart {
  /** PNG bytes, `width × scale` by `height × scale` device pixels. */
  png: Uint8Array;
  /** CSS size, for the img width/height attributes. */
  width: number;
  height: number;
}

/**
 * Okabe–Ito colours (distinguishable with every common colour-vision deficiency); the muted bar is the primary
 * blue mixed 60 % with white, so "this week" stands out by lightness as well as by hue.
 */
export const CHART_PALETTE = {
  background: '#ffffff',
  grid: '#e6e6e6',
  /** The zero line; 4.5:1 against white. */
  axis: '#767676',
  series: ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00'],
  bar: '#0072b2',
  mutedBar: '#99c7e0',
  negative: '#d55e00',
  mutedNegative: '#eebf99',
} as const;
/** The colours that are not data: a chart made only of these has nothing to show (see inspect.ts isBlank). */
export const CHART_CHROME = [CHART_PALETTE.grid, CHART_PALETTE.axis] as const;

export class ChartSpecError extends Error {
  override name = 'ChartSpecError';
}

export interface Frame {
  width: number;
  height: number;
  scale: number;
  background: string;
}

const KINDS: readonly ChartKind[] = ['bars', 'line', 'sparkline', 'hbars', 'histogram'];
const MAX_VALUES = 2000;
/** Larger magnitudes are surely a bug upstream, and they would overflow the axis arithmetic. */
const MAX_MAGNITUDE = 1e15;

/** Checks a spec that may come from untyped code and resolves the frame's defaults; throws ChartSpecError. */
export function resolveFrame(spec: ChartSpec): Frame {
  const kind = (spec as { kind?: unknown } | null)?.kind;
  if (!KINDS.includes(kind as ChartKind)) {
    throw new ChartSpecError(`chart kind ${JSON.stringify(kind)} is not one of ${KINDS.join(', ')}`);
  }
  if (spec.kind === 'line') {
    if (!Array.isArray(spec.series)) throw new ChartSpecError('line: series must be an array');
    spec.series.forEach((s, i) => {
      checkValues(`line: series[${i}].values`, s?.values);
      if (s.color !== undefined) checkColour(`line: series[${i}].color`, s.color);
    });
  } else {
    checkValues(`${spec.kind}: values`, spec.values);
  }
  if (spec.kind === 'sparkline' && spec.color !== undefined) checkColour('sparkline: color', spec.color);
  const small = spec.kind === 'sparkline';
  const rows = spec.kind === 'hbars' ? Math.max(1, spec.values.length) : 0;
  const rowHeight = spec.kind === 'hbars' ? checkSize('hbars: rowHeight', spec.rowHeight ?? 24, 4, 200) : 0;
  const background = spec.background ?? CHART_PALETTE.background;
  checkColour(`${spec.kind}: background`, background);
  return {
    width: checkSize(`${spec.kind}: width`, spec.width ?? (small ? 120 : 560), 8, 2000),
    height: checkSize(`${spec.kind}: height`, spec.height ?? (rows ? rows * rowHeight : small ? 32 : 160), 8, 4000),
    scale: checkSize(`${spec.kind}: scale`, spec.scale ?? 2, 1, 4),
    background,
  };
}

function checkValues(path: string, values: unknown): void {
  if (!Array.isArray(values)) throw new ChartSpecError(`${path} must be an array of numbers`);
  if (values.length > MAX_VALUES)
    throw new ChartSpecError(`${path} has ${values.length} values; at most ${MAX_VALUES}`);
  values.forEach((v: unknown, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new ChartSpecError(`${path}[${i}] is ${String(v)}; chart values must be finite numbers`);
    }
    if (Math.abs(v) > MAX_MAGNITUDE) throw new ChartSpecError(`${path}[${i}] is ${v}; beyond ±${MAX_MAGNITUDE}`);
  });
}

function checkSize(path: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ChartSpecError(`${path} must be an integer from ${min} to ${max}, got ${String(v)}`);
  }
  return v;
}

function checkColour(path: string, colour: unknown): void {
  try {
    if (typeof colour !== 'string') throw new TypeError();
    parseColor(colour);
  } catch {
    throw new ChartSpecError(`${path} must be #rrggbb or #rrggbbaa, got ${JSON.stringify(colour)}`);
  }
}
