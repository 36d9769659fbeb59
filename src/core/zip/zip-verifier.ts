/**
 * A streaming ZIP check for downloads (the archive's copies, the exception files usage alerts count): feed it the
 * bytes once, in order, in chunks of any size; it keeps only headers and running sums, never the file, and hands
 * each entry's uncompressed bytes to `onData` as they come, when asked to. It parses each local header, inflates the entry
 * (deflated or stored) and computes its CRC-32 and sizes, then parses the central directory and the end record, and
 * checks that every entry is readable, CRC and sizes agree with the local header (or data descriptor) and with the
 * central directory, names are safe, there is at least one entry and nothing follows the end record.
 *
 * Data descriptors (flag bit 3) are found by their signature plus a compressed size equal to the bytes before it.
 * Not supported, and refused by name: Zip64, encryption, methods other than stored and deflate, split archives.
 */
import { type EntryData, entryData, ZipVerificationError } from './zip-entry-data.ts';
import {
  CENTRAL_FIXED,
  checkCentralEntry,
  checkEndRecord,
  checkLocalHeader,
  compareSums,
  END_FIXED,
  FLAG_DESCRIPTOR,
  fail,
  LOCAL_FIXED,
  parseCentralHeader,
  parseLocalHeader,
  type ReadEntry,
  SIG_CENTRAL,
  SIG_END,
  SIG_LOCAL,
  type Sums,
  show,
  ZIP64_SIGNATURES,
} from './zip-records.ts';

export { ZipVerificationError } from './zip-entry-data.ts';

export interface ZipEntrySummary {
  name: string;
  /** Uncompressed size in bytes. */
  size: number;
  crc32: number;
}

export interface ZipSummary {
  entries: ZipEntrySummary[];
}

/** The data descriptor signature 0x08074b50, as it appears in the stream, and the descriptor's size with it. */
const DESCRIPTOR_BYTES = Buffer.from([0x50, 0x4b, 0x07, 0x08]);
const DESCRIPTOR_SIZE = 16;
/** ZIP32's end record counts entries in 16 bits. */
const MAX_ENTRIES = 0xffff;
const EMPTY = Buffer.alloc(0);

/**
 * Takes an entry's uncompressed bytes as they come (valid only during the call); what it throws fails the ZIP with
 * that error. The entry's CRC is checked only at its end: a reader must not act on what it got before `end()`.
 */
export type EntrySink = (entry: string, bytes: Uint8Array) => void;

/** Called with exactly the bytes asked for and their offset in the archive. */
type HeaderStep = (bytes: Buffer, at: number) => void | Promise<void>;

export class ZipVerifier {
  #offset = 0;
  #mode: 'header' | 'data' | 'scan' | 'done' = 'header';
  #need = 4;
  #step: HeaderStep = (b, at) => this.#record(b, at);
  #acc: Buffer[] = [];
  #accBytes = 0;
  /** The entry whose data is passing, its decoder, and the compressed bytes still due (or seen, when scanning). */
  #entry: ReadEntry | undefined;
  #data: EntryData | undefined;
  #dataBytes = 0;
  #tail: Buffer = EMPTY;
  readonly #entries = new Map<number, ReadEntry>();
  #centralStart: number | undefined;
  #centralCount = 0;
  #failure: unknown;
  #verified = false;
  readonly #result = Promise.withResolvers<ZipSummary>();
  readonly #onData: EntrySink | undefined;

  constructor(opts: { onData?: EntrySink } = {}) {
    this.#onData = opts.onData;
    this.#result.promise.catch(() => {}); // observed through result(); never an unhandled rejection
  }

  /** Resolves when `end()` found a valid ZIP; rejects with the first problem (or the reason given to `abort`). */
  result(): Promise<ZipSummary> {
    return this.#result.promise;
  }

