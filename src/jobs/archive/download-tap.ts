/**
 * The tap every archived download passes through on its way to the store: SHA-256, byte count, progress and the
 * streaming ZIP check, chunk by chunk. A chunk goes on only once the verifier has taken it (the verifier holds no
 * data, so nothing piles up); a broken ZIP fails the stream at the first bad byte.
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { ZipVerifier } from './zip-verifier.ts';

export interface TapEnd {
  bytes: number;
  sha256: string;
}

export class DownloadTap extends Transform {
  readonly verifier = new ZipVerifier();
  readonly #hash = createHash('sha256');
  readonly #onBytes: ((n: number) => void) | undefined;
  readonly #onEnd: (end: TapEnd) => void;
  /** Bytes that passed so far. */
  bytes = 0;
  /** Hex SHA-256 of all bytes; set when the stream ends. */
  sha256: string | undefined;

  /** `onEnd` runs after the last byte passed and the ZIP checked out, before the reader sees the end. */
  constructor(opts: { onBytes?: ((n: number) => void) | undefined; onEnd?: (end: TapEnd) => void } = {}) {
    super();
    this.#onBytes = opts.onBytes;
    this.#onEnd = opts.onEnd ?? (() => {});
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    this.bytes += chunk.byteLength;
    this.#onBytes?.(chunk.byteLength);
    this.verifier.write(chunk).then(() => done(null, chunk), done);
  }

  override _flush(done: TransformCallback): void {
    this.verifier.end().then(() => {
      const sha256 = this.#hash.digest('hex');
      this.sha256 = sha256;
      this.#onEnd({ bytes: this.bytes, sha256 });
      done();
    }, done);
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.verifier.abort(error ?? new Error('the download stopped before its end'));
    done(error);
  }
}
