/**
 * A bare HTTP/1.1 GET whose body is read into the caller's buffers: the transport of downloads from signed storage
 * URLs (download.ts).
 *
 * Why not fetch: every chunk fetch (or node:http) delivers is a new 64 KiB Buffer, so a 1 GiB download allocates
 * 1 GiB that lives until the next garbage collection — about 100 MB of resident memory on top of the copy itself
 * (bench/RESULTS.md). Here the socket reads into one buffer allocated per connection (`onread`, for TCP and TLS
 * alike), the body bytes are copied from it straight into the buffer the reader passes to `readInto`, and nothing
 * is allocated per chunk.
 *
 * Scope, on purpose: one request per connection (`Connection: close`), no redirects, no content codings
 * (`Accept-Encoding: identity`), no proxies (HTTPS_PROXY is not read: storage URLs are fetched directly), `https:`
 * only (plain `http:` to a loopback address, for local runs). Storage answers a signed GET simply, so the parser is
 * strict — at least as strict as Node's own (llhttp; test/client/http-get-differential.test.ts holds the two side by
 * side): no obs-fold, no whitespace before a header's colon, no NUL/CR/LF or other control characters in header
 * names or values, no Transfer-Encoding with Content-Length, no duplicate Content-Length, CRLF line ends only (in
 * the chunked framing too), a bounded head and trailer section, 100 Continue skipped at most a few times and any
 * other 1xx refused, and a successful answer must frame its body (Content-Length or chunked): one delimited by the
 * connection's end could be cut off unnoticed. Each refusal is an HttpProtocolError naming what was wrong.
 *
 * A connection that sends nothing for `idleTimeoutMs` while bytes are awaited (the head, or the body while a read
 * waits) fails with a TimeoutError; time the reader spends between reads does not count.
 */
import net from 'node:net';
import tls from 'node:tls';
import { TimeoutError } from './errors.ts';
import { isLoopbackHost } from './loopback-host.ts';

/** The response violates HTTP/1.1 framing (or our limits on it); the connection is closed. */
export class HttpProtocolError extends Error {
  override name = 'HttpProtocolError';
}

/** The connection closed before the body's framing said it was complete. */
export class PrematureCloseError extends Error {
  override name = 'PrematureCloseError';
}

/** The URL is not one this GET fetches: `https:`, or `http:` to a loopback address. No socket was opened. */
export class UnsupportedUrlError extends Error {
  override name = 'UnsupportedUrlError';
}

export interface GetOptions {
  /** Aborting closes the connection; a pending read rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Size of the connection's read buffer. @default 65536 */
  readBufferSize?: number;
  /** Extra trust anchors for https (tests with a self-signed certificate). */
  ca?: string | Buffer | undefined;
  /**
   * The longest the server may stay silent while bytes are awaited (the response head, or body bytes for a waiting
   * read); then the GET fails with a TimeoutError and the connection is closed. @default 30000
   */
  idleTimeoutMs?: number | undefined;
  /** Largest response head accepted, in bytes, its final CRLFCRLF included. @default 65536 */
  maxHeadBytes?: number | undefined;
}

export interface BodyReader {
  /**
   * Copies the next body bytes into `into`, from its start, and resolves with how many (at least one), or 0 once the
   * body is complete. Rejects when the connection fails or closes early. One read at a time.
   */
  readInto(into: Uint8Array): Promise<number>;
  /** Body bytes delivered so far. */
  readonly received: number;
  /** Closes the connection; a pending read rejects with `reason`. Safe to call at any time, more than once. */
  cancel(reason?: unknown): void;
}

export interface GetResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Map<string, string>;
  /** The Content-Length that frames the body (checked: a body shorter or longer fails); absent when chunked or close-delimited. */
  contentLength: number | undefined;
  body: BodyReader;
}

const MAX_HEAD = 64 * 1024;
const MAX_CHUNK_LINE = 4096;
/** Trailer fields after a chunked body: at most this many, in at most this many bytes (line ends included). */
const MAX_TRAILERS = 32;
const MAX_TRAILER_BYTES = 8 * 1024;
/** Interim 100 Continue answers skipped before the real one; one more is refused. */
const MAX_CONTINUES = 8;
const IDLE_TIMEOUT_MS = 30_000;
const CRLFCRLF = Buffer.from('\r\n\r\n');

export function httpGet(url: URL, opts: GetOptions = {}): Promise<GetResponse> {
  const refused = checkUrl(url);
  if (refused) return Promise.reject(refused);
  return new Promise((resolve, reject) => {
    new Connection(url, opts, resolve, reject);
  });
}

