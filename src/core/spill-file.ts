/**
 * A job's scratch files on local disk (Lambda's /tmp, the OS temp dir elsewhere), for what a run must hold until its
 * end but which grows with the data: a license alert run's alerts per recipient, the CSV rows and ledger keys of an
 * email under construction. Memory then holds a write buffer per file, not the data; the files are removed with
 * their folder when the run ends (`ScratchDir.remove`, in a `finally`).
 */
import { createReadStream } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** Buffered text is written once it passes this many UTF-16 code units (appends in between cost no I/O). */
const WRITE_AT = 256 * 1024;

export class ScratchDir {
  readonly path: string;
  #next = 0;

  private constructor(path: string) {
    this.path = path;
  }

  /** A fresh folder under `parent` (default: the OS temp dir). */
  static async create(prefix: string, parent = tmpdir()): Promise<ScratchDir> {
    return new ScratchDir(await mkdtemp(join(parent, `${prefix}-`)));
  }

  /** A new, empty file in this folder. */
  file(): SpillFile {
    return new SpillFile(join(this.path, String(this.#next++)));
  }

  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }
}

/** Text appended in order, read back once written: as lines (`lines`) or as bytes (`bytes`). */
export class SpillFile {
  readonly path: string;
  #buffer: string[] = [];
  #buffered = 0;
  #written = false;

  constructor(path: string) {
    this.path = path;
  }

  /** Appends without I/O; call `flushIfFull` now and then (or `flush` before reading). */
  append(text: string): void {
    this.#buffer.push(text);
    this.#buffered += text.length;
  }

  /** Writes the buffer once it is worth a write: what a producer awaits between batches to bound memory. */
  async flushIfFull(): Promise<void> {
    if (this.#buffered >= WRITE_AT) await this.flush();
  }

  async flush(): Promise<void> {
    const text = this.#buffer.join('');
    this.#buffer = [];
    this.#buffered = 0;
    if (text.length === 0 && this.#written) return;
    await appendFile(this.path, text, 'utf8');
    this.#written = true;
  }

  /** Every line written (flush first), without its line end. Lines must not hold a line break themselves (JSON). */
  async *lines(): AsyncGenerator<string> {
    await this.flush();
    const input = createReadStream(this.path, { encoding: 'utf8' });
    try {
      for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) yield line;
    } finally {
      input.destroy();
    }
  }

  /** The file's bytes, in chunks (flush first). */
  async *bytes(): AsyncGenerator<Uint8Array> {
    await this.flush();
    yield* createReadStream(this.path) as AsyncIterable<Buffer>;
  }
}

/** `lines` in arrays of up to `size`, each line parsed as JSON. */
export async function* jsonBatches<T>(lines: AsyncIterable<string>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const line of lines) {
    if (line.length === 0) continue;
    batch.push(JSON.parse(line) as T);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
