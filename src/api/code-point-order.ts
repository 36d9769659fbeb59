/**
 * The order the interface sorts listings in ("ascending code-point order", e.g. license keys in `searchLicenseKeys`;
 * docs/interface.md "Listing order"): shared by the emulator, which sorts that way, and the client side, which relies
 * on it.
 */

/** Maps UTF-16 code units so that comparing them orders strings by code point (surrogates sort above U+FFFF). */
const codePointRank = (c: number): number => (c >= 0xd800 ? (c >= 0xe000 ? c - 0x800 : c + 0x2000) : c);

export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}