/** `https:` always; `http:` only to a loopback host (127.0.0.0/8, ::1, localhost), where nobody can listen in. */
function checkUrl(url: URL): UnsupportedUrlError | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return new UnsupportedUrlError(`${url.protocol} URLs are not fetched (https: only)`);
  if (isLoopbackHost(url.hostname)) return undefined;
  return new UnsupportedUrlError(
    `plain http: is fetched only from a loopback address, not from ${url.host} (use https:)`,
  );
}

type Framing =
  | { kind: 'length'; remaining: number }
  | {
      kind: 'chunked';
      state: 'size' | 'data' | 'data-end' | 'trailer';
      remaining: number;
      line: string;
      trailers: number;
      trailerBytes: number;
    }
  | { kind: 'close' };

interface PendingRead {
  into: Uint8Array;
  /** Bytes already copied into `into`. */
  filled: number;
  resolve: (n: number) => void;
  reject: (e: unknown) => void;
}

class Connection implements BodyReader {
  readonly #socket: net.Socket;
  #onHead: ((r: GetResponse) => void) | undefined;
  #onHeadError: ((e: unknown) => void) | undefined;
  #head: Buffer[] = [];
  #framing: Framing | undefined;
  /** Body bytes that arrived while no read was waiting; the socket is paused while there are any. */
  readonly #stash: Buffer;
  #stashStart = 0;
  #stashEnd = 0;
  #pending: PendingRead | undefined;
  /** Settles a partly filled read once this turn of the event loop has read what the socket had. */
  #settleSoon: NodeJS.Immediate | undefined;
  #complete = false;
  #failure: unknown;
  #paused = false;
  readonly #maxHead: number;
  readonly #idleMs: number;
  /** Fails the connection when it stays silent while bytes are awaited; refreshed by every arrival. */
  readonly #idle: NodeJS.Timeout;
  #continues = 0;
  /** Bytes of the head so far already checked for bare LFs. */
  #headScanned = 0;
  received = 0;

  constructor(url: URL, opts: GetOptions, resolve: (r: GetResponse) => void, reject: (e: unknown) => void) {
    this.#onHead = resolve;
    this.#onHeadError = reject;
    this.#maxHead = opts.maxHeadBytes ?? MAX_HEAD;
    this.#idleMs = opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    this.#idle = setTimeout(() => this.#onIdle(), this.#idleMs);
    const size = opts.readBufferSize ?? 64 * 1024;
    this.#stash = Buffer.allocUnsafeSlow(size);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const https = url.protocol === 'https:';
    const port = Number(url.port) || (https ? 443 : 80);
    const buffer = Buffer.allocUnsafeSlow(size);
    const onread = { buffer, callback: (n: number) => this.#onBytes(buffer.subarray(0, n)) };
    // tls.connect takes `onread` as net.connect does (Node ≥ 15.1), though @types/node does not declare it there.
    const secure: tls.ConnectionOptions & { onread: typeof onread } = {
      host,
      port,
      onread,
      ALPNProtocols: ['http/1.1'],
      ...(net.isIP(host) ? {} : { servername: host }),
      ...(opts.ca ? { ca: opts.ca } : {}),
    };
    this.#socket = https ? tls.connect(secure) : net.connect({ host, port, onread });
    this.#socket.on('error', (e) => this.#fail(e));
    this.#socket.on('end', () => this.#onEnd());
    this.#socket.on('close', () => this.#fail(new PrematureCloseError('the connection closed')));
    const signal = opts.signal;
    if (signal) {
      if (signal.aborted) this.#fail(signal.reason);
      else {
        const onAbort = () => this.#fail(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        this.#socket.once('close', () => signal.removeEventListener('abort', onAbort));
      }
    }
    this.#socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n` +
        'Accept-Encoding: identity\r\nUser-Agent: pulse\r\n\r\n',
    );
  }

