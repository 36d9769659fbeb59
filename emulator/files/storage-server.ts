// The emulator's "storage" origin (docs/interface.md "Download addresses"): a separate listener that serves export
// files through signed, expiring URLs and answers errors in its own XML format, like an object store.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Misbehaviour injected per key, so clients can be tested against broken downloads. */
export type DownloadFault = {
  /** Announce the full Content-Length but close the socket after about half of the bytes. */
  truncate?: boolean;
  /** Announce the full Content-Length, send about half of the bytes, then nothing more; the connection stays open. */
  stall?: boolean;
  /** Throttle the body to about this many bytes per second. */
  bytesPerSecond?: number;
  /** Answer 403 as if the URL had expired. */
  expired?: boolean;
  /** Send every byte, the middle one altered (the stored file stays intact). */
  corrupt?: boolean;
};

export type StorageServerOptions = {
  port?: number;
  host?: string;
  secret: Uint8Array | string;
  now: () => number;
  /** Lifetime of a signed URL; 15 minutes by default. */
  ttlMs?: number;
  resolve: (key: string) => Promise<Uint8Array | undefined>;
  faults?: (key: string) => DownloadFault | undefined;
  /** Cookies named `<headerPrefix>-…` belong to the service and must not reach storage; 'Svc' by default. */
  headerPrefix?: string;
};

export type StorageServer = {
  /** Origin of the listener, e.g. `http://127.0.0.1:40123`, without a trailing slash. */
  url: string;
  /** An absolute, signed download URL for `key`, valid for `ttlMs` (default: the server's ttl). */
  sign(key: string, ttlMs?: number): string;
  close(): Promise<void>;
};

const DEFAULT_TTL_MS = 15 * 60 * 1000;
const FILES_PATH = '/files/';
const THROTTLE_TICK_MS = 50;

