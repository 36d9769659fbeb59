/**
 * Reading JSON as it stands on the wire. `JSON.parse` hoists integer-like keys ("1", "2") ahead of the others, so
 * tests that check the order of bins or segments parse with every key prefixed and strip the prefix again.
 */
export interface WireTree {
  [key: string]: WireTree;
}

/** JSON.parse keeping every object's keys in wire order; keys come back prefixed with `#`. */
export function parseInWireOrder(text: string): WireTree {
  return JSON.parse(text.replace(/"((?:[^"\\]|\\.)*)":/g, '"#$1":'));
}

/** Keys of a node of `parseInWireOrder`'s result, in wire order, without the prefix. */
export const keysOf = (o: WireTree | undefined): string[] => Object.keys(o ?? {}).map((k) => k.slice(1));

/** Keys of the top-level `result` object in wire order. */
export const resultKeys = (text: string): string[] => keysOf(parseInWireOrder(text)['#result']);

/** A bin label (docs/interface.md "Bins") as an inclusive integer range; `h:mm` labels count minutes. */
export function rangeOf(label: string): [number, number] {
  const num = (t: string) => (t.includes(':') ? Number(t.split(':')[0]) * 60 + Number(t.split(':')[1]) : Number(t));
  if (label.startsWith('≤ ')) return [Number.NEGATIVE_INFINITY, num(label.slice(2))];
  if (label.startsWith('≥ ')) return [num(label.slice(2)), Number.POSITIVE_INFINITY];
  const [lo, hi = lo] = label.split(' - ');
  return [num(lo!), num(hi!)];
}