  readInto(into: Uint8Array): Promise<number> {
    if (this.#pending) return Promise.reject(new Error('a read is already waiting on this body'));
    if (into.byteLength === 0) return Promise.resolve(0);
    if (this.#stashEnd > this.#stashStart) {
      const n = Math.min(into.byteLength, this.#stashEnd - this.#stashStart);
      into.set(this.#stash.subarray(this.#stashStart, this.#stashStart + n));
      this.#stashStart += n;
      if (this.#stashStart === this.#stashEnd) this.#resume();
      return Promise.resolve(n);
    }
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#complete) return Promise.resolve(0);
    return new Promise((resolve, reject) => {
      this.#pending = { into, filled: 0, resolve, reject };
      this.#resume();
    });
  }

  cancel(reason?: unknown): void {
    this.#fail(reason ?? new Error('the body was cancelled'));
  }

  /** Called by the socket with bytes in its read buffer, valid only during the call. false pauses the socket. */
  #onBytes(data: Buffer): boolean {
    if (this.#failure !== undefined || this.#complete) return false;
    this.#idle.refresh();
    try {
      if (this.#framing === undefined) this.#readHead(data);
      else this.#frame(data);
    } catch (e) {
      this.#fail(e);
      return false;
    }
    // Reading on while the stash is empty lets one buffer's worth arrive ahead of the next read; pausing whenever
    // the stash holds bytes keeps it from ever needing more than that.
    const keepReading = !this.#complete && this.#stashEnd === this.#stashStart;
    this.#paused = !keepReading;
    return keepReading;
  }

  #readHead(data: Buffer): void {
    this.#head.push(Buffer.from(data)); // copied: the socket reuses its buffer (the head is small and read once)
    const all = this.#head.length === 1 ? this.#head[0]! : Buffer.concat(this.#head);
    this.#head = [all];
    const max = this.#maxHead;
    // The head ends within its first `max` bytes (its CRLFCRLF included), or it is too long.
    const end = all.subarray(0, max).indexOf(CRLFCRLF);
    // Line ends are CRLF, nothing else: a bare LF would split lines where another parser does not (a CR elsewhere
    // is a forbidden character of its line). Only the bytes that arrived since the last look are scanned.
    const head = all.subarray(0, end >= 0 ? end + 4 : max);
    for (let i = head.indexOf(0x0a, this.#headScanned); i >= 0; i = head.indexOf(0x0a, i + 1)) {
      if (i === 0 || head[i - 1] !== 0x0d) throw new HttpProtocolError('bare LF in the response head refused');
    }
    this.#headScanned = head.byteLength;
    if (end < 0) {
      if (all.byteLength >= max) throw new HttpProtocolError(`response head longer than ${max} bytes`);
      return;
    }
    this.#headScanned = 0;
    const lines = all.subarray(0, end).toString('latin1').split('\r\n');
    const status = /^HTTP\/1\.[01] ([1-9]\d\d)(?: [\t\x20-\x7e\x80-\xff]*)?$/.exec(lines[0]!);
    if (!status) throw new HttpProtocolError(`not an HTTP/1.1 status line: ${JSON.stringify(lines[0]!.slice(0, 60))}`);
    const code = Number(status[1]);
    const headers = parseFields(lines.slice(1), 'header');
    const rest = all.subarray(end + 4);
    if (code >= 100 && code < 200) {
      // 100 Continue is an interim answer the real one follows (a few at most); anything else in 1xx (101 Switching
      // Protocols, 103 Early Hints) is not what a GET of a file gets.
      if (code !== 100) throw new HttpProtocolError(`interim answer ${code} refused (only 100 Continue is skipped)`);
      if (++this.#continues > MAX_CONTINUES) {
        throw new HttpProtocolError(`more than ${MAX_CONTINUES} interim 100 Continue answers refused`);
      }
      this.#head = [];
      if (rest.byteLength > 0) this.#readHead(rest);
      return;
    }
    this.#framing = framingOf(code, headers);
    this.#head = [];
    const onHead = this.#onHead!;
    this.#onHead = undefined;
    this.#onHeadError = undefined;
    const framing = this.#framing;
    onHead({
      status: code,
      headers,
      contentLength: framing.kind === 'length' ? framing.remaining : undefined,
      body: this,
    });
    if (this.#framing.kind === 'length' && this.#framing.remaining === 0) this.#finish();
    else if (rest.byteLength > 0) this.#frame(rest);
  }

  /** Takes raw body bytes (framing included) and delivers the payload. */
  #frame(data: Buffer): void {
    const f = this.#framing!;
    if (f.kind === 'close') {
      this.#deliver(data);
      return;
    }
    if (f.kind === 'length') {
      if (data.byteLength > f.remaining) {
        throw new HttpProtocolError(`body is longer than the announced Content-Length`);
      }
      f.remaining -= data.byteLength;
      this.#deliver(data);
      if (f.remaining === 0) this.#finish();
      return;
    }
    let at = 0;
    while (at < data.byteLength && !this.#complete) {
      if (f.state === 'data') {
        const n = Math.min(f.remaining, data.byteLength - at);
        this.#deliver(data.subarray(at, at + n));
        at += n;
        f.remaining -= n;
        if (f.remaining === 0) f.state = 'data-end';
        continue;
      }
      const eol = data.indexOf(0x0a, at);
      const piece = data.subarray(at, eol < 0 ? data.byteLength : eol + 1).toString('latin1');
      at += piece.length;
      f.line += piece;
      if (f.state === 'trailer') {
        f.trailerBytes += piece.length;
        if (f.trailerBytes > MAX_TRAILER_BYTES) {
          throw new HttpProtocolError(`trailer section longer than ${MAX_TRAILER_BYTES} bytes refused`);
        }
      } else if (f.line.length > MAX_CHUNK_LINE) throw new HttpProtocolError('chunk header line too long');
      if (eol < 0) return;
      if (!f.line.endsWith('\r\n')) throw new HttpProtocolError('bare LF in chunked framing refused');
      const line = f.line.slice(0, -2);
      f.line = '';
      if (line.includes('\r')) throw new HttpProtocolError('bare CR in chunked framing refused');
      if (f.state === 'data-end') {
        if (line !== '') throw new HttpProtocolError('chunk data not followed by CRLF');
        f.state = 'size';
      } else if (f.state === 'size') {
        const size = CHUNK_SIZE_LINE.exec(line);
        if (!size) throw new HttpProtocolError(`malformed chunk size: ${JSON.stringify(line.slice(0, 40))}`);
        f.remaining = Number.parseInt(size[1]!, 16);
        f.state = f.remaining === 0 ? 'trailer' : 'data';
      } else if (line === '') {
        this.#finish(); // the empty line after the trailers
      } else {
        if (++f.trailers > MAX_TRAILERS)
          throw new HttpProtocolError(`more than ${MAX_TRAILERS} trailer fields refused`);
        parseFields([line], 'trailer');
      }
    }
  }

  /**
   * Payload bytes for the reader: into the waiting read as far as they fit, the rest into the stash. A read that is
   * not full yet settles after the socket's other reads of this event-loop turn (libuv reads a busy socket several
   * times per turn), so each read hands over what arrived meanwhile, not one socket read: fewer, larger reads keep
   * the per-read work of the layers above (hashing, the ZIP check, promises) small.
   */
  #deliver(data: Buffer): void {
    if (data.byteLength === 0) return;
    this.received += data.byteLength;
    let rest = data;
    const read = this.#pending;
    if (read && this.#stashEnd === this.#stashStart) {
      const n = Math.min(read.into.byteLength - read.filled, rest.byteLength);
      read.into.set(rest.subarray(0, n), read.filled);
      read.filled += n;
      rest = rest.subarray(n);
      if (read.filled === read.into.byteLength) this.#settleRead();
      else this.#settleSoon ??= setImmediate(() => this.#settleRead());
    }
    if (rest.byteLength === 0) return;
    if (this.#stashStart === this.#stashEnd) this.#stashStart = this.#stashEnd = 0;
    if (this.#stashEnd + rest.byteLength > this.#stash.byteLength) {
      // Compact first; the stash holds at most one read buffer's worth, since the socket pauses while it has any.
      this.#stash.copy(this.#stash, 0, this.#stashStart, this.#stashEnd);
      this.#stashEnd -= this.#stashStart;
      this.#stashStart = 0;
    }
    if (this.#stashEnd + rest.byteLength > this.#stash.byteLength) {
      throw new HttpProtocolError('read buffer overrun'); // not reachable while the socket pauses as it should
    }
    this.#stash.set(rest, this.#stashEnd);
    this.#stashEnd += rest.byteLength;
  }

  /** Resolves the waiting read with what it holds (0 only at the end of the body). */
  #settleRead(): void {
    clearImmediate(this.#settleSoon);
    this.#settleSoon = undefined;
    const read = this.#pending;
    if (!read || (read.filled === 0 && !this.#complete)) return;
    this.#pending = undefined;
    read.resolve(read.filled);
  }

  #finish(): void {
    this.#complete = true;
    clearTimeout(this.#idle);
    this.#settleRead();
    this.#socket.destroy();
  }

  #onEnd(): void {
    if (this.#complete || this.#failure !== undefined) return;
    if (this.#framing?.kind === 'close') {
      this.#finish();
      return;
    }
    const what = this.#framing === undefined ? 'before the response head' : `after ${this.received} body bytes`;
    this.#fail(new PrematureCloseError(`the connection closed ${what}`));
  }

  #fail(e: unknown): void {
    if (this.#complete || this.#failure !== undefined) return;
    this.#failure = e;
    clearTimeout(this.#idle);
    this.#socket.destroy();
    const onHeadError = this.#onHeadError;
    this.#onHead = this.#onHeadError = undefined;
    onHeadError?.(e);
    clearImmediate(this.#settleSoon);
    const read = this.#pending;
    this.#pending = undefined;
    read?.reject(e);
  }

  #resume(): void {
    if (!this.#paused || this.#failure !== undefined || this.#complete) return;
    this.#paused = false;
    this.#idle.refresh(); // the silence counts from now: while paused, the reader was the slow one
    this.#socket.resume();
  }

  /** The idle timer fired: a failure if bytes were awaited all along (not while paused for a slow reader). */
  #onIdle(): void {
    if (this.#failure !== undefined || this.#complete) return;
    if (this.#paused) return; // re-armed by #resume
    const what = this.#framing === undefined ? 'before the response head' : `after ${this.received} body bytes`;
    this.#fail(new TimeoutError(`storage sent nothing for ${this.#idleMs} ms (${what})`, { operationId: 'download' }));
  }
}

const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const QUOTED = '"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t\\x20-\\x7e\\x80-\\xff])*"';
/** A chunk size (at most 12 hex digits: 256 TiB) and extensions, without whitespace (llhttp refuses it too). */
const CHUNK_SIZE_LINE = new RegExp(`^([0-9a-fA-F]{1,12})(?:;${TOKEN}(?:=(?:${TOKEN}|${QUOTED}))?)*$`);
const FIELD_NAME = new RegExp(`^${TOKEN}$`);
const NUL_CR_LF = /[\0\r\n]/;
/** Control characters other than HTAB (NUL, CR and LF among them) have no place in a field value. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
const FIELD_VALUE_FORBIDDEN = /[\x00-\x08\x0a-\x1f\x7f]/;

/** Header (or trailer) lines, split at CRLF already, into a map of lower-case names; repeats joined with ", ". */
function parseFields(lines: string[], what: 'header' | 'trailer'): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of lines) {
    if (line.startsWith(' ') || line.startsWith('\t')) {
      throw new HttpProtocolError(`${what} continuation line (obs-fold) refused`);
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HttpProtocolError(`malformed ${what} line: ${JSON.stringify(line.slice(0, 60))}`);
    const rawName = line.slice(0, colon);
    if (/[ \t]$/.test(rawName)) throw new HttpProtocolError(`whitespace before the colon of a ${what} refused`);
    if (!FIELD_NAME.test(rawName)) {
      const bad = NUL_CR_LF.test(rawName) ? ' (NUL, CR or LF)' : '';
      throw new HttpProtocolError(`forbidden character${bad} in ${what} name ${JSON.stringify(rawName.slice(0, 60))}`);
    }
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (FIELD_VALUE_FORBIDDEN.test(value)) {
      const bad = NUL_CR_LF.test(value) ? ' (NUL, CR or LF)' : ' (a control character)';
      throw new HttpProtocolError(`forbidden character${bad} in the value of ${what} ${rawName}`);
    }
    const name = rawName.toLowerCase();
    if (name === 'content-length' && fields.has(name)) throw new HttpProtocolError('repeated Content-Length refused');
    const before = fields.get(name);
    fields.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return fields;
}

function framingOf(status: number, headers: Map<string, string>): Framing {
  const te = headers.get('transfer-encoding');
  const length = headers.get('content-length');
  if (te !== undefined && length !== undefined)
    throw new HttpProtocolError('Transfer-Encoding with Content-Length refused');
  // 204 and 304 have no body, whatever their headers say (RFC 9112 section 6.3).
  if (status === 204 || status === 304) return { kind: 'length', remaining: 0 };
  if (te !== undefined) {
    if (te.toLowerCase() !== 'chunked') throw new HttpProtocolError(`unsupported Transfer-Encoding: ${te}`);
    return { kind: 'chunked', state: 'size', remaining: 0, line: '', trailers: 0, trailerBytes: 0 };
  }
  if (length === undefined) {
    // Delimited by the connection's end, a body cut off would look complete: acceptable for an error's text only.
    if (status >= 200 && status < 300) {
      throw new HttpProtocolError(`a ${status} answer with neither Content-Length nor chunked framing refused`);
    }
    return { kind: 'close' };
  }
  if (!/^\d{1,15}$/.test(length)) throw new HttpProtocolError(`malformed Content-Length: ${length.slice(0, 40)}`);
  return { kind: 'length', remaining: Number(length) };
}
