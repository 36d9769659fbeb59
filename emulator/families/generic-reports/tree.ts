/**
 * Node numbering of a levels tree: node 0 is the report total, then every level-1 segment, every (level-1,
 * level-2) pair, and so on, densely. Dense numbering keeps the counting pass free of maps.
 */
import { fail } from '../../http/validate.ts';
import type { Segmentation } from '../../query/segments.ts';

/** Above this many counters (nodes × 3 statuses × periods) a request is refused rather than allocated. */
const MAX_CELLS = 30_000_000;

export interface Tree {
  nodes: number;
  /** Node of segment `id` at depth d (0 = level1) under the parent position `parent` (0 at depth 0). */
  index(depth: number, parent: number, id: number): number;
  /** Parent position for the children of segment `id` at depth d. */
  child(depth: number, parent: number, id: number): number;
  /** Nodes client i counts in: the total and each segment combination it belongs to. Reused array. */
  nodesOf(i: number): readonly number[];
}

export function buildTree(segs: readonly Segmentation[], periods: number): Tree {
  const sizes = segs.map((s) => s.labels.length);
  const offsets: number[] = [];
  let nodes = 1;
  let width = 1;
  for (const size of sizes) {
    offsets.push(nodes);
    width *= size;
    nodes += width;
  }
  if (nodes * 3 * periods > MAX_CELLS)
    fail(
      'levels',
      `too many segment combinations × periods (${nodes} × ${periods}); use fewer segments or a coarser split`,
    );
  const out: number[] = [];
  const [s1, s2, s3] = segs;
  const [o1 = 0, o2 = 0, o3 = 0] = offsets;
  const [, z2 = 0, z3 = 0] = sizes;
  return {
    nodes,
    index: (depth, parent, id) => offsets[depth]! + parent * sizes[depth]! + id,
    child: (depth, parent, id) => parent * sizes[depth]! + id,
    nodesOf(i) {
      out.length = 1;
      out[0] = 0;
      if (!s1) return out;
      const A = s1.of(i);
      const B = s2?.of(i);
      const C = s3?.of(i);
      for (const a of A) {
        out.push(o1 + a);
        if (B)
          for (const b of B) {
            const ab = a * z2 + b;
            out.push(o2 + ab);
            if (C) for (const c of C) out.push(o3 + ab * z3 + c);
          }
      }
      return out;
    },
  };
}