  /** The next bytes; rejects (with ZipVerificationError) as soon as they show the ZIP is broken. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    try {
      await this.#consume(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } catch (e) {
      throw this.#fail(e);
    }
  }

  /** No more bytes: the archive must be complete. */
  async end(): Promise<ZipSummary> {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#mode !== 'done') {
      const what = this.#entry ? `the data of entry ${show(this.#entry.name)}` : 'a header';
      const read = this.#offset + this.#accBytes + this.#tail.length;
      throw this.#fail(new ZipVerificationError(`the ZIP ends early, after ${read} bytes, in ${what}`));
    }
    const entries = [...this.#entries.values()].map(({ name, size, crc32 }) => ({ name, size, crc32 }));
    this.#verified = true;
    this.#result.resolve({ entries });
    return { entries };
  }

  /** The bytes stopped coming (the download failed): `result()` rejects with `reason`, unless already verified. */
  abort(reason: unknown): void {
    if (this.#failure === undefined && !this.#verified) this.#fail(reason);
  }

  #fail(e: unknown): unknown {
    this.#failure ??= e;
    this.#data?.destroy();
    this.#result.reject(this.#failure);
    return this.#failure;
  }

  async #consume(chunk: Buffer): Promise<void> {
    let rest = chunk;
    while (rest.length > 0) {
      if (this.#mode === 'done') {
        fail(`unexpected bytes after the end of central directory record (at offset ${this.#offset})`);
      }
      if (this.#mode === 'scan') {
        rest = await this.#scan(rest);
      } else if (this.#mode === 'data') {
        const n = Math.min(this.#dataBytes, rest.length);
        await this.#feed(rest.subarray(0, n));
        this.#dataBytes -= n;
        rest = rest.subarray(n);
        if (this.#dataBytes === 0) await this.#finishEntry(undefined);
      } else {
        const n = Math.min(this.#need - this.#accBytes, rest.length);
        this.#acc.push(Buffer.from(rest.subarray(0, n))); // a copy: the caller may reuse its chunk
        this.#accBytes += n;
        rest = rest.subarray(n);
        if (this.#accBytes === this.#need) await this.#runStep();
      }
    }
  }

  async #runStep(): Promise<void> {
    const bytes = Buffer.concat(this.#acc, this.#accBytes);
    const at = this.#offset;
    this.#acc = [];
    this.#accBytes = 0;
    this.#offset += bytes.length;
    await this.#step(bytes, at);
  }

  /** Reads `need` bytes next (none: at once), then runs `step`. */
  async #expect(need: number, step: HeaderStep): Promise<void> {
    this.#mode = 'header';
    this.#need = need;
    this.#step = step;
    if (need === 0) await this.#runStep();
  }

  #record(b: Buffer, at: number): Promise<void> {
    const sig = b.readUInt32LE(0);
    if (sig === SIG_LOCAL && this.#centralStart === undefined) {
      return this.#expect(LOCAL_FIXED, (h) => this.#local(h, at));
    }
    if (sig === SIG_CENTRAL) {
      this.#centralStart ??= at;
      return this.#expect(CENTRAL_FIXED, (h) => this.#central(h, at));
    }
    if (sig === SIG_END) return this.#expect(END_FIXED, (h) => this.#end(h, at));
    if (ZIP64_SIGNATURES.has(sig)) fail('Zip64 archives are not supported');
    if (at === 0) fail('not a ZIP file: it does not start with a local file header');
    const where = sig === SIG_LOCAL ? 'a local file header after the central directory' : 'no ZIP record';
    return fail(`${where} at offset ${at} (found 0x${sig.toString(16).padStart(8, '0')})`);
  }

  #local(fixed: Buffer, offset: number): Promise<void> {
    const h = parseLocalHeader(fixed);
    return this.#expect(h.nameLength + h.extraLength, (v) => {
      const rawName = Buffer.from(v.subarray(0, h.nameLength));
      const name = checkLocalHeader(h, rawName, v.subarray(h.nameLength), offset);
      if (this.#entries.size >= MAX_ENTRIES) fail(`more than ${MAX_ENTRIES} entries`);
      const { crc32, compressedSize, size, method } = h;
      this.#entry = { offset, rawName, name, method, crc32, compressedSize, size, matched: false };
      const descriptor = (h.flags & FLAG_DESCRIPTOR) !== 0;
      this.#data = entryData(
        method,
        show(name),
        descriptor ? undefined : size,
        this.#onData && ((b) => this.#onData!(name, b)),
      );
      this.#dataBytes = descriptor ? 0 : compressedSize;
      this.#mode = descriptor ? 'scan' : 'data';
      return descriptor || compressedSize > 0 ? undefined : this.#finishEntry(undefined);
    });
  }

  async #feed(data: Buffer): Promise<void> {
    this.#offset += data.length;
    if (data.length > 0) await this.#data!.feed(data);
  }

  /**
   * Entry data of unknown length: up to a descriptor signature whose compressed size equals the bytes before it.
   * The last 15 bytes are held back, since a descriptor could start there.
   */
  async #scan(chunk: Buffer): Promise<Buffer> {
    const b = this.#tail.length > 0 ? Buffer.concat([this.#tail, chunk]) : chunk;
    for (let i = b.indexOf(DESCRIPTOR_BYTES); i !== -1 && i + DESCRIPTOR_SIZE <= b.length; ) {
      if (b.readUInt32LE(i + 8) === this.#dataBytes + i) {
        await this.#feed(b.subarray(0, i));
        this.#dataBytes += i;
        this.#offset += DESCRIPTOR_SIZE;
        this.#tail = EMPTY;
        const d = { crc32: b.readUInt32LE(i + 4), compressedSize: b.readUInt32LE(i + 8), size: b.readUInt32LE(i + 12) };
        await this.#finishEntry(d);
        return b.subarray(i + DESCRIPTOR_SIZE);
      }
      i = b.indexOf(DESCRIPTOR_BYTES, i + 1);
    }
    const pass = Math.max(0, b.length - (DESCRIPTOR_SIZE - 1));
    await this.#feed(b.subarray(0, pass));
    this.#dataBytes += pass;
    this.#tail = Buffer.from(b.subarray(pass));
    return EMPTY;
  }

  async #finishEntry(descriptor: Sums | undefined): Promise<void> {
    const e = this.#entry!;
    const got = await this.#data!.finish();
    const compressed = descriptor ? this.#dataBytes : e.compressedSize;
    if (got.consumed !== compressed) {
      fail(`entry ${show(e.name)}: the deflate stream ends after ${got.consumed} of ${compressed} bytes`);
    }
    const actual = { crc32: got.crc32, compressedSize: compressed, size: got.size };
    // With a descriptor the local header may hold zeros; values it does hold must still agree.
    if (descriptor) compareSums(show(e.name), 'data descriptor', descriptor, actual);
    if (!descriptor || e.crc32 || e.compressedSize || e.size) compareSums(show(e.name), 'local header', e, actual);
    Object.assign(e, actual);
    this.#entries.set(e.offset, e);
    this.#entry = undefined;
    this.#data = undefined;
    await this.#nextRecord();
  }

  #nextRecord(): Promise<void> {
    return this.#expect(4, (b, at) => this.#record(b, at));
  }

  #central(fixed: Buffer, at: number): Promise<void> {
    const h = parseCentralHeader(fixed);
    return this.#expect(h.nameLength + h.restLength, (v) => {
      const local = checkCentralEntry(h, v.subarray(0, h.nameLength), this.#entries.get(h.localOffset), at);
      local.matched = true;
      this.#centralCount++;
      return this.#nextRecord();
    });
  }

  #end(fixed: Buffer, at: number): Promise<void> {
    const read = { entries: this.#entries.size, listed: this.#centralCount, start: this.#centralStart ?? at, at };
    const { commentLength } = checkEndRecord(fixed, read);
    return this.#expect(commentLength, () => {
      this.#mode = 'done';
    });
  }
}
