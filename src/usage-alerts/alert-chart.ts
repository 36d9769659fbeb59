/**
 * An alert's evidence as a small chart: the figure over the last periods (a line with a dot per period), the expected
 * range as a band (an open side drawn to the edge of the plot) over the periods it was judged against, the reference
 * (the baseline's median, the period before) or the thresholds as dashed lines, and the judged period highlighted
 * with its value. Drawn by the digest's renderer (src/charts: the same font, palette and text cleaning; resvg-wasm,
 * initialised once per process by `initChartRenderer`; the PNG re-encoded by upng-js) at 2× for an email's 552 px.
 * Laid out with the digest charts' layout and SVG writer (src/charts/svg-writer.ts) and rasterised by the same
 * function; only the drawing is here, because the digest's chart kinds have no band.
 */
import { scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';
import { textWidth } from '../charts/fonts.ts';
import { renderLayout } from '../charts/render.ts';
import { CHART_PALETTE as C, type RenderedChart } from '../charts/spec.ts';
import {
  ASCENT,
  DESCENT,
  drawTitle,
  LABEL_SIZE,
  LINE_WIDTH,
  MID_TO_BASELINE,
  num,
  PAD,
  SvgWriter,
  type TextOptions,
  X_LABEL_BAND,
  X_LABEL_BASELINE,
} from '../charts/svg-writer.ts';
import { cleanLabel, formatTick, formatValue, truncate } from '../charts/text.ts';

export interface EvidenceChartSpec {
  title: string;
  /** Period labels, oldest first; the last is the judged period. */
  categories: readonly string[];
  values: readonly number[];
  format: 'count' | 'percent';
  /** The range the judged figure was expected in (an open side is null); null when it was not judged. */
  expected: { low: number | null; high: number | null } | null;
  /** The first period the expected range was judged against: the band spans from it to the judged period. */
  bandFrom: number;
  /** Threshold rules: the band's edges are the thresholds, drawn as dashed lines across the chart. */
  thresholds: boolean;
  /** The baseline's median or the period before, with its legend label. */
  reference: { value: number; label: string } | null;
  /** The legend label of the judged period ("23 Nov, judged"). */
  judgedLabel: string;
  state: 'firing' | 'resolved';
}

/** CSS px: the email's content width; phones shrink it to about 327. */
export const EVIDENCE_CHART_WIDTH = 552;
export const EVIDENCE_CHART_HEIGHT = 220;
const SCALE = 2;

const DOT = 2.5;
const JUDGED_DOT = 6;

/** Okabe–Ito again: the band green, the judged dot vermillion (firing) or green (resolved), the reference grey. */
const COLOURS = {
  line: C.series[0],
  band: C.series[2],
  firing: C.negative,
  resolved: C.series[2],
  reference: '#4b5563',
  column: '#eef1f5',
} as const;
const BAND_OPACITY = 0.16;
const THRESHOLD_DASH = 'stroke-width="2" stroke-dasharray="6 4"';
const REFERENCE_DASH = 'stroke-width="1.5" stroke-dasharray="4 3"';

/** A rule across the plot (a band's edge, the reference), drawn as a stroke so it can be dashed. */
const rule = (svg: SvgWriter, x0: number, x1: number, y: number, stroke: string) =>
  svg.path(`M${num(x0)},${num(y)}H${num(x1)}`, `fill="none" ${stroke}`);
/** Every label here may cross the line or the band: each gets the white outline. */
const label = (svg: SvgWriter, x: number, y: number, text: string, o: TextOptions = {}) =>
  svg.text(x, y, text, { ...o, halo: true });

/** The chart's SVG: pure and deterministic. */
export function evidenceChartSvg(spec: EvidenceChartSpec): string {
  const width = EVIDENCE_CHART_WIDTH;
  const height = EVIDENCE_CHART_HEIGHT;
  const n = spec.values.length;
  if (n === 0 || spec.categories.length !== n)
    throw new Error(`evidence chart: ${n} values, ${spec.categories.length} labels`);
  if (!spec.values.every(Number.isFinite)) throw new Error('evidence chart: values must be finite numbers');
  const svg = new SvgWriter(width, height, SCALE);
  const titleBottom = drawTitle(svg, spec.title, width);

  const colour = spec.state === 'firing' ? COLOURS.firing : COLOURS.resolved;
  const expected = spec.expected;
  const legendBottom = legend(svg, spec, colour, titleBottom);
  const top = legendBottom + ASCENT;
  const bottom = height - X_LABEL_BAND;

  // The value axis holds the figures, the range's finite edges and the reference; zero when it is near.
  const bounds = [expected?.low, expected?.high, spec.reference?.value].filter(
    (v): v is number => typeof v === 'number' && Number.isFinite(v),
  );
  let lo = Math.min(...spec.values, ...bounds);
  let hi = Math.max(...spec.values, ...bounds);
  if (lo >= 0 && lo <= hi * 0.5) lo = 0;
  if (lo === hi) [lo, hi] = lo === 0 ? [0, 1] : [lo - Math.abs(lo) * 0.1, hi + Math.abs(hi) * 0.1];
  const count = Math.max(2, Math.min(6, Math.round((bottom - top) / 32)));
  const y = scaleLinear().domain([lo, hi]).range([bottom, top]).nice(count);
  let ticks = y.ticks(count);
  if (spec.format === 'count') ticks = ticks.filter((t) => Number.isInteger(t));
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1;
  const tickLabels = ticks.map((t) => formatTick(t, step, spec.format));
  const left = PAD + Math.max(0, ...tickLabels.map((l) => textWidth(l, LABEL_SIZE))) + 8;
  const last = spec.values[n - 1]!;
  const lastLabel = formatValue(last, spec.format);
  const right = width - PAD - textWidth(lastLabel, LABEL_SIZE, true) - JUDGED_DOT - 8;
  const inset = JUDGED_DOT + 2;
  const x = (i: number) => (n <= 1 ? (left + right) / 2 : left + inset + (i * (right - left - inset)) / (n - 1));
  const pitch = n <= 1 ? right - left : (right - left - inset) / (n - 1);
  const [yTop, yBottom] = [y.range()[1]!, y.range()[0]!];
  const clampY = (v: number) => Math.min(yBottom, Math.max(yTop, v));

  // The judged period's column, under everything.
  const half = Math.min(pitch / 2, 18);
  svg.rect(svg.snap(x(n - 1) - half), yTop, svg.snap(2 * half), yBottom - yTop, COLOURS.column);

  ticks.forEach((t, i) => {
    const ty = svg.snap(y(t));
    if (t !== 0) svg.rect(left, ty - 0.5, width - PAD - left, 1, C.grid);
    label(svg, left - 8, ty + MID_TO_BASELINE, tickLabels[i]!, { anchor: 'end' });
  });
  if (lo <= 0 && y.domain()[1]! >= 0) svg.rect(left, svg.snap(y(0)) - 0.5, width - PAD - left, 1, C.axis);

  // The band over the periods it was judged against; an open side reaches the edge of the plot.
  if (expected) {
    const from = Math.max(0, Math.min(n - 1, spec.bandFrom));
    const x0 = spec.thresholds || from === 0 ? left : x(from) - half;
    const x1 = spec.thresholds ? width - PAD : x(n - 1) + half;
    const bandTop = expected.high === null ? yTop : clampY(y(expected.high));
    const bandBottom = expected.low === null ? yBottom : clampY(y(expected.low));
    svg.rect(x0, bandTop, x1 - x0, Math.max(bandBottom - bandTop, 1), COLOURS.band, `fill-opacity="${BAND_OPACITY}"`);
    const edge = spec.thresholds
      ? `stroke="${COLOURS.band}" ${THRESHOLD_DASH}`
      : `stroke="${COLOURS.band}" stroke-width="1" stroke-opacity="0.7"`;
    if (expected.high !== null) rule(svg, x0, x1, clampY(y(expected.high)), edge);
    if (expected.low !== null) rule(svg, x0, x1, clampY(y(expected.low)), edge);
    if (spec.reference)
      rule(svg, x0, x1, clampY(y(spec.reference.value)), `stroke="${COLOURS.reference}" ${REFERENCE_DASH}`);
  }

  const d = line<number>()
    .x((_, i) => x(i))
    .y((v) => y(v))
    .digits(2)(spec.values);
  if (d && n > 1)
    svg.path(
      d,
      `fill="none" stroke="${COLOURS.line}" stroke-width="${LINE_WIDTH}" stroke-linejoin="round" stroke-linecap="round"`,
    );
  if (n <= 40)
    spec.values.slice(0, -1).forEach((v, i) => {
      svg.circle(x(i), y(v), DOT, COLOURS.line);
    });
  svg.circle(x(n - 1), y(last), JUDGED_DOT, colour, `stroke="${C.background}" stroke-width="2"`);
  const labelY = Math.min(yBottom, Math.max(yTop, y(last))) + MID_TO_BASELINE;
  label(svg, x(n - 1) + JUDGED_DOT + 4, labelY, lastLabel, { bold: true });

  xLabels(svg, spec.categories, x, right - left, height);
  return svg.toString();
}

/** One row (or two) of swatches: the expected range or threshold, the reference, the judged period. */
function legend(svg: SvgWriter, spec: EvidenceChartSpec, colour: string, top: number): number {
  // The line needs no entry: the title names it (as the digest's one-series charts).
  const items: { label: string; draw: (x: number, mid: number) => void }[] = [];
  if (spec.expected) {
    items.push({
      label: 'Expected range',
      draw: (x, mid) => svg.rect(x, mid - 6, 16, 12, COLOURS.band, `fill-opacity="${BAND_OPACITY * 2}"`),
    });
    if (spec.thresholds)
      items.push({
        label: 'Threshold',
        draw: (x, mid) => rule(svg, x, x + 16, mid, `stroke="${COLOURS.band}" ${THRESHOLD_DASH}`),
      });
  }
  if (spec.expected && spec.reference)
    items.push({
      label: spec.reference.label,
      draw: (x, mid) => rule(svg, x, x + 16, mid, `stroke="${COLOURS.reference}" ${REFERENCE_DASH}`),
    });
  items.push({
    label: spec.judgedLabel,
    draw: (x, mid) => svg.circle(x + 8, mid, 5, colour),
  });
  let x = PAD;
  let baseline = top + ASCENT;
  for (const item of items) {
    const text = truncate(cleanLabel(item.label), svg.width - 2 * PAD - 22, LABEL_SIZE);
    const w = 22 + textWidth(text, LABEL_SIZE);
    if (x > PAD && x + w > svg.width - PAD) {
      x = PAD;
      baseline += 18;
    }
    item.draw(x, baseline - MID_TO_BASELINE);
    label(svg, x + 22, baseline, text);
    x += w + 16;
  }
  return baseline + DESCENT + 6;
}

/** Period labels under the plot: every k-th counted back from the judged one, the smallest k at which none collide. */
function xLabels(
  svg: SvgWriter,
  categories: readonly string[],
  x: (i: number) => number,
  room: number,
  height: number,
) {
  const labels = categories.map((c) => truncate(cleanLabel(c), Math.min(100, room), LABEL_SIZE));
  const widest = Math.max(0, ...labels.map((l) => textWidth(l, LABEL_SIZE)));
  const n = labels.length;
  const pitch = n > 1 ? x(1) - x(0) : room;
  const k = Math.max(1, Math.ceil((widest + 8) / Math.max(1, pitch)));
  for (let i = n - 1; i >= 0; i -= k) {
    const w = textWidth(labels[i]!, LABEL_SIZE);
    // Kept inside the image: the first and last may not centre on their point.
    const cx = Math.min(svg.width - 4 - w / 2, Math.max(4 + w / 2, x(i)));
    label(svg, cx, height - X_LABEL_BASELINE, labels[i]!, { anchor: 'middle', bold: i === n - 1 });
  }
}

/** The chart as an opaque PNG at 2× (and its SVG), rendered like the digest's charts. */
export function renderEvidenceChart(spec: EvidenceChartSpec): Promise<RenderedChart> {
  return renderLayout({
    svg: evidenceChartSvg(spec),
    width: EVIDENCE_CHART_WIDTH,
    height: EVIDENCE_CHART_HEIGHT,
    scale: SCALE,
  });
}
