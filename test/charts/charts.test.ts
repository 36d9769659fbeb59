import { describe, expect, it } from 'vitest';
import {
  CHART_CHROME,
  CHART_PALETTE,
  type ChartSpec,
  decodePng,
  isBlank,
  renderChart,
} from '../../src/charts/index.ts';
import { colourAt, colourCounts, columnOf, runsOf } from './pixels.ts';
import { inspectWithPython } from './python-png.ts';

const render = (spec: ChartSpec) => {
  const chart = renderChart(spec);
  return { ...chart, image: decodePng(chart.png) };
};
/** Heights (or widths) proportional to `values`, within `slack` pixels of rounding and anti-aliasing. */
function expectProportional(lengths: number[], values: number[], slack: number): void {
  const k = Math.max(...lengths) / Math.max(...values);
  for (const [i, len] of lengths.entries()) expect(Math.abs(len - values[i]! * k)).toBeLessThanOrEqual(slack);
}

const ONE_OF_EACH: ChartSpec[] = [
  { kind: 'bars', values: [120, 340, 280, 410, 390, 150, 460, 500, 530], highlightLast: true },
  { kind: 'line', series: [{ values: [4100, 4150, 4120, 4210, 4300, 4280, 4350, 4400, 4210], area: true }] },
  { kind: 'hbars', values: [5400, 3100, 1200, 800, 120] },
  { kind: 'histogram', values: [3, 9, 14, 20, 17, 11, 6, 2, 1, 0, 1] },
  { kind: 'sparkline', values: [5, 7, 6, 9, 12, 10, 14] },
];

describe('renderChart', () => {
  it('renders every kind at twice its CSS size, with the documented default sizes', () => {
    const sizes = ONE_OF_EACH.map((spec) => {
      const { width, height, image } = render(spec);
      expect([image.width, image.height]).toEqual([width * 2, height * 2]);
      return [spec.kind, width, height];
    });
    expect(sizes).toEqual([
      ['bars', 560, 160],
      ['line', 560, 160],
      ['hbars', 560, 5 * 24],
      ['histogram', 560, 160],
      ['sparkline', 120, 32],
    ]);
    const custom = render({ kind: 'bars', values: [1, 2], width: 300, height: 90, scale: 3 });
    expect([custom.width, custom.height, custom.image.width, custom.image.height]).toEqual([300, 90, 900, 270]);
  });

  it('writes PNGs that Python parses: every CRC valid, IHDR at the 2× size', () => {
    for (const spec of ONE_OF_EACH) {
      const chart = renderChart({ ...spec, width: 150, height: 40 });
      const report = inspectWithPython(chart.png);
      expect(report.chunks.every((c) => c.crcOk)).toBe(true);
      expect([report.width, report.height, report.bitDepth, report.colourType]).toEqual([300, 80, 8, 6]);
    }
  });

  it('is deterministic: the same spec gives the same bytes', () => {
    for (const spec of ONE_OF_EACH) {
      expect(Buffer.from(renderChart(structuredClone(spec)).png).equals(Buffer.from(renderChart(spec).png))).toBe(true);
    }
  });

  it('draws bars whose heights are proportional to the values, the last one highlighted', () => {
    const values = [10, 25, 40, 5, 30];
    const { image } = render({ kind: 'bars', values, highlightLast: true });
    const muted = runsOf(image, [CHART_PALETTE.mutedBar], 'x');
    const highlighted = runsOf(image, [CHART_PALETTE.bar], 'x');
    expect(muted).toHaveLength(4);
    expect(highlighted).toHaveLength(1);
    expect(highlighted[0]!.from).toBeGreaterThan(muted[3]!.to);
    // Bars stand on the same baseline, equally wide.
    const bars = [...muted, ...highlighted];
    expect(new Set(bars.map((b) => b.max)).size).toBe(1);
    expect(new Set(bars.map((b) => b.to - b.from)).size).toBe(1);
    expectProportional(
      bars.map((b) => b.length),
      values,
      2,
    );
  });

  it('draws negative bars below the zero line, in their own colour', () => {
    const { image } = render({ kind: 'bars', values: [30, -20, 10] });
    const up = runsOf(image, [CHART_PALETTE.bar], 'x');
    const down = runsOf(image, [CHART_PALETTE.negative], 'x');
    expect(up).toHaveLength(2);
    expect(down).toHaveLength(1);
    expect(down[0]!.min).toBeGreaterThan(Math.max(...up.map((b) => b.max)));
    expectProportional([up[0]!.length, down[0]!.length, up[1]!.length], [30, 20, 10], 2);
    const axis = runsOf(image, [CHART_PALETTE.axis], 'y');
    expect(axis).toHaveLength(1);
    expect(axis[0]!.from).toBeGreaterThan(up[0]!.max - 2);
    expect(axis[0]!.to).toBeLessThan(down[0]!.min + 2);
  });

  it('draws histogram bins side by side, separated by one CSS pixel', () => {
    const values = [4, 8, 15, 16, 23, 42, 11];
    const { image } = render({ kind: 'histogram', values });
    const bins = runsOf(image, [CHART_PALETTE.bar], 'x');
    expect(bins).toHaveLength(values.length);
    for (let i = 1; i < bins.length; i++) expect(bins[i]!.from - bins[i - 1]!.to - 1).toBe(2);
    expectProportional(
      bins.map((b) => b.length),
      values,
      2,
    );
  });

  it('draws horizontal bars with lengths proportional to the values, first value on top', () => {
    const values = [5400, 3100, 1200, 800, 120];
    const { image } = render({ kind: 'hbars', values });
    const rows = runsOf(image, [CHART_PALETTE.bar], 'y');
    expect(rows).toHaveLength(values.length);
    expectProportional(
      rows.map((r) => r.length),
      values,
      2,
    );
  });

  it('draws a line that rises with the values, its area, each series in its colour and a dot on the last point', () => {
    const rising = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    const { image } = render({ kind: 'line', series: [{ values: rising, area: true }, { values: [5, 5, 5, 5] }] });
    const [first, second] = CHART_PALETTE.series;
    const line = runsOf(image, [first], 'x');
    expect(line).toHaveLength(1);
    const mid = image.width / 2;
    const [left, middle, right] = [40, mid, image.width - 40].map((x) => columnOf(image, x, [first]));
    expect(left!.top).toBeGreaterThan(middle!.top);
    expect(middle!.top).toBeGreaterThan(right!.top);
    // Below the line: the area tint, not the background; above it: background.
    expect(colourAt(image, mid, middle!.bottom + 30)).not.toBe(CHART_PALETTE.background);
    expect(colourAt(image, mid, middle!.top - 30)).toBe(CHART_PALETTE.background);
    expect(colourCounts(image).get(second)).toBeGreaterThan(100);
    // The dot on the last point is much taller than the line is thick.
    const lastPoint = columnOf(image, line[0]!.to - 7, [first]);
    expect(lastPoint.count).toBeGreaterThan(2 * middle!.count);
  });

  it('still draws the zero line for empty or all-zero data, and nothing else', () => {
    const specs: ChartSpec[] = [
      { kind: 'bars', values: [] },
      { kind: 'bars', values: [0, 0, 0] },
      { kind: 'line', series: [] },
      { kind: 'line', series: [{ values: [] }] },
      { kind: 'hbars', values: [] },
      { kind: 'histogram', values: [0, 0] },
      { kind: 'sparkline', values: [] },
    ];
    for (const spec of specs) {
      const { png, image } = render(spec);
      expect(isBlank(png)).toBe(false);
      expect(isBlank(image, { ignore: CHART_CHROME })).toBe(true);
      expect(colourCounts(image).get(CHART_PALETTE.axis)).toBeGreaterThan(0);
    }
  });

  it('has data ink for any data', () => {
    for (const spec of [...ONE_OF_EACH, { kind: 'line', series: [{ values: [3] }] } as const]) {
      expect(isBlank(renderChart(spec).png, { ignore: CHART_CHROME })).toBe(false);
    }
  });
});