export async function startStorageServer(options: StorageServerOptions): Promise<StorageServer> {
  const host = options.host ?? '127.0.0.1';
  const defaultTtl = options.ttlMs ?? DEFAULT_TTL_MS;
  const cookiePrefix = `${options.headerPrefix ?? 'Svc'}-`.toLowerCase();
  const { secret, now } = options;

  const signature = (key: string, expires: string): string =>
    // The newline keeps key/expires pairs unambiguous: expires is all digits, so the last newline splits them.
    createHmac('sha256', secret).update(`${key}\n${expires}`).digest('hex');

  const server = createServer((req, res) => {
    res.on('error', () => {}); // a client that went away is not our problem
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'InternalError', 'We encountered an internal error.');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? '';
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return sendError(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
    if (req.headers.origin !== undefined) {
      return sendError(res, 403, 'AccessDenied', 'Cross-origin requests are not allowed; fetch without an Origin.');
    }
    if (carriesServiceCookie(req.headers.cookie, cookiePrefix)) {
      return sendError(res, 403, 'AccessDenied', 'Service cookies must not be sent to storage.');
    }

    const rawUrl = req.url ?? '/';
    const queryStart = rawUrl.indexOf('?');
    const path = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart);
    const query = new URLSearchParams(queryStart === -1 ? '' : rawUrl.slice(queryStart + 1));
    // The path is decoded by hand: URL parsing would resolve "." and ".." segments inside the key.
    const key = path.startsWith(FILES_PATH) ? decodeKey(path.slice(FILES_PATH.length)) : undefined;
    if (key === undefined) return sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.');

    const expires = query.get('expires');
    const sig = query.get('sig');
    if (expires === null || sig === null || !/^\d{1,16}$/.test(expires)) {
      return sendError(res, 403, 'AccessDenied', 'Query-string authentication requires expires and sig parameters.');
    }
    if (!sameHex(sig, signature(key, expires))) {
      return sendError(res, 403, 'AccessDenied', 'The request signature we calculated does not match.');
    }
    const fault = options.faults?.(key);
    if (now() > Number(expires) || fault?.expired === true) {
      return sendError(res, 403, 'AccessDenied', 'Request has expired.');
    }

    const content = await options.resolve(key);
    if (content === undefined) return sendError(res, 404, 'NoSuchKey', 'The specified key does not exist.');

    const etag = `"${createHash('sha256').update(content).digest('hex').slice(0, 32)}"`;
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Disposition', contentDisposition(key.slice(key.lastIndexOf('/') + 1)));
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'private, no-store');

    const ifRange = req.headers['if-range'];
    const range = ifRange === undefined || ifRange === etag ? parseRange(req.headers.range, content.length) : 'full';
    if (range === 'unsatisfiable') {
      res.setHeader('Content-Range', `bytes */${content.length}`);
      return sendError(res, 416, 'InvalidRange', 'The requested range is not satisfiable.');
    }
    let body = content;
    if (range === 'full') {
      res.statusCode = 200;
    } else {
      res.statusCode = 206;
      res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${content.length}`);
      body = content.subarray(range.start, range.end + 1);
    }
    res.setHeader('Content-Length', body.length);
    if (method === 'HEAD') {
      res.end();
      return;
    }
    sendBody(res, body, fault);
  }

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  return {
    url,
    sign(key: string, ttlMs: number = defaultTtl): string {
      if (key === '') throw new RangeError('storage key must not be empty');
      const expires = String(Math.floor(now() + ttlMs));
      const query = new URLSearchParams({ expires, sig: signature(key, expires) });
      return `${url}${FILES_PATH}${encodeURIComponent(key)}?${query}`;
    },
    close: () =>
      new Promise<void>((resolveClose, rejectClose) => {
        server.close((error) => (error ? rejectClose(error) : resolveClose()));
        // Without this, keep-alive and throttled downloads would hold close() open.
        server.closeAllConnections();
      }),
  };
}

function decodeKey(encoded: string): string | undefined {
  try {
    const key = decodeURIComponent(encoded);
    return key === '' ? undefined : key;
  } catch {
    return undefined; // malformed percent-encoding
  }
}

function carriesServiceCookie(header: string | undefined, lowerCasePrefix: string): boolean {
  if (header === undefined) return false;
  // Case-insensitive on purpose: any spelling of a service cookie is a client mistake worth surfacing.
  return header.split(';').some((pair) => pair.trim().toLowerCase().startsWith(lowerCasePrefix));
}

function sameHex(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // The length is not secret (always 64); only the comparison of contents must take constant time.
  return a.length === b.length && timingSafeEqual(a, b);
}

type ByteRange = { start: number; end: number };

/** One `bytes=` range → inclusive bounds; anything we do not serve partially → 'full' (RFC 9110 lets us ignore it). */
function parseRange(header: string | undefined, size: number): ByteRange | 'full' | 'unsatisfiable' {
  if (header === undefined) return 'full';
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return 'full'; // malformed, other units, or several ranges
  const [, first = '', last = ''] = match;
  if (first === '') {
    if (last === '') return 'full';
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return 'full'; // an invalid range-spec, not an unsatisfiable one
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

function contentDisposition(fileName: string): string {
  const asciiFallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (asciiFallback === fileName) return `attachment; filename="${fileName}"`;
  return `attachment; filename="${asciiFallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${escapeXml(code)}</Code><Message>${escapeXml(message)}</Message></Error>`;
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/xml');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function corrupted(body: Uint8Array): Uint8Array {
  const copy = Buffer.from(body);
  if (copy.length > 0) copy[copy.length >> 1]! ^= 0x5a;
  return copy;
}

/** Writes the body, honouring throttle, truncation, stall and corruption faults; stops quietly if the client leaves. */
function sendBody(res: ServerResponse, stored: Uint8Array, fault: DownloadFault | undefined): void {
  const body = fault?.corrupt === true ? corrupted(stored) : stored;
  const stall = fault?.stall === true;
  const stopAt = fault?.truncate === true || stall ? Math.floor(body.length / 2) : body.length;
  const rate = fault?.bytesPerSecond;
  if (stopAt === body.length && (rate === undefined || rate <= 0)) {
    res.end(body);
    return;
  }
  const cutOff = (): void => {
    // Content-Length promised more, so the client sees a premature close rather than a complete file; a stalled
    // download just sends nothing more (the client leaves, or close() ends the connection).
    if (!stall) res.socket?.destroy();
  };
  if (rate === undefined || rate <= 0) {
    res.flushHeaders();
    if (stopAt === 0) cutOff();
    else res.write(body.subarray(0, stopAt), cutOff);
    return;
  }

  const chunkSize = Math.max(1, Math.floor((rate * THROTTLE_TICK_MS) / 1000));
  let sent = 0;
  res.flushHeaders();
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      return;
    }
    const end = Math.min(sent + chunkSize, stopAt);
    const chunk = body.subarray(sent, end);
    sent = end;
    if (sent < stopAt) {
      res.write(chunk);
      return;
    }
    clearInterval(timer);
    if (stopAt === body.length) res.end(chunk);
    else res.write(chunk, cutOff);
  }, THROTTLE_TICK_MS);
  res.once('close', () => clearInterval(timer));
}
