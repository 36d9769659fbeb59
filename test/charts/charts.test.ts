/**
 * The chart renderer end to end: every kind renders to an opaque PNG of CSS size × scale with its data, its title
 * and its axis labels in ink where they belong; blank detection; hostile labels; validation; concurrency.
 */
import { describe, expect, it } from 'vitest';
import {
  type BarsSpec,
  CHART_PALETTE,
  type ChartSpec,
  ChartSpecError,
  chartSvg,
  decodePng,
  type HbarsSpec,
  isBlank,
  type LinesSpec,
  PngDecodeError,
  renderChart,
} from '../../src/charts/index.ts';
import { countPixels, isColour, isTextInk, notWhite } from './images.ts';

const WEEKS = ['W40', 'W41', 'W42', 'W43', 'W44', 'W45', 'W46', 'W47', 'W48'];
const BARS: BarsSpec = {
  kind: 'bars',
  title: 'Active clients per week',
  categories: WEEKS,
  values: [3120, 3340, 3280, 3410, 3390, 3150, 3460, 3500, 3530],
  highlightLast: true,
};
const LINES: LinesSpec = {
  kind: 'lines',
  title: 'New and lost clients per week',
  categories: WEEKS,
  series: [
    { name: 'New', values: [900, 1200, 800, 1300, 1000, 950, 1400, 1500, 1210], area: true },
    { name: 'Lost', values: [700, 650, 900, 1000, 1100, 950, 800, 1300, 1200] },
  ],
};
const HBARS: HbarsSpec = {
  kind: 'hbars',
  title: 'Active clients by version',
  categories: ['4.2.1', '4.2.0', '4.1.7', '3.9.12', 'other'],
  values: [5400, 3100, 1200, 800, 120],
  valueLabels: ['5,400 (50.0%)', '3,100 (28.7%)', '1,200 (11.1%)', '800 (7.4%)', '120 (1.1%)'],
};
const KINDS: ChartSpec[] = [BARS, LINES, HBARS];

/** CSS px: the title band, and the band of x labels under the plot (see svg.ts). */
const TITLE_BAND = 36;
const X_LABEL_BAND = 28;

async function rendered(spec: ChartSpec) {
  const chart = await renderChart(spec);
  return { ...chart, image: decodePng(chart.png), scale: spec.scale ?? 2 };
}

