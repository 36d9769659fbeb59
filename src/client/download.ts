/**
 * Downloads from signed storage URLs (docs/interface.md "Download addresses"): a bare GET — no service cookies, no
 * Origin, no service headers, no redirects — whose body is checked against the announced length while it is read. The
 * URL's query string is its signature, so it never appears in a message or a log.
 *
 * The transport is http-get.ts, not the client's `fetch`: the body is read into the caller's buffers
 * (`readInto`), so a gigabyte download allocates nothing per chunk. `stream` offers the same body as a web byte
 * stream (BYOB readers read straight into their own buffers too). It fetches `https:` URLs (plain `http:` only from
 * a loopback address), directly: no proxy. A storage server that goes silent for the client's
 * `downloadIdleTimeoutMs` fails the download with a TimeoutError.
 */
import { DownloadError, NetworkError, type ReportingServiceError, TimeoutError } from './errors.ts';
import { type BodyReader, HttpProtocolError, httpGet, PrematureCloseError, UnsupportedUrlError } from './http-get.ts';
import type { ResolvedOptions } from './options.ts';

export interface Download {
  /**
   * Copies the next body bytes into `into` (from its start); resolves with how many, or 0 once the body ended with
   * every announced byte. A truncated or overlong body or a lost connection rejects with a DownloadError. Read
   * either through this or through `stream`, not both.
   */
  readInto(into: Uint8Array): Promise<number>;
  /** The body as a web byte stream; errors while reading (a truncated body) surface as DownloadError. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Closes the connection; a waiting read rejects with `reason` (as it is). */
  cancel(reason?: unknown): void;
  /** `Content-Length` announced by storage, when present. */
  contentLength: number | undefined;
  contentType: string | undefined;
}

const OPERATION = 'download';
/** Enough of a storage error body to find its `<Code>`; the rest is not worth waiting for. */
const MAX_ERROR_BODY = 16 * 1024;
/** Chunk size of `stream` for readers that bring no buffer of their own. */
const STREAM_CHUNK = 64 * 1024;

/** `https://storage.example/files/key` of a signed URL: the part that is safe to show. */
export function withoutQuery(url: string): string {
  try {
    const u = new URL(url);
    return u.origin + u.pathname;
  } catch {
    return '(invalid URL)';
  }
}

export async function downloadFile(opts: ResolvedOptions, url: string, signal?: AbortSignal): Promise<Download> {
  const shown = withoutQuery(url);
  if (!/^https?:\/\//i.test(url) || shown === '(invalid URL)') {
    throw new DownloadError(`not an absolute http(s) URL: ${shown}`, { operationId: OPERATION });
  }
  // The time limit covers the response headers (and an error body) only; a large file may take as long as it needs.
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), opts.timeoutMs);
  const failed = (e: unknown): unknown => {
    if (signal?.aborted) return signal.reason;
    if (timer.signal.aborted) {
      return new TimeoutError(`no answer from storage within ${opts.timeoutMs} ms (GET ${shown})`, {
        operationId: OPERATION,
        cause: e,
      });
    }
    if (e instanceof TimeoutError) return idle(e);
    if (e instanceof UnsupportedUrlError) {
      return new DownloadError(`${e.message} (GET ${shown})`, { operationId: OPERATION, cause: e });
    }
    if (e instanceof HttpProtocolError) {
      return new DownloadError(`storage sent a malformed answer: ${e.message} (GET ${shown})`, {
        operationId: OPERATION,
        cause: e,
      });
    }
    return new NetworkError(`storage request failed (GET ${shown})`, { operationId: OPERATION, cause: e });
  };
  /** http-get's idle timeout, with the URL (without its query) said. */
  const idle = (e: TimeoutError) =>
    new TimeoutError(`${e.message.replace(/^download: /, '')} (GET ${shown})`, { operationId: OPERATION, cause: e });
  let res: Awaited<ReturnType<typeof httpGet>>;
  try {
    // No headers beyond Host: storage must see neither Origin nor a service cookie or header.
    res = await httpGet(new URL(url), {
      signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
      idleTimeoutMs: opts.downloadIdleTimeoutMs,
    });
  } catch (e) {
    clearTimeout(timeout);
    throw failed(e);
  }

  if (res.status >= 300 && res.status < 400) {
    clearTimeout(timeout);
    res.body.cancel();
    throw new DownloadError(`storage answered with a redirect (${res.status}), which is not followed (GET ${shown})`, {
      operationId: OPERATION,
      status: res.status,
    });
  }
  if (res.status !== 200) {
    let text: string;
    try {
      text = redactQuery(await readPrefix(res.body, MAX_ERROR_BODY), url);
    } finally {
      clearTimeout(timeout);
    }
    const code = xmlElement(text, 'Code');
    throw new DownloadError(`storage answered ${res.status}${code ? ` ${code}` : ''} (GET ${shown})`, {
      operationId: OPERATION,
      status: res.status,
      serviceError: code,
      serviceMessage: xmlElement(text, 'Message'),
    });
  }
  clearTimeout(timeout);

  const { contentLength } = res;
  const body = guardBody(res.body, {
    expectedLength: contentLength,
    signal,
    timeout: idle,
    error: (problem, cause) =>
      new DownloadError(`${problem} (GET ${shown})`, { operationId: OPERATION, status: 200, cause }),
  });
  let stream: ReadableStream<Uint8Array> | undefined;
  return {
    readInto: body.readInto,
    cancel: body.cancel,
    get stream() {
      stream ??= byteStream(body);
      return stream;
    },
    contentLength,
    contentType: res.headers.get('content-type'),
  };
}

