/**
 * Chart specs → SVG, laid out for an email: shown at 552 CSS px on a desktop and shrunk to about 327 on a phone,
 * so labels are 13 px and the title 16 px bold (still about 8 and 10 px at 0.6), dark grey on opaque white, with
 * margins that keep every label inside the image. Scales and ticks come from d3-scale, line and area paths from
 * d3-shape; text is measured with the font's advances (fonts.ts) to truncate labels and to drop the ones that would
 * collide. Pure and deterministic: the same spec gives the same string (coordinates rounded to 1/100 px).
 */
import { type ScaleLinear, scaleBand, scaleLinear } from 'd3-scale';
import { area, line } from 'd3-shape';
import { textWidth } from './fonts.ts';
import {
  type BarsSpec,
  CHART_PALETTE as C,
  type ChartSpec,
  checkDeviceSize,
  checkSpec,
  type Frame,
  type HbarsSpec,
  type LinesSpec,
  SIZE_LIMITS,
  type ValueFormat,
} from './spec.ts';
import {
  ASCENT,
  DESCENT,
  drawTitle,
  LABEL_SIZE,
  LINE_WIDTH,
  MID_TO_BASELINE,
  PAD,
  SvgWriter,
  type TextOptions,
  TITLE_BAND,
  X_LABEL_BAND,
  X_LABEL_BASELINE,
} from './svg-writer.ts';
import { cleanLabel, formatTick, formatValue, truncate } from './text.ts';

// Layout in CSS pixels (the shared part is in svg-writer.ts).
/** Labels are measured without kerning or shaping, a few per cent off either way: keep this much between them. */
const LABEL_GAP = 8;
const MAX_X_LABEL = 120;
const MAX_BAR = 56;
const DOT_RADIUS = 4;
const AREA_OPACITY = 0.15;
const LEGEND_ROW = 20;
const LEGEND_SWATCH = 16;
const HBAR_ROW = 26;
const HBAR_THICKNESS = 18;

export interface ChartLayout {
  svg: string;
  width: number;
  height: number;
  scale: number;
}

/** The SVG of a chart (validated first; throws ChartSpecError). */
export function chartSvg(spec: ChartSpec): string {
  return layoutChart(spec).svg;
}

export function layoutChart(spec: ChartSpec): ChartLayout {
  const frame = checkSpec(spec);
  switch (spec.kind) {
    case 'bars':
      return barsChart(spec, frame);
    case 'lines':
      return linesChart(spec, frame);
    case 'hbars':
      return hbarsChart(spec, frame);
  }
}

interface ValueAxis {
  y: ScaleLinear<number, number>;
  ticks: number[];
  labels: string[];
  labelWidth: number;
}

/** A nice linear value axis over [bottom, top] with about one tick per 32 px; counts get whole-number ticks only. */
function valueAxis(values: number[], includeZero: boolean, format: ValueFormat, bottom: number, top: number) {
  let lo = Math.min(...values, includeZero ? 0 : Number.POSITIVE_INFINITY);
  let hi = Math.max(...values, includeZero ? 0 : Number.NEGATIVE_INFINITY);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  // One value (or none): 0 to 1, or ±10 % around it (with includeZero, lo === hi only when both are 0).
  if (lo === hi) [lo, hi] = lo === 0 ? [0, 1] : [lo - Math.abs(lo) * 0.1, hi + Math.abs(hi) * 0.1];
  const count = Math.max(2, Math.min(8, Math.round((bottom - top) / 32)));
  const y = scaleLinear().domain([lo, hi]).range([bottom, top]).nice(count);
  let ticks = y.ticks(count);
  if (format === 'count') ticks = ticks.filter((t) => Number.isInteger(t));
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1;
  const labels = ticks.map((t) => formatTick(t, step, format));
  const labelWidth = Math.max(0, ...labels.map((l) => textWidth(l, LABEL_SIZE)));
  return { y, ticks, labels, labelWidth } satisfies ValueAxis;
}