/** The text elements of an SVG with their baseline y, unescaped. */
function texts(svg: string): { y: number; text: string }[] {
  return Array.from(svg.matchAll(/<text [^>]*?y="([-\d.]+)"[^>]*>([^<]*)<\/text>/g), (m) => ({
    y: Number(m[1]),
    text: m[2]!.replace(
      /&(amp|lt|gt|quot|apos);/g,
      (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!,
    ),
  }));
}

describe('renderChart', () => {
  it('renders every kind as an opaque PNG of CSS size × scale, with data in it', async () => {
    const sizes = [];
    for (const spec of KINDS) {
      const { width, height, image, png, svg } = await rendered(spec);
      expect([image.width, image.height], spec.kind).toEqual([width * 2, height * 2]);
      expect(
        countPixels(image, 2, { left: 0, top: 0, right: width, bottom: height }, (_r, _g, _b, a) => a !== 255),
      ).toBe(0);
      expect(isBlank(png), spec.kind).toBe(false);
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      sizes.push([spec.kind, width, height]);
    }
    // hbars: the title band, 26 px a row, 8 px below.
    expect(sizes).toEqual([
      ['bars', 552, 220],
      ['lines', 552, 220],
      ['hbars', 552, 36 + 5 * 26 + 8],
    ]);
    const custom = await rendered({ ...BARS, width: 300, height: 150, scale: 3 });
    expect([custom.width, custom.height, custom.image.width, custom.image.height]).toEqual([300, 150, 900, 450]);
    const tall = await rendered({ ...HBARS, height: 400, scale: 1 });
    expect([tall.image.width, tall.image.height]).toEqual([552, 400]);
  });

  it('draws text in the title band, under the plot (x labels) and left of it (y ticks)', async () => {
    for (const spec of [BARS, LINES]) {
      const { image, width, height } = await rendered(spec);
      const ink = (left: number, top: number, right: number, bottom: number) =>
        countPixels(image, 2, { left, top, right, bottom }, isTextInk);
      expect(ink(0, 0, width, TITLE_BAND), `${spec.kind} title`).toBeGreaterThan(200);
      expect(ink(0, height - X_LABEL_BAND, width, height), `${spec.kind} x labels`).toBeGreaterThan(300);
      expect(ink(0, TITLE_BAND, 44, height - X_LABEL_BAND), `${spec.kind} y ticks`).toBeGreaterThan(200);
    }
    const { image, height, width } = await rendered(HBARS);
    expect(countPixels(image, 2, { left: 0, top: 0, right: width, bottom: TITLE_BAND }, isTextInk)).toBeGreaterThan(
      200,
    );
    expect(countPixels(image, 2, { left: 0, top: TITLE_BAND, right: 60, bottom: height }, isTextInk)).toBeGreaterThan(
      300,
    );
  });

  it('labels every bar with its category and value, the y axis with round ticks', async () => {
    const { svg } = await renderChart(BARS);
    const shown = texts(svg).map((t) => t.text);
    for (const w of WEEKS) expect(shown).toContain(w);
    for (const v of ['3,120', '3,340', '3,530']) expect(shown).toContain(v);
    expect(shown).toEqual(expect.arrayContaining(['0', '1,000', '2,000', '3,000', '4,000']));
    const histogram = await renderChart({
      kind: 'bars',
      title: 'Active days',
      categories: ['1', '2-5', '6-20', '21+'],
      values: [12, 40, 7, 1],
    });
    expect(texts(histogram.svg).map((t) => t.text)).toEqual(expect.arrayContaining(['1', '2-5', '6-20', '21+', '40']));
  });

  it('highlights the last bar in the strong colour, the others muted', async () => {
    const { image } = await rendered(BARS);
    const all = { left: 0, top: 0, right: 552, bottom: 220 };
    const strong = countPixels(image, 2, all, isColour(CHART_PALETTE.bar));
    const muted = countPixels(image, 2, all, isColour(CHART_PALETTE.mutedBar));
    expect(strong).toBeGreaterThan(1000);
    // Eight muted bars, each about as large as the highlighted one.
    expect(muted / strong).toBeGreaterThan(6);
    expect(muted / strong).toBeLessThan(9);
    const plain = await rendered({ ...BARS, highlightLast: false });
    expect(countPixels(plain.image, 2, all, isColour(CHART_PALETTE.mutedBar))).toBe(0);
  });

  it('shows a legend for two series or more, and the last value of each series', async () => {
    const two = await rendered(LINES);
    const legend = { left: 0, top: TITLE_BAND, right: 200, bottom: TITLE_BAND + 20 };
    for (const colour of CHART_PALETTE.series.slice(0, 2)) {
      expect(countPixels(two.image, 2, legend, isColour(colour)), colour).toBeGreaterThan(40);
    }
    expect(countPixels(two.image, 2, legend, isTextInk)).toBeGreaterThan(100);
    const shown = texts(two.svg).map((t) => t.text);
    expect(shown).toEqual(expect.arrayContaining(['New', 'Lost', '1,210', '1,200']));
    // The two last values (1,210 and 1,200) are a few px apart on the axis; their labels are pushed apart.
    const lastLabels = texts(two.svg).filter((t) => t.text === '1,210' || t.text === '1,200');
    expect(Math.abs(lastLabels[0]!.y - lastLabels[1]!.y)).toBeGreaterThanOrEqual(13);

    const one = await renderChart({ ...LINES, series: [LINES.series[0]!] });
    expect(texts(one.svg).map((t) => t.text)).not.toContain('New');
  });

  it('puts an hbars value label inside its bar, in white, when it does not fit outside', async () => {
    const { svg } = await renderChart({
      ...HBARS,
      valueLabels: ['5,400 clients (50.0%), by far the largest share', ...HBARS.valueLabels!.slice(1)],
    });
    const inside = /<text [^>]*text-anchor="end"[^>]*fill="#ffffff"[^>]*>([^<]*)<\/text>/.exec(svg);
    // Truncated to 40 % of the width, still too long to fit beside the longest bar.
    expect(inside?.[1]).toMatch(/^5,400 clients \(50\.0%\), by .*…$/);
    // The others fit outside, in the text colour.
    expect(texts(svg).map((t) => t.text)).toEqual(expect.arrayContaining(['3,100 (28.7%)', '120 (1.1%)']));
    expect(svg.match(/<text [^>]*fill="#ffffff"/g)).toHaveLength(1);
  });

  it('formats percentages: "60%" on ticks, "45.5%" on labels', async () => {
    const { svg } = await renderChart({
      kind: 'lines',
      title: 'Retention',
      format: 'percent',
      categories: ['0', '1', '2', '3'],
      series: [{ name: 'Engaged', values: [100, 72.5, 58.25, 45.5], area: true }],
    });
    const shown = texts(svg).map((t) => t.text);
    expect(shown).toEqual(expect.arrayContaining(['0%', '20%', '60%', '100%', '45.5%']));
  });

  it('thins crowded category labels evenly, always keeping the last, and keeps the last value label', async () => {
    const categories = Array.from({ length: 52 }, (_, i) => `2026-W${String(i + 1).padStart(2, '0')}`);
    const values = categories.map((_, i) => 1000 + ((i * 7919) % 500));
    const { svg } = await renderChart({ kind: 'bars', title: 'A year', categories, values, highlightLast: true });
    const xLabels = texts(svg).filter((t) => t.y === 220 - 10);
    const indices = xLabels.map((t) => categories.indexOf(t.text));
    expect(indices.at(-1)).toBe(51);
    expect(indices.length).toBeGreaterThan(3);
    expect(indices.length).toBeLessThan(20);
    expect(new Set(indices.slice(1).map((x, i) => x - indices[i]!)).size).toBe(1);
    expect(texts(svg).map((t) => t.text)).toContain(values.at(-1)!.toLocaleString('en-US'));
  });

  it('keeps every pixel of ink inside the image, long labels included', async () => {
    const long = 'Ünïcödé-and-a-very-long-category-name-that-goes-on '.repeat(10);
    const specs: ChartSpec[] = [
      ...KINDS,
      { ...BARS, title: long, categories: WEEKS.map((w) => `${w} ${long}`) },
      { ...LINES, title: long, series: LINES.series.map((s) => ({ ...s, name: long })) },
      {
        ...HBARS,
        title: long,
        categories: HBARS.categories.map(() => long),
        valueLabels: HBARS.values.map(() => long),
      },
      { ...BARS, values: [-5, 3, -12, 0, 7, 1e12, -3, 2, 1] },
    ];
    for (const spec of specs) {
      const { image, width, height } = await rendered(spec);
      const edge = 2;
      const border =
        countPixels(image, 2, { left: 0, top: 0, right: width, bottom: edge }, notWhite) +
        countPixels(image, 2, { left: 0, top: height - edge, right: width, bottom: height }, notWhite) +
        countPixels(image, 2, { left: 0, top: 0, right: edge, bottom: height }, notWhite) +
        countPixels(image, 2, { left: width - edge, top: 0, right: width, bottom: height }, notWhite);
      expect(border, spec.kind).toBe(0);
    }
  });

  it('is deterministic: the same spec gives the same SVG and the same PNG bytes', async () => {
    for (const spec of KINDS) {
      const a = await renderChart(structuredClone(spec));
      const b = await renderChart(spec);
      expect(Buffer.from(a.png).equals(Buffer.from(b.png)), spec.kind).toBe(true);
      expect(a.svg).toBe(b.svg);
      expect(chartSvg(spec)).toBe(a.svg);
    }
  });

  it('renders many charts concurrently', async () => {
    const specs = Array.from({ length: 12 }, (_, i) => KINDS[i % 3]!);
    const together = await Promise.all(specs.map((s) => renderChart(s)));
    for (const [i, chart] of together.entries()) {
      expect(Buffer.from(chart.png).equals(Buffer.from((await renderChart(specs[i]!)).png))).toBe(true);
    }
  });
});

/** What cleanLabel removes (or, for lone surrogates, replaces). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters.
const UNWANTED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\ud800]/;

describe('labels from untrusted data', () => {
  const HOSTILE = [
    '<script>alert(1)</script>',
    'Tom & Jerry "quoted" \'single\'',
    ']]><!-- -->',
    'a\u202Eevil\u202C b\u2066isolated\u2069',
    'tab\tnew\nline\u0000nul\u0007bell\u007f\u0085',
    'lone \uD800 surrogate \uFFFE',
    'ישראל',
    'مصر',
    'x'.repeat(500),
  ];

  it('are escaped and cleaned, and the SVG stays well-formed', async () => {
    const specs: ChartSpec[] = [
      { kind: 'bars', title: HOSTILE[0]!, categories: HOSTILE, values: HOSTILE.map((_, i) => i + 1) },
      {
        kind: 'lines',
        title: HOSTILE[1]!,
        categories: HOSTILE,
        series: HOSTILE.slice(0, 3).map((name, k) => ({ name, values: HOSTILE.map((_, i) => i * k) })),
      },
      {
        kind: 'hbars',
        title: HOSTILE[2]!,
        categories: HOSTILE,
        values: HOSTILE.map((_, i) => 9 - i),
        valueLabels: HOSTILE,
      },
    ];
    for (const spec of specs) {
      const { svg, png } = await renderChart(spec);
      expect(svg).not.toMatch(/<script|<!--|]]>/);
      // Every "<" opens an element of ours, every "&" an entity.
      expect(svg.match(/<(?!\/?(svg|rect|text|path|circle)[ >])/g)).toBeNull();
      expect(svg.match(/&(?!(amp|lt|gt|quot|apos);)/g)).toBeNull();
      expect(svg.match(/<text /g)?.length).toBe(svg.match(/<\/text>/g)?.length);
      expect(svg).not.toMatch(UNWANTED);
      expect(isBlank(png)).toBe(false);
    }
    const shown = texts(chartSvg(specs[0]!)).map((t) => t.text);
    expect(shown).toContain('<script>alert(1)</script>');
  });

  it('render right-to-left names with ink, and truncate very long ones with an ellipsis', async () => {
    for (const name of ['ישראל', 'مصر', 'עברית and English 123']) {
      const { image, svg } = await rendered({ kind: 'hbars', title: '', categories: [name], values: [1] });
      expect(texts(svg).map((t) => t.text)).toContain(name);
      expect(countPixels(image, 2, { left: 0, top: 0, right: 100, bottom: 100 }, isTextInk), name).toBeGreaterThan(30);
    }
    const { svg } = await renderChart({ ...HBARS, categories: ['x'.repeat(500), ...HBARS.categories.slice(1)] });
    const label = texts(svg).find((t) => t.text.startsWith('xxx'))!.text;
    expect(label.endsWith('…')).toBe(true);
    expect(label.length).toBeLessThan(60);
  });
});

describe('CHART_PALETTE', () => {
  /** WCAG 2 contrast ratio of two #rrggbb colours. */
  function contrast(a: string, b: string): number {
    const luminance = (hex: string) => {
      const [r, g, bl] = [1, 3, 5].map((i) => {
        const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
    };
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi! + 0.05) / (lo! + 0.05);
  }

  it('has dark grey text of at least 4.5:1 on the white background, light gridlines, white inside bars', () => {
    expect(CHART_PALETTE.background).toBe('#ffffff');
    expect(contrast(CHART_PALETTE.text, CHART_PALETTE.background)).toBeGreaterThan(4.5);
    expect(contrast(CHART_PALETTE.grid, CHART_PALETTE.background)).toBeLessThan(1.3);
    expect(contrast(CHART_PALETTE.onBar, CHART_PALETTE.bar)).toBeGreaterThan(4.5);
  });
});

