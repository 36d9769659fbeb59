/**
 * Just enough of a TrueType/OpenType reader to measure text the way the renderer will draw it: the character map
 * (cmap formats 4 and 12), the horizontal advances (hmtx, with hhea's numberOfHMetrics) and unitsPerEm (head).
 * Kerning and shaping are left out: layout keeps a few pixels of slack for them (see svg.ts).
 */

export class TtfError extends Error {
  override name = 'TtfError';
}

export interface FontMetrics {
  unitsPerEm: number;
  numGlyphs: number;
  /** The glyph of a code point; 0 (.notdef, drawn as a box) when the font has none. */
  glyphIndex(codePoint: number): number;
  /** The advance width of a code point's glyph in font units. */
  advance(codePoint: number): number;
  /** The width of `text` set at `size` px: the sum of the advances, no kerning. */
  textWidth(text: string, size: number): number;
}

interface CmapGroup {
  start: number;
  end: number;
  /** Maps a code point of the group to its glyph. */
  glyph: (codePoint: number) => number;
}

export function readTtf(bytes: Uint8Array): FontMetrics {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at: number) => checked(at, 2) && view.getUint16(at);
  const i16 = (at: number) => checked(at, 2) && view.getInt16(at);
  const u32 = (at: number) => checked(at, 4) && view.getUint32(at);
  function checked(at: number, size: number): true {
    if (at < 0 || at + size > bytes.length) throw new TtfError(`truncated font: read of ${size} bytes at ${at}`);
    return true;
  }

  const version = u32(0);
  if (version !== 0x00010000 && version !== 0x74727565 /* 'true' */ && version !== 0x4f54544f /* 'OTTO' */) {
    throw new TtfError('not a TrueType or OpenType font (a TTC or WOFF is not read)');
  }
  const tables = new Map<string, { offset: number; length: number }>();
  const numTables = u16(4);
  for (let i = 0; i < numTables; i++) {
    const at = 12 + i * 16;
    checked(at, 16);
    const tag = String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
    tables.set(tag, { offset: u32(at + 8), length: u32(at + 12) });
  }
  const table = (tag: string) => {
    const t = tables.get(tag);
    if (!t) throw new TtfError(`font has no ${tag} table`);
    checked(t.offset, t.length);
    return t.offset;
  };

  const unitsPerEm = u16(table('head') + 18);
  if (unitsPerEm < 16 || unitsPerEm > 16384) throw new TtfError(`implausible unitsPerEm ${unitsPerEm}`);
  const numGlyphs = u16(table('maxp') + 4);
  const numberOfHMetrics = u16(table('hhea') + 34);
  if (numberOfHMetrics < 1 || numberOfHMetrics > numGlyphs) {
    throw new TtfError(`hhea.numberOfHMetrics ${numberOfHMetrics} with ${numGlyphs} glyphs`);
  }
  const hmtx = table('hmtx');
  checked(hmtx, numberOfHMetrics * 4);
  // Glyphs past numberOfHMetrics share the last advance (monospaced tails).
  const glyphAdvance = (glyph: number) => u16(hmtx + 4 * Math.min(glyph, numberOfHMetrics - 1));

  const groups = readCmap(table('cmap'), u16, i16, u32);
  const lookup = (codePoint: number): number => {
    let lo = 0;
    let hi = groups.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const g = groups[mid]!;
      if (codePoint < g.start) hi = mid - 1;
      else if (codePoint > g.end) lo = mid + 1;
      else {
        const glyph = g.glyph(codePoint);
        return glyph < numGlyphs ? glyph : 0;
      }
    }
    return 0;
  };
  const advances = new Map<number, number>();
  const advance = (codePoint: number): number => {
    let a = advances.get(codePoint);
    if (a === undefined) {
      a = glyphAdvance(lookup(codePoint));
      advances.set(codePoint, a);
    }
    return a;
  };
  return {
    unitsPerEm,
    numGlyphs,
    glyphIndex: lookup,
    advance,
    textWidth(text, size) {
      let units = 0;
      for (const ch of text) units += advance(ch.codePointAt(0)!);
      return (units * size) / unitsPerEm;
    },
  };
}

/** The Unicode subtable: format 12 (full repertoire) when there is one, else format 4 (the BMP). */
function readCmap(
  cmap: number,
  u16: (at: number) => number,
  i16: (at: number) => number,
  u32: (at: number) => number,
): CmapGroup[] {
  const candidates: { format: number; offset: number }[] = [];
  const count = u16(cmap + 2);
  for (let i = 0; i < count; i++) {
    const platform = u16(cmap + 4 + i * 8);
    const encoding = u16(cmap + 6 + i * 8);
    const offset = cmap + u32(cmap + 8 + i * 8);
    // Windows Unicode BMP (3,1) or full (3,10), or any Unicode platform (0,x) subtable.
    if (platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10))) {
      candidates.push({ format: u16(offset), offset });
    }
  }
  const best = candidates.find((c) => c.format === 12) ?? candidates.find((c) => c.format === 4);
  if (!best) throw new TtfError('font has no Unicode cmap subtable of format 4 or 12');
  return best.format === 12 ? readFormat12(best.offset, u32) : readFormat4(best.offset, u16, i16);
}

function readFormat12(at: number, u32: (at: number) => number): CmapGroup[] {
  const nGroups = u32(at + 12);
  const groups: CmapGroup[] = [];
  for (let i = 0; i < nGroups; i++) {
    const g = at + 16 + i * 12;
    const start = u32(g);
    const end = u32(g + 4);
    const startGlyph = u32(g + 8);
    if (end < start) throw new TtfError(`cmap format 12 group ${i} ends before it starts`);
    groups.push({ start, end, glyph: (cp) => startGlyph + (cp - start) });
  }
  return sortedGroups(groups);
}

function readFormat4(at: number, u16: (at: number) => number, i16: (at: number) => number): CmapGroup[] {
  const segCount = u16(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + segCount * 2 + 2;
  const deltas = starts + segCount * 2;
  const rangeOffsets = deltas + segCount * 2;
  const groups: CmapGroup[] = [];
  for (let i = 0; i < segCount; i++) {
    const end = u16(ends + i * 2);
    const start = u16(starts + i * 2);
    const delta = i16(deltas + i * 2);
    const rangeOffsetAt = rangeOffsets + i * 2;
    const rangeOffset = u16(rangeOffsetAt);
    if (start === 0xffff || end < start) continue;
    groups.push({
      start,
      end,
      glyph:
        rangeOffset === 0
          ? (cp) => (cp + delta) & 0xffff
          : (cp) => {
              // idRangeOffset counts bytes from its own position into glyphIdArray.
              const glyph = u16(rangeOffsetAt + rangeOffset + (cp - start) * 2);
              return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
            },
    });
  }
  return sortedGroups(groups);
}

const sortedGroups = (groups: CmapGroup[]) => groups.sort((a, b) => a.start - b.start);