function drawValueAxis(svg: SvgWriter, axis: ValueAxis, left: number, right: number): void {
  axis.ticks.forEach((t, i) => {
    const y = axis.y(t);
    if (t !== 0) svg.hrule(left, right, y, C.grid);
    svg.text(left - LABEL_GAP, y + MID_TO_BASELINE, axis.labels[i]!, { anchor: 'end' });
  });
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
const overlaps = (a: Box, b: Box) =>
  a.left < b.right + LABEL_GAP && b.left < a.right + LABEL_GAP && a.top < b.bottom && b.top < a.bottom;

interface PlacedLabel {
  text: string;
  x: number;
  anchor: 'start' | 'middle' | 'end';
  box: Box;
}

/** A label centred on cx, moved inside the image when it would cross an edge. */
function centredLabel(text: string, cx: number, baseline: number, imageWidth: number): PlacedLabel {
  const w = textWidth(text, LABEL_SIZE);
  const edge = 4;
  let left = cx - w / 2;
  let x = cx;
  let anchor: PlacedLabel['anchor'] = 'middle';
  if (left < edge) [left, x, anchor] = [edge, edge, 'start'];
  else if (left + w > imageWidth - edge) [left, x, anchor] = [imageWidth - edge - w, imageWidth - edge, 'end'];
  return { text, x, anchor, box: { left, right: left + w, top: baseline - ASCENT, bottom: baseline + DESCENT } };
}

/**
 * Category labels under the plot: every k-th one counted back from the last, with the smallest k at which no two
 * collide, so the labels stay evenly spaced and the last (this week) is always shown.
 */
function thinEvenly(labels: PlacedLabel[]): PlacedLabel[] {
  const n = labels.length;
  for (let k = 1; k <= n; k++) {
    const kept: PlacedLabel[] = [];
    for (let i = n - 1; i >= 0; i -= k) kept.push(labels[i]!);
    if (kept.every((l, j) => j === 0 || !overlaps(l.box, kept[j - 1]!.box))) return kept.reverse();
  }
  return labels.slice(-1);
}

/**
 * Value labels: all of them, except any that would cover another bar or collide with a label already kept, working
 * back from the last, which is always kept.
 */
function dropColliding(labels: PlacedLabel[], bars: (Box | undefined)[]): PlacedLabel[] {
  const kept: PlacedLabel[] = [];
  const covers = (l: Box, b: Box) => l.left < b.right && b.left < l.right && l.top < b.bottom && b.top < l.bottom;
  for (let i = labels.length - 1; i >= 0; i--) {
    const l = labels[i]!;
    const last = i === labels.length - 1;
    const blocked = bars.some((b, j) => j !== i && b !== undefined && covers(l.box, b));
    if (last || (!blocked && !kept.some((k) => overlaps(k.box, l.box)))) kept.push(l);
  }
  return kept.reverse();
}

function drawLabels(
  svg: SvgWriter,
  labels: PlacedLabel[],
  baseline: (l: PlacedLabel) => number,
  options: TextOptions = {},
): void {
  for (const l of labels) svg.text(l.x, baseline(l), l.text, { ...options, anchor: l.anchor });
}

function categoryLabels(categories: readonly string[], xs: number[], plotWidth: number, width: number, height: number) {
  const baseline = height - X_LABEL_BASELINE;
  const max = Math.min(MAX_X_LABEL, plotWidth);
  return categories.map((c, i) => centredLabel(truncate(cleanLabel(c), max, LABEL_SIZE), xs[i]!, baseline, width));
}

function barsChart(spec: BarsSpec, frame: Frame): ChartLayout {
  const { width, scale } = frame;
  const height = frame.height!;
  checkDeviceSize('bars', width, height, scale);
  const svg = new SvgWriter(width, height, scale);
  const format = spec.format ?? 'count';
  const values = [...spec.values];
  const n = values.length;
  const top = drawTitle(svg, spec.title, width) + ASCENT + DESCENT + 6;
  const negatives = values.some((v) => v < 0);
  // Room under the plot for the value labels of negative bars.
  const bottom = height - X_LABEL_BAND - (negatives ? ASCENT + DESCENT + 6 : 0);
  const axis = valueAxis(values, true, format, bottom, top);
  const left = PAD + axis.labelWidth + LABEL_GAP;
  const right = width - PAD;
  drawValueAxis(svg, axis, left, right);

  const band = scaleBand<number>()
    .domain(values.map((_, i) => i))
    .range([left, right])
    .paddingInner(0.25)
    .paddingOuter(0.15);
  const barWidth = Math.max(1 / scale, svg.snap(Math.min(band.bandwidth(), MAX_BAR)));
  const centres = values.map((_, i) => band(i)! + band.bandwidth() / 2);
  const y0 = axis.y(0);
  const valueLabels: PlacedLabel[] = [];
  const bars: (Box | undefined)[] = [];
  values.forEach((v, i) => {
    const cx = centres[i]!;
    const muted = (spec.highlightLast ?? false) && i < n - 1;
    if (v !== 0) {
      const end = axis.y(v);
      // A value that is not zero shows at least a sliver of 1 px.
      const [a, b] = v > 0 ? [Math.min(end, y0 - 1), y0] : [y0, Math.max(end, y0 + 1)];
      const colour = v > 0 ? (muted ? C.mutedBar : C.bar) : muted ? C.mutedNegative : C.negative;
      const x = svg.snap(cx - barWidth / 2);
      svg.rect(x, svg.snap(a), barWidth, svg.snap(b) - svg.snap(a), colour);
      bars[i] = { left: x, right: x + barWidth, top: a, bottom: b };
    }
    const baseline = v >= 0 ? axis.y(v) - 5 : axis.y(v) + 5 + ASCENT;
    valueLabels.push(centredLabel(formatValue(v, format), cx, baseline, width));
  });
  svg.hrule(left, right, y0, C.axis);
  drawLabels(svg, dropColliding(valueLabels, bars), (l) => l.box.top + ASCENT, { halo: true });
  const xLabels = thinEvenly(categoryLabels(spec.categories, centres, right - left, width, height));
  drawLabels(svg, xLabels, () => height - X_LABEL_BASELINE);
  return { svg: svg.toString(), width, height, scale };
}

function linesChart(spec: LinesSpec, frame: Frame): ChartLayout {
  const { width, scale } = frame;
  const height = frame.height!;
  checkDeviceSize('lines', width, height, scale);
  const svg = new SvgWriter(width, height, scale);
  const format = spec.format ?? 'count';
  const n = spec.categories.length;
  const series = spec.series.map((s, k) => ({
    name: cleanLabel(s.name),
    values: [...s.values],
    area: s.area ?? false,
    colour: C.series[k % C.series.length]!,
  }));
  let top = drawTitle(svg, spec.title, width);
  if (series.length >= 2 && n > 0) top = drawLegend(svg, series, top, width);
  top += ASCENT;
  const bottom = height - X_LABEL_BAND;
  const axis = valueAxis(
    series.flatMap((s) => s.values),
    spec.includeZero ?? true,
    format,
    bottom,
    top,
  );
  const lastLabels = series.flatMap((s) => {
    const last = s.values.at(-1);
    return last === undefined ? [] : [{ text: formatValue(last, format), y: axis.y(last), colour: s.colour }];
  });
  const lastLabelWidth = Math.max(0, ...lastLabels.map((l) => textWidth(l.text, LABEL_SIZE)));
  const left = PAD + axis.labelWidth + LABEL_GAP;
  const right = width - PAD - (lastLabelWidth > 0 ? lastLabelWidth + DOT_RADIUS + 6 : 0);
  drawValueAxis(svg, axis, left, right);

  const inset = DOT_RADIUS + 2;
  const x = (i: number) => (n <= 1 ? (left + right) / 2 : left + inset + (i * (right - left - inset)) / (n - 1));
  const [lo, hi] = axis.y.domain() as [number, number];
  const base = axis.y(Math.min(hi, Math.max(lo, 0)));
  for (const s of series) {
    if (!s.area || s.values.length < 2) continue;
    const d = area<number>()
      .x((_, i) => x(i))
      .y0(base)
      .y1((v) => axis.y(v))
      .digits(2)(s.values);
    if (d) svg.path(d, `fill="${s.colour}" fill-opacity="${AREA_OPACITY}"`);
  }
  if (lo <= 0 && hi >= 0) svg.hrule(left, right, axis.y(0), C.axis);
  for (const s of series) {
    const d = line<number>()
      .x((_, i) => x(i))
      .y((v) => axis.y(v))
      .digits(2)(s.values);
    if (d && s.values.length > 1) {
      svg.path(
        d,
        `fill="none" stroke="${s.colour}" stroke-width="${LINE_WIDTH}" stroke-linejoin="round" stroke-linecap="round"`,
      );
    }
  }
  for (const l of lastLabels) svg.circle(x(n - 1), l.y, DOT_RADIUS, l.colour);
  const centres = spreadApart(
    lastLabels.map((l) => l.y),
    ASCENT + DESCENT + 2,
    top - ASCENT,
    bottom - 2,
  );
  lastLabels.forEach((l, i) => {
    svg.text(x(n - 1) + DOT_RADIUS + 6, centres[i]! + MID_TO_BASELINE, l.text, { halo: true });
  });
  const xs = spec.categories.map((_, i) => x(i));
  drawLabels(svg, thinEvenly(categoryLabels(spec.categories, xs, right - left, width, height)), () => {
    return height - X_LABEL_BASELINE;
  });
  return { svg: svg.toString(), width, height, scale };
}

/**
 * Vertical centres for labels that want to sit at `wanted`, at least `gap` apart and within [min, max]: pushed
 * down in order, then back up from the bottom if the last went past `max`.
 */
export function spreadApart(wanted: number[], gap: number, min: number, max: number): number[] {
  const order = wanted.map((_, i) => i).sort((a, b) => wanted[a]! - wanted[b]! || a - b);
  const placed = new Array<number>(wanted.length);
  let previous = Number.NEGATIVE_INFINITY;
  for (const i of order) {
    previous = Math.max(wanted[i]!, previous + gap, min);
    placed[i] = previous;
  }
  let next = Number.POSITIVE_INFINITY;
  for (const i of [...order].reverse()) {
    next = Math.min(placed[i]!, next - gap, max);
    placed[i] = next;
  }
  return placed;
}

/** A colour swatch and the name of each series, in rows that wrap; returns the y below the legend. */
function drawLegend(svg: SvgWriter, series: { name: string; colour: string }[], top: number, width: number) {
  let x = PAD;
  let baseline = top + ASCENT;
  for (const s of series) {
    const name = truncate(s.name, width - 2 * PAD - LEGEND_SWATCH - 6, LABEL_SIZE);
    const w = LEGEND_SWATCH + 6 + textWidth(name, LABEL_SIZE);
    if (x > PAD && x + w > width - PAD) {
      x = PAD;
      baseline += LEGEND_ROW;
    }
    svg.rect(svg.snap(x), svg.snap(baseline - MID_TO_BASELINE - 1.5), LEGEND_SWATCH, 3, s.colour);
    svg.text(x + LEGEND_SWATCH + 6, baseline, name);
    x += w + 18;
  }
  return baseline + DESCENT + 8;
}

function hbarsChart(spec: HbarsSpec, frame: Frame): ChartLayout {
  const { width, scale } = frame;
  const n = spec.categories.length;
  const titleText = cleanLabel(spec.title);
  const top = titleText === '' ? PAD : TITLE_BAND;
  const rows = Math.max(1, n);
  const height = frame.height ?? Math.max(SIZE_LIMITS.height.min, top + rows * HBAR_ROW + 8);
  checkDeviceSize('hbars', width, height, scale, frame.height === undefined ? ` for ${n} categories` : '');
  const svg = new SvgWriter(width, height, scale);
  drawTitle(svg, spec.title, width);
  const row = Math.min(HBAR_ROW * 2, (height - top - 8) / rows);
  const thickness = Math.max(1, Math.min(HBAR_THICKNESS, row - 6));
  const values = [...spec.values];

  const names = spec.categories.map(cleanLabel);
  const column = Math.min(
    Math.max(0, ...names.map((c) => textWidth(c, LABEL_SIZE))),
    Math.round((width - 2 * PAD) * 0.38),
  );
  const left = PAD + (column > 0 ? column + 10 : 0);
  const end = width - PAD;
  const maxLabel = Math.round((width - 2 * PAD) * 0.4);
  const labels = values.map((v, i) =>
    truncate(cleanLabel(spec.valueLabels?.[i] ?? formatValue(v, 'count')), maxLabel, LABEL_SIZE),
  );
  const widths = labels.map((l) => textWidth(l, LABEL_SIZE));
  const lo = Math.min(0, ...values);
  let hi = Math.max(0, ...values);
  if (lo === hi) hi = 1;
  // Shorten the bars' range so the labels of the longest bars fit outside them, down to 60 % of the room.
  let right = end;
  values.forEach((v, i) => {
    const share = (v - lo) / (hi - lo);
    if (v > 0 && share > 0) right = Math.min(right, left + (end - 5 - widths[i]! - left) / share);
  });
  right = Math.max(right, left + 0.6 * (end - left));
  const x = scaleLinear().domain([lo, hi]).range([left, right]);
  const x0 = x(0);

  values.forEach((v, i) => {
    const centre = top + row * (i + 0.5);
    const baseline = centre + MID_TO_BASELINE;
    svg.text(PAD, baseline, truncate(names[i]!, column, LABEL_SIZE));
    if (v !== 0) {
      const [a, b] = v > 0 ? [x0, Math.max(x(v), x0 + 1)] : [Math.min(x(v), x0 - 1), x0];
      svg.rect(
        svg.snap(a),
        svg.snap(centre - thickness / 2),
        svg.snap(b) - svg.snap(a),
        svg.snap(thickness),
        v > 0 ? C.bar : C.negative,
      );
    }
    const tip = v > 0 ? x(v) : x0;
    const w = widths[i]!;
    if (tip + 5 + w <= end || w + 10 > Math.abs(x(v) - x0)) {
      svg.text(tip + 5, baseline, truncate(labels[i]!, end - tip - 5, LABEL_SIZE));
    } else {
      svg.text(tip - 5, baseline, labels[i]!, { anchor: 'end', fill: C.onBar });
    }
  });
  if (n > 0) svg.vrule(x0, top, top + row * n, C.axis);
  return { svg: svg.toString(), width, height, scale };
}
