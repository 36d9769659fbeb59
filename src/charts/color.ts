/** Colours as `#rrggbb` or `#rrggbbaa` strings (what specs and palettes hold) and as RGBA bytes. */

/** [red, green, blue, alpha], each 0–255. */
export type Rgba = readonly [number, number, number, number];

const HEX_COLOUR = /^#([0-9a-f]{6})([0-9a-f]{2})?$/i;

/** `#rrggbb` or `#rrggbbaa` → RGBA; throws a TypeError for anything else. */
export function parseColor(colour: string): Rgba {
  const m = HEX_COLOUR.exec(colour);
  if (!m) throw new TypeError(`colour ${JSON.stringify(colour)} is not #rrggbb or #rrggbbaa`);
  const rgb = Number.parseInt(m[1]!, 16);
  return [(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255, m[2] === undefined ? 255 : Number.parseInt(m[2], 16)];
}

/** One pixel's four bytes as a Uint32 in the platform's byte order, matching a Uint32Array over RGBA data. */
export function packed(rgba: Rgba): number {
  return new Uint32Array(Uint8Array.from(rgba).buffer)[0]!;
}
