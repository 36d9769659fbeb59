/**
 * Downloads from signed storage URLs (api-shapes §1.10): a bare GET — no service cookies, no Origin, no service
 * headers, no redirects — whose body is checked against the announced length while it is read. The URL's query
 * string is its signature, so it never appears in a message or a log.
 */
import { DownloadError, NetworkError, type ReportingServiceError, TimeoutError } from './errors.ts';
import type { ResolvedOptions } from './options.ts';

export interface Download {
  /** The body; errors while reading (a truncated body) surface as DownloadError. */
  stream: ReadableStream<Uint8Array>;
  /** `Content-Length` announced by storage, when present. */
  contentLength: number | undefined;
  contentType: string | undefined;
}

const OPERATION = 'download';
/** Enough of a storage error body to find its `<Code>`; the rest is not worth waiting for. */
const MAX_ERROR_BODY = 16 * 1024;

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
  let res: Response;
  try {
    // No headers at all: storage must see neither Origin nor a service cookie or header (§1.10).
    res = await opts.fetch(url, {
      method: 'GET',
      redirect: 'error',
      credentials: 'omit',
      signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
    });
  } catch (e) {
    clearTimeout(timeout);
    if (signal?.aborted) throw signal.reason;
    if (timer.signal.aborted) {
      throw new TimeoutError(`no answer from storage within ${opts.timeoutMs} ms (GET ${shown})`, {
        operationId: OPERATION,
        cause: e,
      });
    }
    // `redirect: 'error'` fails inside fetch; a redirect is still an answer, and not one we follow.
    if (/redirect/i.test(String((e as { cause?: unknown })?.cause))) {
      throw new DownloadError(`storage answered with a redirect, which is not followed (GET ${shown})`, {
        operationId: OPERATION,
        cause: e,
      });
    }
    throw new NetworkError(`storage request failed (GET ${shown})`, { operationId: OPERATION, cause: e });
  }

  if (res.status !== 200) {
    const text = redactQuery(await readPrefix(res, MAX_ERROR_BODY), url);
    clearTimeout(timeout);
    const code = xmlElement(text, 'Code');
    throw new DownloadError(`storage answered ${res.status}${code ? ` ${code}` : ''} (GET ${shown})`, {
      operationId: OPERATION,
      status: res.status,
      serviceError: code,
      serviceMessage: xmlElement(text, 'Message'),
    });
  }
  clearTimeout(timeout);
  if (!res.body)
    throw new DownloadError(`storage sent no body (GET ${shown})`, { operationId: OPERATION, status: 200 });

  const announced = res.headers.get('content-length');
  const encoded = (res.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  // With a content coding, fetch decodes the body, so its length no longer matches Content-Length.
  const contentLength = announced !== null && /^\d+$/.test(announced) ? Number(announced) : undefined;
  const stream = guardStream(res.body, {
    expectedLength: encoded ? undefined : contentLength,
    signal,
    error: (problem, cause) =>
      new DownloadError(`${problem} (GET ${shown})`, { operationId: OPERATION, status: 200, cause }),
  });
  return { stream, contentLength, contentType: res.headers.get('content-type') ?? undefined };
}

export interface GuardOptions {
  /** The stream must deliver exactly this many bytes. */
  expectedLength?: number | undefined;
  /** An abort of this signal surfaces as its own reason, not as a failed body. */
  signal?: AbortSignal | undefined;
  error: (problem: string, cause?: unknown) => ReportingServiceError;
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

async function readPrefix(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const step = await reader.read();
      if (step.done) break;
      chunks.push(step.value);
      size += step.value.byteLength;
    }
  } catch {
    // an error body cut off is still an error; what arrived is enough
  } finally {
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max));
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