describe('renderChart refuses bad specs, naming the field', () => {
  const cases: [string, unknown, RegExp][] = [
    ['NaN', { kind: 'bars', values: [1, Number.NaN] }, /bars: values\[1\] is NaN; chart values must be finite/],
    ['Infinity', { kind: 'hbars', values: [Number.POSITIVE_INFINITY] }, /hbars: values\[0\] is Infinity/],
    [
      '-Infinity in a series',
      { kind: 'line', series: [{ values: [1] }, { values: [2, Number.NEGATIVE_INFINITY] }] },
      /line: series\[1\]\.values\[1\] is -Infinity/,
    ],
    ['a string', { kind: 'histogram', values: [1, '2'] }, /histogram: values\[1\] is 2; chart values must be finite/],
    ['no values', { kind: 'bars' }, /bars: values must be an array/],
    ['no series', { kind: 'line', values: [1] }, /line: series must be an array/],
    ['too many values', { kind: 'bars', values: new Array(2001).fill(1) }, /2001 values; at most 2000/],
    ['a huge value', { kind: 'bars', values: [1e300] }, /values\[0\] is 1e\+300; beyond/],
    ['an unknown kind', { kind: 'pie', values: [1] }, /chart kind "pie" is not one of bars, line/],
    ['a zero width', { kind: 'bars', values: [1], width: 0 }, /bars: width must be an integer from 8 to 2000, got 0/],
    ['a fractional scale', { kind: 'bars', values: [1], scale: 1.5 }, /bars: scale must be an integer from 1 to 4/],
    ['a bad colour', { kind: 'line', series: [{ values: [1], color: 'red' }] }, /series\[0\]\.color must be #rrggbb/],
    ['a bad background', { kind: 'bars', values: [1], background: '#fff' }, /bars: background must be #rrggbb/],
  ];
  it.each(cases)('%s', (_, spec, message) => {
    expect(() => renderChart(spec as ChartSpec)).toThrow(message);
    expect(() => renderChart(spec as ChartSpec)).toThrow(expect.objectContaining({ name: 'ChartSpecError' }));
  });
});
