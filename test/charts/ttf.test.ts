/**
 * The TTF reader: cmap formats 4 and 12, hmtx with a shared tail advance and unitsPerEm, on tiny fonts built here
 * byte by byte (so every number is known), then on the bundled DejaVu Sans Condensed against what resvg draws.
 */
import { describe, expect, it } from 'vitest';
import { chartFonts } from '../../src/charts/fonts.ts';
import { readTtf, TtfError } from '../../src/charts/ttf.ts';

/** Big-endian writer. */
class Bytes {
  readonly out: number[] = [];
  u16(...vs: number[]): this {
    for (const v of vs) this.out.push((v >> 8) & 255, v & 255);
    return this;
  }
  i16(v: number): this {
    return this.u16(v & 0xffff);
  }
  u32(...vs: number[]): this {
    for (const v of vs) this.out.push((v >>> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255);
    return this;
  }
}

/**
 * A font of 8 glyphs, unitsPerEm 1000, advances 500, 600, 700, 800 (numberOfHMetrics 4: glyphs 4–7 share 800).
 * Format 4: A–C → glyphs 1–3 by delta; α, β → glyphs 4, 5 through glyphIdArray. Format 12: A–C → 1–3, 😀 → 6.
 */
function tinyFont(cmapFormats: (4 | 12)[]): Uint8Array {
  const head = new Bytes().u32(0x00010000, 0, 0, 0x5f0f3cf5).u16(0, 1000);
  while (head.out.length < 54) head.out.push(0);
  const hhea = new Bytes().u32(0x00010000);
  while (hhea.out.length < 34) hhea.out.push(0);
  hhea.u16(4);
  const maxp = new Bytes().u32(0x00005000).u16(8);
  const hmtx = new Bytes();
  for (const a of [500, 600, 700, 800]) hmtx.u16(a, 0);
  for (let i = 4; i < 8; i++) hmtx.u16(0);

  const format4 = () => {
    // Segments: A–C (delta), α–β (glyphIdArray), 0xFFFF terminator.
    const segCount = 3;
    const b = new Bytes().u16(4, 0, 0, segCount * 2, 4, 1, 2);
    b.u16(0x43, 0x3b2, 0xffff, 0); // endCode, reservedPad
    b.u16(0x41, 0x3b1, 0xffff); // startCode
    b.i16(1 - 0x41)
      .i16(0)
      .i16(1); // idDelta
    // idRangeOffset: segment 1 points at glyphIdArray[0], which starts right after the 3 offsets (2 bytes away × 2).
    b.u16(0, 4, 0);
    b.u16(4, 5); // glyphIdArray
    b.out[2] = (b.out.length >> 8) & 255;
    b.out[3] = b.out.length & 255;
    return b.out;
  };
  const format12 = () => {
    const groups = [
      [0x41, 0x43, 1],
      [0x1f600, 0x1f600, 6],
    ];
    const b = new Bytes().u16(12, 0).u32(16 + groups.length * 12, 0, groups.length);
    for (const g of groups) b.u32(...g);
    return b.out;
  };
  const subtables = cmapFormats.map((f) => (f === 4 ? format4() : format12()));
  const cmap = new Bytes().u16(0, subtables.length);
  let offset = 4 + subtables.length * 8;
  cmapFormats.forEach((f, i) => {
    cmap.u16(3, f === 4 ? 1 : 10).u32(offset);
    offset += subtables[i]!.length;
  });
  for (const s of subtables) cmap.out.push(...s);

  const tables: [string, number[]][] = [
    ['cmap', cmap.out],
    ['head', head.out],
    ['hhea', hhea.out],
    ['hmtx', hmtx.out],
    ['maxp', maxp.out],
  ];
  const font = new Bytes().u32(0x00010000).u16(tables.length, 0, 0, 0);
  const at = 12 + tables.length * 16;
  const bodies: number[] = [];
  for (const [tag, body] of tables) {
    font.out.push(...Array.from(tag, (c) => c.charCodeAt(0)));
    font.u32(0, at + bodies.length, body.length);
    bodies.push(...body);
    while (bodies.length % 4) bodies.push(0);
  }
  return Uint8Array.from([...font.out, ...bodies]);
}

describe('readTtf', () => {
  it('reads cmap format 4 (delta and glyphIdArray segments), hmtx and unitsPerEm', () => {
    const f = readTtf(tinyFont([4]));
    expect([f.unitsPerEm, f.numGlyphs]).toEqual([1000, 8]);
    expect(['A', 'B', 'C', 'D', 'α', 'β', 'γ'].map((c) => f.glyphIndex(c.codePointAt(0)!))).toEqual([
      1, 2, 3, 0, 4, 5, 0,
    ]);
    expect(f.advance('A'.codePointAt(0)!)).toBe(600);
    // β is glyph 5, past numberOfHMetrics: the last advance, 800. A missing glyph is .notdef's 500.
    expect(f.advance('β'.codePointAt(0)!)).toBe(800);
    expect(f.advance('Z'.codePointAt(0)!)).toBe(500);
    expect(f.textWidth('ABβ', 10)).toBeCloseTo(((600 + 700 + 800) * 10) / 1000, 10);
    // A code point beyond the BMP is two UTF-16 units but one glyph (here .notdef).
    expect(f.textWidth('😀', 10)).toBe(5);
  });

  it('prefers format 12, which reaches beyond the BMP', () => {
    const f = readTtf(tinyFont([4, 12]));
    expect(f.glyphIndex(0x1f600)).toBe(6);
    expect(f.advance(0x1f600)).toBe(800);
    expect(f.glyphIndex('C'.codePointAt(0)!)).toBe(3);
    expect(readTtf(tinyFont([12])).textWidth('A😀', 1)).toBeCloseTo(1.4, 10);
  });

  it('refuses what it cannot read, with a TtfError', () => {
    expect(() => readTtf(new TextEncoder().encode('wOF2 not a font at all'))).toThrow(TtfError);
    const dejavu = chartFonts().regular.bytes;
    expect(() => readTtf(dejavu.subarray(0, 400))).toThrow(TtfError);
    expect(() => readTtf(new Uint8Array(0))).toThrow(/truncated/);
  });

  it('reads DejaVu Sans Condensed: 2048 units per em, Latin, Greek, Cyrillic, Hebrew and Arabic glyphs', () => {
    const { regular, bold } = chartFonts();
    for (const f of [regular.metrics, bold.metrics]) {
      expect(f.unitsPerEm).toBe(2048);
      for (const ch of 'AzÖ€αЖשع…') expect(f.glyphIndex(ch.codePointAt(0)!), ch).toBeGreaterThan(0);
      // Digits share one advance, so numbers line up.
      expect(new Set(Array.from('0123456789', (d) => f.advance(d.codePointAt(0)!))).size).toBe(1);
    }
    expect(regular.metrics.glyphIndex('中'.codePointAt(0)!)).toBe(0);
    // Bold is wider than regular.
    expect(bold.metrics.textWidth('Active clients', 16)).toBeGreaterThan(
      regular.metrics.textWidth('Active clients', 16),
    );
  });
});
