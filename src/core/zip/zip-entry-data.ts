/**
 * The data side of the streaming ZIP check (zip-verifier.ts): each entry's bytes are inflated (or taken as stored)
 * as they pass, and only the running CRC-32 and size are kept, so memory does not grow with the entry; a reader that
 * wants the bytes gets each chunk once (`sink`), and keeps none of it here either.
 */
import { crc32, createInflateRaw } from 'node:zlib';

export class ZipVerificationError extends Error {
  override name = 'ZipVerificationError';
}

export interface EntryDigest {
  crc32: number;
  /** Uncompressed bytes produced. */
  size: number;
  /** Compressed bytes the decoder used; fewer than it was given means data after the end of the deflate stream. */
  consumed: number;
}

export interface EntryData {
  /** Takes the next compressed bytes; resolves once they are processed (so the caller never runs ahead). */
  feed(data: Uint8Array): Promise<void>;
  finish(): Promise<EntryDigest>;
  destroy(): void;
}

export const METHOD_STORED = 0;
export const METHOD_DEFLATED = 8;

/** The reader of an entry's uncompressed bytes; what it throws fails the entry as it is. */
export type DataSink = (bytes: Uint8Array) => void;

/**
 * `limit`: the uncompressed size the headers announce, when known; more output than that fails at once. `sink`:
 * gets the uncompressed bytes as they come.
 */
export function entryData(method: number, entry: string, limit: number | undefined, sink?: DataSink): EntryData {
  return method === METHOD_DEFLATED ? new InflatedData(entry, limit, sink) : new StoredData(sink);
}

class StoredData implements EntryData {
  #crc = 0;
  #size = 0;
  readonly #sink: DataSink | undefined;

  constructor(sink: DataSink | undefined) {
    this.#sink = sink;
  }

  async feed(data: Uint8Array): Promise<void> {
    this.#crc = crc32(data, this.#crc);
    this.#size += data.byteLength;
    this.#sink?.(data);
  }

  async finish(): Promise<EntryDigest> {
    return { crc32: this.#crc, size: this.#size, consumed: this.#size };
  }

  destroy(): void {}
}

/**
 * zlib's raw inflate as a stream: output is hashed and dropped as it is produced. One waiter at a time (no
 * Promise.race against a long-lived promise, whose reactions would pile up chunk by chunk).
 */
class InflatedData implements EntryData {
  // Output chunks of 256 KiB: several times faster than the 16 KiB default on CSV (fewer thread-pool round trips).
  readonly #z = createInflateRaw({ chunkSize: 256 * 1024 });
  readonly #entry: string;
  #crc = 0;
  #size = 0;
  #ended = false;
  #error: Error | undefined;
  #waiter: { resolve: () => void; reject: (e: Error) => void } | undefined;

  constructor(entry: string, limit: number | undefined, sink: DataSink | undefined) {
    this.#entry = entry;
    /** What the sink threw: it fails the entry as it is, not as corrupt data. */
    let refused: Error | undefined;
    this.#z.on('data', (out: Buffer) => {
      this.#crc = crc32(out, this.#crc);
      this.#size += out.byteLength;
      if (limit !== undefined && this.#size > limit) {
        this.#z.destroy(new ZipVerificationError(`entry ${entry}: inflates to more than the announced ${limit} bytes`));
        return;
      }
      try {
        sink?.(out);
      } catch (e) {
        refused = e instanceof Error ? e : new Error(String(e));
        this.#z.destroy(refused);
      }
    });
    this.#z.once('end', () => {
      this.#ended = true;
      this.#settle();
    });
    this.#z.once('error', (e: Error) => {
      this.#error =
        e instanceof ZipVerificationError || e === refused
          ? e
          : new ZipVerificationError(`entry ${entry}: compressed data is corrupt (${e.message})`, { cause: e });
      this.#settle();
    });
  }

  feed(data: Uint8Array): Promise<void> {
    return this.#wait((resolve) => {
      // A deflate stream that already ended ignores more input; `finish` then sees it was not all consumed.
      if (this.#ended) return resolve();
      this.#z.write(data, () => resolve());
    });
  }

  async finish(): Promise<EntryDigest> {
    await this.#wait((resolve) => {
      if (this.#ended) return resolve();
      this.#z.end();
      // resolved by the 'end' listener through #settle
    });
    if (this.#error) throw this.#error;
    if (!this.#ended) throw new ZipVerificationError(`entry ${this.#entry}: compressed data ends too early`);
    return { crc32: this.#crc, size: this.#size, consumed: this.#z.bytesWritten };
  }

  destroy(): void {
    this.#z.destroy();
  }

  #wait(start: (resolve: () => void) => void): Promise<void> {
    if (this.#error) return Promise.reject(this.#error);
    return new Promise<void>((resolve, reject) => {
      this.#waiter = { resolve, reject };
      start(() => this.#settle());
    });
  }

  #settle(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    if (!w) return;
    if (this.#error) w.reject(this.#error);
    else w.resolve();
  }
}
