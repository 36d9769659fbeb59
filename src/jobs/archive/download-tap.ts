/**
 * The tap every archived download passes through on its way to the store, one loop over the body: SHA-256, byte
 * count, progress and the streaming ZIP check, chunk by chunk. A chunk goes on only once the verifier has taken it
 * (the verifier holds no data, so nothing piles up); a broken ZIP fails the body at the first bad byte.
 *
 * Each read of the body is time-bounded: storage that sends its headers and then stops sending (a stalled
 * connection) fails the body with a TimeoutError once no byte came for `idleTimeoutMs`. Only the wait for bytes is
 * timed, never the time the reader (the upload) takes between reads.
 */
import { createHash } from 'node:crypto';
import { TimeoutError } from '../../client/index.ts';
import { ZipVerifier } from './zip-verifier.ts';

export interface TapEnd {
  bytes: number;
  sha256: string;
}

export interface TapOptions {
  /** A read that waits this long for bytes fails the body. */
  idleTimeoutMs: number;
  onBytes?: ((n: number) => void) | undefined;
  /** Runs after the last byte passed and the ZIP checked out, before the reader sees the end. */
  onEnd?: (end: TapEnd) => void;
}

export class DownloadTap {
  readonly verifier = new ZipVerifier();
  readonly #hash = createHash('sha256');
  readonly #body: ReadableStream<Uint8Array>;
  readonly #opts: TapOptions;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Bytes that passed so far. */
  bytes = 0;
  /** Hex SHA-256 of all bytes; set when the body ended and checked out. */
  sha256: string | undefined;

  constructor(body: ReadableStream<Uint8Array>, opts: TapOptions) {
    this.#body = body;
    this.#opts = opts;
  }

  /** The body's chunks, each hashed, counted and checked before it is handed on. Read once. */
  async *chunks(): AsyncGenerator<Uint8Array, void, undefined> {
    const reader = this.#body.getReader();
    this.#reader = reader;
    const { idleTimeoutMs } = this.#opts;
    let waiting = false;
    let stalled: TimeoutError | undefined;
    // One timer, re-armed before every read: firing while no read is waiting (the upload is busy) means nothing.
    const idle = setTimeout(() => {
      if (!waiting) return;
      stalled = new TimeoutError(
        `storage sent no bytes for ${idleTimeoutMs} ms (after ${this.bytes} bytes of the body)`,
        { operationId: 'download' },
      );
      reader.cancel(stalled).catch(() => {});
    }, idleTimeoutMs).unref();
    try {
      for (;;) {
        waiting = true;
        idle.refresh();
        const step = await reader.read();
        waiting = false;
        if (stalled) throw stalled;
        if (step.done) break;
        const chunk = step.value;
        this.#hash.update(chunk);
        this.bytes += chunk.byteLength;
        this.#opts.onBytes?.(chunk.byteLength);
        await this.verifier.write(chunk);
        yield chunk;
      }
      await this.verifier.end();
      const sha256 = this.#hash.digest('hex');
      this.sha256 = sha256;
      this.#opts.onEnd?.({ bytes: this.bytes, sha256 });
    } catch (e) {
      this.verifier.abort(e);
      throw e;
    } finally {
      clearTimeout(idle);
      this.close();
    }
  }

  /** Stops reading (whatever the state): the download's connection is not left open, the ZIP check gives up. */
  close(): void {
    this.verifier.abort(new Error('the download stopped before its end'));
    (this.#reader ?? this.#body).cancel().catch(() => {});
  }
}