describe('isBlank', () => {
  it('is true when only text, gridlines and axes are drawn, false when data is', async () => {
    const zeros = await renderChart({ ...BARS, values: WEEKS.map(() => 0) });
    expect(isBlank(zeros.png)).toBe(true);
    // The zero chart still has its title, ticks and labels.
    expect(
      countPixels(decodePng(zeros.png), 2, { left: 0, top: 0, right: 552, bottom: 220 }, isTextInk),
    ).toBeGreaterThan(500);
    expect(isBlank((await renderChart({ ...HBARS, values: HBARS.values.map(() => 0) })).png)).toBe(true);
    expect(isBlank((await renderChart({ kind: 'lines', title: 'Nothing', categories: [], series: [] })).png)).toBe(
      true,
    );
    expect(
      isBlank(
        (
          await renderChart({
            kind: 'lines',
            title: 'Empty',
            categories: [],
            series: LINES.series.map((s) => ({ ...s, values: [] })),
          })
        ).png,
      ),
    ).toBe(true);
    expect(isBlank((await renderChart({ ...BARS, values: [0, 0, 0, 0, 0, 0, 0, 0, 1] })).png)).toBe(false);
    expect(isBlank((await renderChart({ ...BARS, values: [0, 0, 0, 0, 0, 0, 0, 0, -1] })).png)).toBe(false);
    expect(isBlank((await renderChart({ ...LINES, series: [{ name: 'one', values: WEEKS.map(() => 0) }] })).png)).toBe(
      false,
    );
  });

  it('refuses what is not a PNG', () => {
    expect(() => isBlank(new TextEncoder().encode('not a png'))).toThrow(PngDecodeError);
  });
});

