/**
 * The tap every archived download passes through on its way to the store: SHA-256, byte count, progress and the
 * streaming ZIP check, read by read. The store reads the body through the tap straight into its part buffers
 * (`readInto`), and a read resolves only once the verifier has taken its bytes (the verifier holds no data, so
 * nothing piles up); a broken ZIP fails the body at the first bad byte.
 *
 * Each read of the body is time-bounded: storage that sends its headers and then stops sending (a stalled
 * connection) fails the body with a TimeoutError once no byte came for `idleTimeoutMs`. Only the wait for bytes is
 * timed, never the time the reader (the upload) takes between reads.
 */
import { createHash } from 'node:crypto';
import { type Download, TimeoutError } from '../../client/index.ts';
import { ZipVerifier } from '../../core/zip/zip-verifier.ts';
import type { ByteSource } from '../../ports/archive-store.ts';

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

export class DownloadTap implements ByteSource {
  readonly verifier = new ZipVerifier();
  readonly #hash = createHash('sha256');
  readonly #body: Pick<Download, 'readInto' | 'cancel'>;
  readonly #opts: TapOptions;
  /** One timer, re-armed before every read: firing while no read is waiting (the upload is busy) means nothing. */
  #idle: NodeJS.Timeout | undefined;
  #waiting = false;
  #stalled: TimeoutError | undefined;
  #ended = false;
  /** Bytes that passed so far. */
  bytes = 0;
  /** Hex SHA-256 of all bytes; set when the body ended and checked out. */
  sha256: string | undefined;

  constructor(body: Pick<Download, 'readInto' | 'cancel'>, opts: TapOptions) {
    this.#body = body;
    this.#opts = opts;
  }

  /**
   * The next bytes of the body, read into `into` (the reader's own buffer: nothing is allocated per chunk), hashed,
   * counted and checked before this resolves with their number; 0 once the body ended and the ZIP checked out.
   */
  async readInto(into: Uint8Array): Promise<number> {
    if (this.#ended) return 0;
    try {
      this.#waiting = true;
      this.#armIdleTimer();
      const n = await this.#body.readInto(into);
      this.#waiting = false;
      if (this.#stalled) throw this.#stalled;
      if (n === 0) {
        await this.verifier.end();
        const sha256 = this.#hash.digest('hex');
        this.sha256 = sha256;
        this.#ended = true;
        this.#opts.onEnd?.({ bytes: this.bytes, sha256 });
        this.close();
        return 0;
      }
      const chunk = into.subarray(0, n);
      this.#hash.update(chunk);
      this.bytes += n;
      this.#opts.onBytes?.(n);
      await this.verifier.write(chunk);
      return n;
    } catch (e) {
      this.#waiting = false;
      this.verifier.abort(e);
      this.close();
      throw this.#stalled ?? e;
    }
  }

  /** Stops reading (whatever the state): the download's connection is not left open, the ZIP check gives up. */
  close(): void {
    clearTimeout(this.#idle);
    this.verifier.abort(new Error('the download stopped before its end'));
    this.#body.cancel();
  }

  #armIdleTimer(): void {
    if (this.#idle) {
      this.#idle.refresh();
      return;
    }
    const { idleTimeoutMs } = this.#opts;
    this.#idle = setTimeout(() => {
      if (!this.#waiting) return;
      this.#stalled = new TimeoutError(
        `storage sent no bytes for ${idleTimeoutMs} ms (after ${this.bytes} bytes of the body)`,
        { operationId: 'download' },
      );
      this.#body.cancel(this.#stalled);
    }, idleTimeoutMs).unref();
  }
}
