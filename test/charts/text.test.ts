/** Labels and numbers: cleaning, escaping, truncation by measured width, fixed en-US formats, label spreading. */
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../src/charts/fonts.ts';
import { spreadApart } from '../../src/charts/svg.ts';
import { cleanLabel, escapeXml, formatTick, formatValue, truncate } from '../../src/charts/text.ts';

describe('cleanLabel and escapeXml', () => {
  it('remove controls and bidi overrides, repair lone surrogates and collapse whitespace', () => {
    expect(cleanLabel('  a\u202Eb\u202Dc\u202Ad\u202Be\u202Cf\u2066g\u2067h\u2068i\u2069  ')).toBe('abcdefghi');
    expect(cleanLabel('one\ttwo\r\nthree\u0000\u0007\u001b\u007f\u0085\u009f four')).toBe('one two three four');
    expect(cleanLabel('x\uD800y\uDC00z\uFFFE\uFFFF')).toBe('x\uFFFDy\uFFFDz');
    // RTL letters and the implicit marks stay: the renderer runs the bidi algorithm.
    expect(cleanLabel('שלום \u200F مرحبا')).toBe('שלום \u200F مرحبا');
    expect(cleanLabel('😀 e\u0301')).toBe('😀 e\u0301');
  });

  it('escape the five XML specials', () => {
    expect(escapeXml(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;',
    );
  });
});

describe('truncate', () => {
  it('keeps text that fits and cuts the rest at a grapheme with "…", within the width', () => {
    expect(truncate('Germany', 200, 13)).toBe('Germany');
    const long = 'United Kingdom of Great Britain and Northern Ireland';
    const cut = truncate(long, 120, 13);
    expect(cut.endsWith('…')).toBe(true);
    expect(long.startsWith(cut.slice(0, -1))).toBe(true);
    expect(textWidth(cut, 13)).toBeLessThanOrEqual(120);
    expect(textWidth(truncate(long, 120, 13, true), 13, true)).toBeLessThanOrEqual(120);
    // One more character would not fit.
    expect(textWidth(`${long.slice(0, cut.length)}…`, 13)).toBeGreaterThan(120);
    // Never splits a surrogate pair or a combining sequence; no space before the ellipsis.
    expect(truncate('😀😀😀😀😀😀😀😀😀😀', 40, 13)).toMatch(/^(😀)+…$/);
    expect(truncate('e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301', 25, 13)).toMatch(/^(e\u0301)+…$/);
    expect(truncate('ab cdefghijklmnop', textWidth('ab …', 13) + 1, 13)).toBe('ab…');
    expect(truncate('anything', 1, 13)).toBe('');
  });
});

describe('number formats', () => {
  it('labels counts with en-US grouping and percentages with one decimal', () => {
    expect([1204, 0, -0, 1234567, 2.5, -1500].map((v) => formatValue(v))).toEqual([
      '1,204',
      '0',
      '0',
      '1,234,567',
      '2.5',
      '-1,500',
    ]);
    expect([61, 45.55, 0, -0.01, 100].map((v) => formatValue(v, 'percent'))).toEqual([
      '61.0%',
      '45.6%',
      '0.0%',
      '0.0%',
      '100.0%',
    ]);
  });

  it('gives ticks the decimals their step needs', () => {
    expect([0, 500, 1500].map((t) => formatTick(t, 500))).toEqual(['0', '500', '1,500']);
    expect([0, 20, 60].map((t) => formatTick(t, 20, 'percent'))).toEqual(['0%', '20%', '60%']);
    expect([60, 60.5, 61].map((t) => formatTick(t, 0.5, 'percent'))).toEqual(['60.0%', '60.5%', '61.0%']);
    expect(formatTick(0.30000000000000004, 0.10000000000000003)).toBe('0.3');
    expect(formatTick(-0, 1)).toBe('0');
  });
});

describe('spreadApart', () => {
  it('leaves labels that do not collide, pushes close ones apart and keeps them within bounds', () => {
    expect(spreadApart([10, 50, 90], 15, 0, 100)).toEqual([10, 50, 90]);
    expect(spreadApart([50, 52], 15, 0, 100)).toEqual([50, 65]);
    // In input order, whatever the order of the wanted positions.
    expect(spreadApart([52, 50], 15, 0, 100)).toEqual([65, 50]);
    expect(spreadApart([98, 99, 100], 15, 0, 100)).toEqual([70, 85, 100]);
    expect(spreadApart([-5], 15, 0, 100)).toEqual([0]);
  });
});