describe('decodePng', () => {
  it('throws PngDecodeError for garbage, truncation and a bad CRC', async () => {
    const { png } = await renderChart(BARS);
    expect(() => decodePng(new Uint8Array(0))).toThrow(PngDecodeError);
    expect(() => decodePng(png.subarray(0, png.length - 20))).toThrow(/truncated/);
    const bad = png.slice();
    bad[40] = bad[40]! ^ 0xff;
    expect(() => decodePng(bad)).toThrow(/CRC/);
    const unsupported = png.slice(0, 8);
    expect(() => decodePng(unsupported)).toThrow(PngDecodeError);
  });
});

describe('spec validation', () => {
  const cases: [string, unknown, RegExp][] = [
    ['unknown kind', { ...BARS, kind: 'pie' }, /^kind is "pie"/],
    ['no title', { ...BARS, title: undefined }, /bars\.title must be a string/],
    ['a value not finite', { ...BARS, values: [1, 2, Number.NaN, 4, 5, 6, 7, 8, 9] }, /bars\.values\[2\] is NaN/],
    [
      'a value too large',
      { ...BARS, values: [...BARS.values.slice(0, 8), 2e15] },
      /bars\.values\[8\] is 2000000000000000; beyond/,
    ],
    [
      'a string value',
      { ...HBARS, values: [1, '2', 3, 4, 5] },
      /hbars\.values\[1\] is 2; chart values must be finite numbers/,
    ],
    ['lengths differ', { ...BARS, categories: WEEKS.slice(1) }, /bars\.values has 9 values for 8 categories/],
    [
      'a series too short',
      { ...LINES, series: [LINES.series[0], { name: 'b', values: [1] }] },
      /lines\.series\[1\]\.values has 1 values for 9 categories/,
    ],
    [
      'a series without a name',
      { ...LINES, series: [{ values: LINES.series[0]!.values }] },
      /lines\.series\[0\]\.name must be a string/,
    ],
    [
      'a category not a string',
      { ...BARS, categories: [...WEEKS.slice(0, 8), 48] },
      /bars\.categories\[8\] must be a string/,
    ],
    [
      'too many values',
      { ...BARS, categories: Array(2001).fill('x'), values: Array(2001).fill(1) },
      /bars\.categories has 2001 entries; at most 2000/,
    ],
    ['a fractional width', { ...BARS, width: 552.5 }, /bars\.width must be an integer from 200 to 2000, got 552\.5/],
    ['a height too small', { ...LINES, height: 20 }, /lines\.height must be an integer from 100 to 4000/],
    ['a scale of 0', { ...HBARS, scale: 0 }, /hbars\.scale must be an integer from 1 to 4/],
    [
      'too many device pixels',
      { ...BARS, width: 2000, height: 4000, scale: 2 },
      /bars\.width × height × scale² is 32000000 device pixels/,
    ],
    [
      'too many hbars rows',
      { ...HBARS, categories: Array(200).fill('x'), values: Array(200).fill(1), valueLabels: undefined },
      /hbars\.height would be 5244 px for 200 categories/,
    ],
    [
      'valueLabels of the wrong length',
      { ...HBARS, valueLabels: ['1'] },
      /hbars\.valueLabels has 1 labels for 5 categories/,
    ],
    ['an unknown format', { ...BARS, format: 'currency' }, /bars\.format is "currency"/],
    ['highlightLast not a boolean', { ...BARS, highlightLast: 'yes' }, /bars\.highlightLast must be true or false/],
    ['not an object', null, /chart spec must be an object/],
  ];
  it.each(cases)('names the field: %s', async (_name, spec, message) => {
    expect(() => chartSvg(spec as ChartSpec)).toThrow(ChartSpecError);
    expect(() => chartSvg(spec as ChartSpec)).toThrow(message);
    await expect(renderChart(spec as ChartSpec)).rejects.toThrow(message);
  });
});
