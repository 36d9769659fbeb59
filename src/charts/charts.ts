/**
 * Chart specs → PNG bytes for the digest email (inline CID images, drawn at 2×). No text is drawn: titles, labels
 * and exact values are HTML around the image, and the alt text carries the headline number. Every chart draws its
 * zero line, so empty or all-zero data still gives a valid, visibly "empty" chart rather than a broken image.
 */
import { Canvas, type Point } from './canvas.ts';
import { encodePng } from './png.ts';
import { linear, niceDomain } from './scale.ts';
import { type ChartSpec, type LineSeries, CHART_PALETTE as PALETTE, type RenderedChart, resolveFrame } from './spec.ts';

// Layout in CSS pixels (multiplied by the scale).
const TOP_ROOM = 4;
const BAR_SHARE = 0.72;
const MAX_BAR_WIDTH = 48;
const MAX_HBAR_HEIGHT = 28;
const LINE_WIDTH = 2;
const DOT_RADIUS = 3.5;
/** The area under a line: its colour at 20 % opacity. */
const AREA_ALPHA = '33';

export function renderChart(spec: ChartSpec): RenderedChart {
  const frame = resolveFrame(spec);
  const s = frame.scale;
  const canvas = new Canvas(frame.width * s, frame.height * s, frame.background);
  switch (spec.kind) {
    case 'bars':
      drawColumns(canvas, s, spec.values, { adjoining: false, highlightLast: spec.highlightLast ?? false });
      break;
    case 'histogram':
      drawColumns(canvas, s, spec.values, { adjoining: true, highlightLast: false });
      break;
    case 'line':
      drawLines(canvas, s, spec.series, {
        grid: true,
        includeZero: spec.includeZero ?? true,
        markLast: spec.markLast ?? true,
      });
      break;
    case 'sparkline': {
      const series = { values: spec.values, color: spec.color ?? PALETTE.bar, area: spec.area ?? false };
      drawLines(canvas, s, [series], { grid: false, includeZero: false, markLast: true });
      break;
    }
    case 'hbars':
      drawHbars(canvas, s, spec.values);
      break;
  }
  return { png: encodePng(canvas), width: frame.width, height: frame.height };
}

/** Gridlines at the ticks except zero, which gets the darker baseline drawn over the data. */
function drawGrid(canvas: Canvas, s: number, ticks: readonly number[], y: (v: number) => number): void {
  for (const t of ticks) if (t !== 0) canvas.hline(y(t), PALETTE.grid, s);
}

/** Vertical bars from zero: separate bars (weekly counts) or adjoining ones (histogram bins). */
function drawColumns(
  canvas: Canvas,
  s: number,
  values: readonly number[],
  style: { adjoining: boolean; highlightLast: boolean },
): void {
  const domain = niceDomain(values, true);
  // One scale unit of room at the bottom keeps the whole baseline inside the image.
  const y = linear(domain, canvas.height - s, TOP_ROOM * s);
  drawGrid(canvas, s, domain.ticks, y);
  const slot = canvas.width / Math.max(1, values.length);
  // Whole device pixels for every bar, so all bars are equally wide and have crisp sides.
  const barWidth = Math.max(1, Math.round(Math.min(slot * BAR_SHARE, MAX_BAR_WIDTH * s)));
  const separator = slot >= 4 * s ? s : 0;
  values.forEach((v, i) => {
    const x0 = style.adjoining ? Math.round(slot * i) : Math.round(slot * (i + 0.5) - barWidth / 2);
    const x1 = style.adjoining ? Math.max(x0 + 1, Math.round(slot * (i + 1)) - separator) : x0 + barWidth;
    const muted = style.highlightLast && i < values.length - 1;
    const colour = v < 0 ? (muted ? PALETTE.mutedNegative : PALETTE.negative) : muted ? PALETTE.mutedBar : PALETTE.bar;
    canvas.fillRect(x0, y(0), x1 - x0, y(v) - y(0), colour);
  });
  canvas.hline(y(0), PALETTE.axis, s);
}

/** Series over the same periods; index i of every series sits at the same x. */
function drawLines(
  canvas: Canvas,
  s: number,
  series: readonly LineSeries[],
  style: { grid: boolean; includeZero: boolean; markLast: boolean },
): void {
  const periods = Math.max(0, ...series.map((line) => line.values.length));
  const domain = niceDomain(
    series.flatMap((line) => line.values),
    style.includeZero,
  );
  // Room for the dot and the line's half width at every edge.
  const inset = (DOT_RADIUS + 1) * s;
  const left = inset;
  const right = canvas.width - inset;
  const y = linear(domain, canvas.height - inset, inset);
  const x = (i: number) => (periods <= 1 ? canvas.width / 2 : left + (i * (right - left)) / (periods - 1));
  const base = y(Math.min(domain.hi, Math.max(domain.lo, 0)));
  if (style.grid) drawGrid(canvas, s, domain.ticks, y);
  const lines = series.map((line, k) => ({
    colour: line.color ?? PALETTE.series[k % PALETTE.series.length]!,
    area: line.area ?? false,
    points: line.values.map((v, i): Point => ({ x: x(i), y: y(v) })),
  }));
  for (const { colour, area, points } of lines) {
    if (!area || points.length < 2) continue;
    const closing = [
      { x: points.at(-1)!.x, y: base },
      { x: points[0]!.x, y: base },
    ];
    canvas.fillPolygon([...points, ...closing], `${colour.slice(0, 7)}${AREA_ALPHA}`);
  }
  if (style.grid || periods === 0) canvas.hline(base, PALETTE.axis, s);
  for (const { colour, points } of lines) canvas.strokePolyline(points, LINE_WIDTH * s, colour);
  if (!style.markLast) return;
  for (const { colour, points } of lines) {
    const last = points.at(-1);
    if (last) canvas.fillCircle(last.x, last.y, DOT_RADIUS * s, colour);
  }
}

/** One horizontal bar per row from a vertical zero line, first value on top. */
function drawHbars(canvas: Canvas, s: number, values: readonly number[]): void {
  const domain = niceDomain(values, true);
  // One scale unit of room on each side keeps the zero line inside the image.
  const x = linear(domain, s, canvas.width - s);
  const row = canvas.height / Math.max(1, values.length);
  const barHeight = Math.max(1, Math.round(Math.min(row * BAR_SHARE, MAX_HBAR_HEIGHT * s)));
  values.forEach((v, i) => {
    const y0 = Math.round(row * (i + 0.5) - barHeight / 2);
    canvas.fillRect(x(0), y0, x(v) - x(0), barHeight, v < 0 ? PALETTE.negative : PALETTE.bar);
  });
  canvas.fillRect(Math.round(x(0) - s / 2), 0, s, canvas.height, PALETTE.axis);
}
