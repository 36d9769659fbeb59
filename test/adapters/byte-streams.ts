/** Test data for the archive store: deterministic bytes, and Readables of them that can fail on purpose. */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

export const MiB = 1024 * 1024;

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('base64');
/** Deterministic, non-repeating bytes, so a reordered or duplicated part would show. */
export function patternBytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.writeUInt32LE(x >>> 0, Math.min(i, size - 4));
  }
  return out;
}
/** A Readable of `data` in chunks of odd size, optionally failing after `failAfter` bytes. */
export function chunked(data: Buffer, failAfter?: number): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (failAfter !== undefined && offset >= failAfter) return this.destroy(new Error('source broke'));
      if (offset >= data.length) return this.push(null);
      const next = data.subarray(offset, offset + 65_537);
      offset += next.length;
      this.push(next);
    },
  });
}