type GuardedBody = Pick<BodyReader, 'readInto' | 'cancel'>;

/**
 * The body with its failures turned into the caller's error: a body shorter or longer than `expectedLength`, a
 * lost connection or a malformed frame, so a reader can never mistake a cut-off body for a complete one. A cancel
 * reason comes back as it is.
 */
function guardBody(body: BodyReader, o: GuardOptions): GuardedBody {
  let cancelled: { reason: unknown } | undefined;
  return {
    readInto: async (into) => {
      try {
        return await body.readInto(into);
      } catch (e) {
        if (cancelled) throw cancelled.reason;
        if (o.signal?.aborted) throw o.signal.reason;
        const got = body.received;
        if (e instanceof TimeoutError) throw o.timeout ? o.timeout(e) : e;
        if (e instanceof HttpProtocolError) throw o.error(e.message, e);
        if (e instanceof PrematureCloseError && o.expectedLength !== undefined) {
          throw o.error(`body ended after ${got} of ${o.expectedLength} bytes`, e);
        }
        throw o.error(`connection lost after ${got} bytes`, e);
      }
    },
    cancel: (reason) => {
      cancelled ??= { reason: reason ?? new Error('the download was cancelled') };
      body.cancel(cancelled.reason);
    },
  };
}

/** `body` as a web byte stream: BYOB readers fill their own buffers, default readers get 64 KiB chunks. */
function byteStream(body: GuardedBody): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: 'bytes',
    autoAllocateChunkSize: STREAM_CHUNK,
    async pull(controller) {
      // With autoAllocateChunkSize there is always a request to fill.
      const request = controller.byobRequest!;
      const view = request.view!;
      const n = await body.readInto(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
      if (n === 0) {
        controller.close();
        request.respond(0);
      } else request.respond(n);
    },
    cancel(reason) {
      body.cancel(reason);
    },
  });
}

export interface GuardOptions {
  /** The stream must deliver exactly this many bytes. */
  expectedLength?: number | undefined;
  /** An abort of this signal surfaces as its own reason, not as a failed body. */
  signal?: AbortSignal | undefined;
  error: (problem: string, cause?: unknown) => ReportingServiceError;
  /** The connection's idle timeout, as the caller reports it (as it is when absent). */
  timeout?: ((e: TimeoutError) => ReportingServiceError) | undefined;
}

/**
 * Passes `body` through, turning a broken connection (and a body shorter or longer than `expectedLength`) into the
 * caller's error, so a reader can never mistake a cut-off body for a complete one.
 */
export function guardStream(body: ReadableStream<Uint8Array>, o: GuardOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let received = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let step: Awaited<ReturnType<typeof reader.read>>;
        try {
          step = await reader.read();
        } catch (e) {
          controller.error(o.signal?.aborted ? o.signal.reason : o.error(`connection lost after ${received} bytes`, e));
          return;
        }
        if (step.done) {
          if (o.expectedLength !== undefined && received < o.expectedLength) {
            controller.error(o.error(`body ended after ${received} of ${o.expectedLength} bytes`));
          } else controller.close();
          return;
        }
        received += step.value.byteLength;
        if (o.expectedLength !== undefined && received > o.expectedLength) {
          await reader.cancel().catch(() => {});
          controller.error(o.error(`body is longer than the announced ${o.expectedLength} bytes`));
          return;
        }
        controller.enqueue(step.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

async function readPrefix(body: BodyReader, max: number): Promise<string> {
  const buffer = Buffer.alloc(max);
  let size = 0;
  try {
    for (let n = -1; size < max && n !== 0; size += n) n = await body.readInto(buffer.subarray(size));
  } catch {
    // an error body cut off is still an error; what arrived is enough
  } finally {
    body.cancel();
  }
  return new TextDecoder().decode(buffer.subarray(0, size));
}

/** Storage formats its own errors; one that quotes the signed query (signature, credential) must not leak it. */
function redactQuery(text: string, url: string): string {
  let out = text;
  for (const value of new URL(url).searchParams.values()) if (value.length >= 8) out = out.replaceAll(value, '…');
  return out;
}

/** Text of the first `<name>` element of a storage error document (S3-style XML), if any. */
function xmlElement(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]{1,500})</${name}>`).exec(xml);
  if (!m) return undefined;
  return m[1]!.replace(/&(?:#(\d+)|amp|lt|gt|quot|apos);/g, (entity, code: string | undefined) => {
    if (code) return String.fromCharCode(Number(code));
    return { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" }[entity] ?? entity;
  });
}
