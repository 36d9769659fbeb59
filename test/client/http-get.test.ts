/**
 * The storage GET (src/client/http-get.ts) against scripted servers on 127.0.0.1: each test's server writes the
 * exact bytes (and splits) of an answer, so framing, misbehaviour and flow control are all real socket traffic.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../src/client/errors.ts';
import {
  type BodyReader,
  HttpProtocolError,
  httpGet,
  PrematureCloseError,
  UnsupportedUrlError,
} from '../../src/client/http-get.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));

type Script = (socket: net.Socket, request: string) => void | Promise<void>;

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that reads one request head, records it and hands the socket to `script`; returns its base URL. */
async function serve(script: Script, opts: { tls?: boolean } = {}): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const onSocket = (socket: net.Socket) => {
    socket.on('error', () => {});
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      requests.push(head);
      void script(socket, head);
    };
    socket.on('data', onData);
  };
  const server = opts.tls
    ? tls.createServer({ key: fixture('test-only-key.pem'), cert: fixture('test-only-cert.pem') }, onSocket)
    : net.createServer(onSocket);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return { url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`, requests };
}

/** Writes `parts` one by one with a pause between, so each arrives as its own read. */
async function trickle(socket: net.Socket, parts: (string | Buffer)[], end = true): Promise<void> {
  for (const p of parts) {
    if (socket.destroyed) return;
    socket.write(p);
    await sleep(2);
  }
  if (end) socket.end();
}

async function readAll(body: BodyReader, bufferSize = 64 * 1024, pauseMs = 0): Promise<Buffer> {
  const into = Buffer.alloc(bufferSize);
  const out: Buffer[] = [];
  for (;;) {
    const n = await body.readInto(into);
    if (n === 0) return Buffer.concat(out);
    out.push(Buffer.from(into.subarray(0, n)));
    if (pauseMs > 0) await sleep(pauseMs);
  }
}

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff));

describe('httpGet', () => {
  it('sends a bare GET: path and query, Host, Connection: close, and nothing that identifies a session', async () => {
    const { url, requests } = await serve((s) => void s.end('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n'));
    const res = await httpGet(new URL(`${url}/files/a%20b.zip?sig=abc&expires=1`));
    expect(res.status).toBe(204);
    expect(await res.body.readInto(Buffer.alloc(8))).toBe(0);
    const [line, ...headers] = requests[0]!.trimEnd().split('\r\n');
    expect(line).toBe('GET /files/a%20b.zip?sig=abc&expires=1 HTTP/1.1');
    expect(headers.map((h) => h.split(':')[0]!.toLowerCase()).sort()).toEqual([
      'accept-encoding',
      'connection',
      'host',
      'user-agent',
    ]);
    expect(headers).toContain(`Host: ${new URL(url).host}`);
  });

  it('reads a Content-Length body arriving in small pieces into a smaller buffer, byte for byte', async () => {
    const body = bytes(10_000);
    const pieces = [0, 1, 2, 500, 4096, 7000, 10_000].map((at, i, all) => body.subarray(at, all[i + 1] ?? at));
    const { url } = await serve((s) =>
      trickle(s, [
        'HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nX-Twice: a\r\nx-twice: b\r\nContent-Len',
        `gth: ${body.length}\r\n\r\n`,
        ...pieces,
      ]),
    );
    const res = await httpGet(new URL(`${url}/f`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('x-twice')).toBe('a, b');
    expect(res.contentLength).toBe(body.length);
    expect((await readAll(res.body, 7)).equals(body)).toBe(true);
    expect(res.body.received).toBe(body.length);
  });

  it('decodes a chunked body, with extensions and trailers, split at every byte', async () => {
    const wire = '3;name=x\r\nabc\r\nA\r\n0123456789\r\n1\r\n-\r\n0\r\nX-Trailer: t\r\n\r\n';
    const { url } = await serve((s) =>
      trickle(s, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', ...wire.split('')]),
    );
    const res = await httpGet(new URL(`${url}/f`));
    expect(res.contentLength).toBeUndefined();
    expect((await readAll(res.body, 4)).toString()).toBe('abc0123456789-');
  });

  it('skips interim 100 Continue answers (up to 8) before the real one', async () => {
    const continues = 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(8);
    const { url } = await serve((s) =>
      trickle(s, [continues, 'HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nall of ', 'it']),
    );
    const res = await httpGet(new URL(`${url}/f`));
    expect(res.status).toBe(200);
    expect((await readAll(res.body)).toString()).toBe('all of it');
  });

  it('reads an error body delimited by the end of the connection (only a 2xx must frame its body)', async () => {
    const { url } = await serve((s) => trickle(s, ['HTTP/1.1 403 Forbidden\r\n\r\n<Code>', 'AccessDenied</Code>']));
    const res = await httpGet(new URL(`${url}/f`));
    expect(res.status).toBe(403);
    expect((await readAll(res.body)).toString()).toBe('<Code>AccessDenied</Code>');
  });

  it('holds a fast sender back while the reader is slow, and loses nothing', async () => {
    const body = bytes(4 * 1024 * 1024);
    const { url } = await serve((s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.end(body);
    });
    const res = await httpGet(new URL(`${url}/f`), { readBufferSize: 16 * 1024 });
    const got = await readAll(res.body, 100_000, 1);
    expect(got.length).toBe(body.length);
    expect(got.equals(body)).toBe(true);
  });

  it('hands a read everything the socket had in that turn, not one socket read at a time', async () => {
    const body = bytes(2 * 1024 * 1024);
    const { url } = await serve((s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.end(body);
    });
    const res = await httpGet(new URL(`${url}/f`), { readBufferSize: 16 * 1024 });
    const into = Buffer.alloc(body.length);
    let reads = 0;
    for (let n = -1, at = 0; n !== 0; at += n, reads++) n = await res.body.readInto(into.subarray(at));
    expect(into.equals(body)).toBe(true);
    // At least 128 socket reads of at most 16 KiB carry the body; the reader needs far fewer.
    expect(reads).toBeLessThan(64);
  });

  it('fails a body cut off before its Content-Length with PrematureCloseError, after delivering what came', async () => {
    const { url } = await serve((s) => trickle(s, ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n', 'x'.repeat(40)]));
    const res = await httpGet(new URL(`${url}/f`));
    const into = Buffer.alloc(1000);
    let got = 0;
    const err = await (async () => {
      for (;;) got += await res.body.readInto(into.subarray(got));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrematureCloseError);
    expect(got).toBe(40);
    expect(res.body.received).toBe(40);
  });

  it('fails a chunked body that ends without its last chunk', async () => {
    const { url } = await serve((s) => trickle(s, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab']));
    const res = await httpGet(new URL(`${url}/f`));
    await expect(readAll(res.body)).rejects.toBeInstanceOf(PrematureCloseError);
  });

  it.each([
    ['a body longer than its Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef', /longer/],
    ['a malformed status line', 'HTTP/2 200\r\n\r\n', /status line/],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /header line/],
    ['a malformed Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n', /Content-Length/],
    ['an unknown transfer coding', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', /Transfer-Encoding/],
    ['a malformed chunk size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk size/],
    ['chunk data without its CRLF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n', /CRLF/],
    ['an obs-fold continuation line', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\nContent-Length: 0\r\n\r\n', /obs-fold/],
    ['whitespace before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n', /before the colon/],
    ['NUL in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 0\r\n\r\n', /NUL, CR or LF/],
    ['a bare CR in a header value', 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 0\r\n\r\n', /NUL, CR or LF/],
    ['a bare LF in the head', 'HTTP/1.1 200 OK\r\nX-A: a\nContent-Length: 0\r\n\r\n', /bare LF/],
    ['a forbidden character in a header name', 'HTTP/1.1 200 OK\r\nX(A): 1\r\nContent-Length: 0\r\n\r\n', /name/],
    [
      'Transfer-Encoding with Content-Length',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
      /Transfer-Encoding with Content-Length refused/,
    ],
    ['a repeated Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na', /repeated/],
    ['a bare LF in the chunked framing', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n', /bare LF/],
    ['a bare LF after chunk data', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n', /bare LF/],
    ['101 Switching Protocols', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n', /interim answer 101/],
    ['103 Early Hints', 'HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', /103/],
    ['a ninth 100 Continue', `${'HTTP/1.1 100 Continue\r\n\r\n'.repeat(9)}HTTP/1.1 200 OK\r\n`, /more than 8/],
    ['a 200 framed by the end of the connection', 'HTTP/1.1 200 OK\r\n\r\nabc', /neither Content-Length nor chunked/],
    [
      'more than 32 trailer fields',
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${'X-T: 1\r\n'.repeat(33)}\r\n`,
      /more than 32 trailer/,
    ],
    [
      'a trailer section over 8 KiB',
      `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: ${'t'.repeat(9000)}\r\n\r\n`,
      /trailer section longer/,
    ],
    ['an obs-fold trailer', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n 2\r\n\r\n', /obs-fold/],
  ])('rejects %s with HttpProtocolError', async (_what, answer, message) => {
    const { url } = await serve((s) => void s.write(answer));
    const err = await httpGet(new URL(`${url}/f`))
      .then((res) => readAll(res.body))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpProtocolError);
    expect((err as Error).message).toMatch(message);
  });

  it('accepts a head of exactly maxHeadBytes (its CRLFCRLF included) and refuses one byte more', async () => {
    const head = (size: number) => {
      const start = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: ';
      return `${start}${'p'.repeat(size - start.length - 4)}\r\n\r\n`;
    };
    for (const [size, ok] of [
      [1023, true],
      [1024, true],
      [1025, false],
    ] as const) {
      expect(head(size)).toHaveLength(size);
      const { url } = await serve((s) => void s.end(`${head(size)}ok`));
      const got = await httpGet(new URL(`${url}/f`), { maxHeadBytes: 1024 })
        .then(async (res) => (await readAll(res.body)).toString())
        .catch((e: unknown) => e);
      if (ok) expect(got).toBe('ok');
      else expect((got as Error).message).toMatch(/response head longer than 1024 bytes/);
    }
  });

  it('checks a head that arrives byte by byte as one that arrives at once', async () => {
    const good = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 2\r\n\r\nok';
    const bad = 'HTTP/1.1 200 OK\r\nX-A: 1\nContent-Length: 2\r\n\r\nok';
    const { url } = await serve((s, req) => trickle(s, (req.startsWith('GET /good') ? good : bad).split('')));
    const res = await httpGet(new URL(`${url}/good`));
    expect((await readAll(res.body)).toString()).toBe('ok');
    await expect(httpGet(new URL(`${url}/bad`))).rejects.toThrow(/bare LF in the response head refused/);
  });

  it('refuses an unfinished head as soon as it reaches maxHeadBytes', async () => {
    const { url } = await serve((s) => void s.write(`HTTP/1.1 200 OK\r\nX-Big: ${'b'.repeat(2000)}`));
    await expect(httpGet(new URL(`${url}/f`), { maxHeadBytes: 1024 })).rejects.toThrow(/longer than 1024 bytes/);
  });

  it('fetches https: and loopback http: only, refusing before any connection', async () => {
    for (const url of ['http://example.com/f', 'http://10.0.0.1/f', 'http://[::2]/f', 'ftp://127.0.0.1/f']) {
      await expect(httpGet(new URL(url))).rejects.toBeInstanceOf(UnsupportedUrlError);
    }
    const { url, requests } = await serve((s) => void s.end('HTTP/1.1 204 No Content\r\n\r\n'));
    const port = new URL(url).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      expect((await httpGet(new URL(`http://${host}:${port}/f`))).status).toBe(204);
    }
    expect(requests).toHaveLength(2);
    // Allowed too, so it gets as far as the socket (nothing listens there).
    await expect(httpGet(new URL(`http://127.1.2.3:${port}/f`))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('times out when the server goes silent: before the head, and in the body while a read waits', async () => {
    const { url } = await serve((s, req) => {
      if (req.startsWith('GET /body')) s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab');
    });
    const head = await httpGet(new URL(`${url}/head`), { idleTimeoutMs: 50 }).catch((e: unknown) => e);
    expect(head).toBeInstanceOf(TimeoutError);
    expect((head as Error).message).toMatch(/sent nothing for 50 ms \(before the response head\)/);

    const res = await httpGet(new URL(`${url}/body`), { idleTimeoutMs: 50 });
    const err = await readAll(res.body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toMatch(/after 2 body bytes/);
  });

  it('does not count the time a slow reader takes between reads', async () => {
    const body = bytes(256 * 1024);
    const { url } = await serve((s) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.end(body);
    });
    const res = await httpGet(new URL(`${url}/f`), { idleTimeoutMs: 40, readBufferSize: 16 * 1024 });
    const into = Buffer.alloc(64 * 1024);
    expect(await res.body.readInto(into)).toBeGreaterThan(0);
    await sleep(150); // the socket is paused meanwhile: silence that is the reader's doing
    const rest = await readAll(res.body, 64 * 1024);
    expect(res.body.received).toBe(body.length);
    expect(rest.length).toBeGreaterThan(0);
  });

  it('rejects a response head larger than 64 KiB', async () => {
    const { url } = await serve((s) => void s.write(`HTTP/1.1 200 OK\r\nX-Big: ${'b'.repeat(70_000)}`));
    await expect(httpGet(new URL(`${url}/f`))).rejects.toThrow(/response head longer/);
  });

  it('rejects when the connection closes before the response head', async () => {
    const { url } = await serve((s) => void s.end('HTTP/1.1 200 OK\r\n'));
    await expect(httpGet(new URL(`${url}/f`))).rejects.toBeInstanceOf(PrematureCloseError);
  });

  it('gives up on abort: while waiting for the head, and while a read waits for bytes', async () => {
    const { url } = await serve((s, req) => {
      if (req.startsWith('GET /body')) s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab');
    });
    const early = new AbortController();
    const pending = httpGet(new URL(`${url}/head`), { signal: early.signal });
    setTimeout(() => early.abort(new Error('head: enough')), 30);
    await expect(pending).rejects.toThrow('head: enough');

    const late = new AbortController();
    const res = await httpGet(new URL(`${url}/body`), { signal: late.signal });
    expect(await res.body.readInto(Buffer.alloc(10))).toBe(2);
    setTimeout(() => late.abort(new Error('body: enough')), 30);
    await expect(res.body.readInto(Buffer.alloc(10))).rejects.toThrow('body: enough');
  });

  it('cancel closes the connection and a waiting read rejects with the reason', async () => {
    let closed!: Promise<void>;
    const { url } = await serve((s) => {
      closed = new Promise((r) => s.once('close', () => r()));
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n');
    });
    const res = await httpGet(new URL(`${url}/f`));
    const read = res.body.readInto(Buffer.alloc(10));
    res.body.cancel(new Error('stalled'));
    await expect(read).rejects.toThrow('stalled');
    await closed;
  });

  it('fails with the socket error when nothing listens', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((r) => probe.close(r));
    await expect(httpGet(new URL(`http://127.0.0.1:${port}/f`))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  describe('over TLS', () => {
    it('reads through its own read buffer, as over TCP', async () => {
      const body = bytes(300_000);
      const { url } = await serve(
        (s) => {
          s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`);
          s.end(body);
        },
        { tls: true },
      );
      const res = await httpGet(new URL(`${url}/f`), { ca: fixture('test-only-cert.pem') });
      expect((await readAll(res.body, 10_000)).equals(body)).toBe(true);
    });

    it('checks the certificate: one nobody vouches for is refused', async () => {
      const { url } = await serve((s) => void s.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'), { tls: true });
      await expect(httpGet(new URL(`${url}/f`))).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    });
  });
});
