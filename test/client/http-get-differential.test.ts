/**
 * Differential test of the storage GET (src/client/http-get.ts) against Node's own HTTP parser, llhttp, as undici
 * runs it: a raw TCP server on 127.0.0.1 answers with each response of a corpus of valid and malformed answers,
 * fetched once with httpGet and once with undici's `request` (a fresh Client per case: no connection is reused).
 *
 * The contract: wherever undici refuses an answer (throws, or errors while its body is read), httpGet refuses it
 * too; where undici accepts, httpGet returns the same status and body bytes — except for the cases marked
 * `stricter`, which httpGet refuses on purpose (each says why). One answer undici refuses by a rule of its own, not
 * llhttp's: an unsolicited 100 Continue (undici: "bad response"). RFC 9110 section 15.2 has clients skip it, and so do
 * httpGet and node:http, which runs the same llhttp; that case (`lenient`) is compared with node:http instead.
 */
import http from 'node:http';
import net from 'node:net';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpProtocolError, httpGet, PrematureCloseError } from '../../src/client/http-get.ts';

interface Case {
  name: string;
  wire: string;
  /** httpGet refuses although llhttp accepts: the reason. */
  stricter?: string;
  /** undici refuses by a rule of its own (not llhttp's): the reason; httpGet answers as node:http does. */
  lenient?: string;
}

const OK = 'HTTP/1.1 200 OK\r\n';
const CHUNKED = `${OK}Transfer-Encoding: chunked\r\n\r\n`;

const corpus: Case[] = [
  // Valid answers: both accept, with the same status and body.
  { name: 'Content-Length body', wire: `${OK}Content-Type: application/zip\r\nContent-Length: 5\r\n\r\nhello` },
  { name: 'Content-Length 0', wire: `${OK}Content-Length: 0\r\n\r\n` },
  { name: 'chunked', wire: `${CHUNKED}3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n` },
  { name: 'chunked, upper-case size', wire: `${CHUNKED}A\r\n0123456789\r\n0\r\n\r\n` },
  {
    name: 'chunked with extensions and a trailer',
    wire: `${CHUNKED}3;name=x\r\nabc\r\n2;a;b="q d"\r\nde\r\n0\r\nX-Checksum: abc\r\n\r\n`,
  },
  { name: '204 without a body', wire: 'HTTP/1.1 204 No Content\r\n\r\n' },
  { name: '304 without a body', wire: 'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n' },
  {
    name: '100 Continue, then 200',
    wire: `HTTP/1.1 100 Continue\r\n\r\n${OK}Content-Length: 2\r\n\r\nok`,
    lenient: 'undici refuses any 1xx it did not ask for; llhttp and RFC 9110 section 15.2 skip it',
  },
  { name: 'a 403 error body', wire: 'HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\ndenied' },
  { name: 'a 404 delimited by the close', wire: 'HTTP/1.1 404 Not Found\r\n\r\n<Code>NoSuchKey</Code>' },
  { name: 'optional whitespace and HTAB in values', wire: `${OK}X-A:\tx\ty \r\nContent-Length:2\r\n\r\nok` },
  { name: 'no reason phrase', wire: 'HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok' },

  // Malformed: llhttp refuses, so must httpGet.
  { name: 'obs-fold continuation line', wire: `${OK}X-A: 1\r\n 2\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'obs-fold with HTAB', wire: `${OK}Content-Length: 2\r\nX-A: 1\r\n\t2\r\n\r\nok` },
  { name: 'space before the colon', wire: `${OK}Content-Length : 2\r\n\r\nok` },
  { name: 'HTAB before the colon', wire: `${OK}X-A\t: 1\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'NUL in a header value', wire: `${OK}X-A: a\0b\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'CR in a header value', wire: `${OK}X-A: a\rb\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'bare LF ending a header line', wire: `${OK}X-A: a\nContent-Length: 2\r\n\r\nok` },
  { name: 'NUL in a header name', wire: `${OK}X\0A: 1\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'separator in a header name', wire: `${OK}X(A): 1\r\nContent-Length: 2\r\n\r\nok` },
  {
    name: 'Transfer-Encoding with Content-Length',
    wire: `${OK}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
  },
  {
    name: 'Content-Length with Transfer-Encoding',
    wire: `${OK}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
  },
  { name: 'two different Content-Lengths', wire: `${OK}Content-Length: 2\r\nContent-Length: 3\r\n\r\nabc` },
  { name: 'malformed Content-Length', wire: `${OK}Content-Length: 2x\r\n\r\nok` },
  { name: 'negative Content-Length', wire: `${OK}Content-Length: -1\r\n\r\nok` },
  { name: 'malformed status line', wire: 'HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok' },
  { name: 'not HTTP', wire: 'SSH-2.0-OpenSSH_9.6\r\n\r\n' },
  { name: 'bare LF after a chunk size', wire: `${CHUNKED}3\nabc\r\n0\r\n\r\n` },
  { name: 'bare LF after chunk data', wire: `${CHUNKED}3\r\nabc\n0\r\n\r\n` },
  { name: 'bare LF after the last chunk', wire: `${CHUNKED}3\r\nabc\r\n0\n\r\n` },
  { name: 'bare LF ending a trailer', wire: `${CHUNKED}3\r\nabc\r\n0\r\nX-T: 1\n\r\n` },
  { name: 'malformed chunk size', wire: `${CHUNKED}zz\r\nabc\r\n0\r\n\r\n` },
  { name: 'chunk data longer than its size', wire: `${CHUNKED}2\r\nabc\r\n0\r\n\r\n` },
  { name: 'two equal Content-Lengths', wire: `${OK}Content-Length: 2\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'a control character in a header value', wire: `${OK}X-A: a\x01b\r\nContent-Length: 2\r\n\r\nok` },
  { name: 'body cut off before its Content-Length', wire: `${OK}Content-Length: 10\r\n\r\nabc` },
  { name: 'chunked body without its last chunk', wire: `${CHUNKED}3\r\nabc\r\n` },
  { name: 'head cut off', wire: `${OK}Content-Length: 2\r\n` },
  {
    name: '101 Switching Protocols',
    wire: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  },
  { name: 'a head over 64 KiB', wire: `${OK}X-Big: ${'b'.repeat(70_000)}\r\nContent-Length: 2\r\n\r\nok` },
  {
    name: 'twenty 100 Continue answers',
    wire: `${'HTTP/1.1 100 Continue\r\n\r\n'.repeat(20)}${OK}Content-Length: 2\r\n\r\nok`,
    // undici refuses any unsolicited 1xx; httpGet skips 8 at most (node:http would skip them all).
  },

  // Accepted by llhttp, refused by httpGet on purpose.
  {
    name: '200 delimited by the close',
    wire: `${OK}\r\nall of it`,
    stricter: 'a body framed by the connection’s end cannot be told from one cut off',
  },
  {
    name: '103 Early Hints, then 200',
    wire: `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${OK}Content-Length: 2\r\n\r\nok`,
    stricter: 'no 1xx but 100 Continue belongs in the answer to a file GET',
  },
  {
    name: 'forty trailer fields',
    wire: `${CHUNKED}3\r\nabc\r\n0\r\n${'X-T: 1\r\n'.repeat(40)}\r\n`,
    stricter: 'trailers are bounded: at most 32 fields in 8 KiB',
  },
  {
    name: 'a body longer than its Content-Length',
    wire: `${OK}Content-Length: 2\r\n\r\nokay`,
    stricter: 'bytes beyond the announced length are an error, not the next answer',
  },
  {
    name: 'unknown transfer coding',
    wire: `${OK}Transfer-Encoding: gzip\r\n\r\nabc`,
    stricter: 'no content codings, and a body delimited by the close could be cut off unnoticed',
  },
];

type Outcome = { ok: true; status: number; body: string } | { ok: false; error: unknown };

let server: net.Server;
let origin: string;
/** The answer for the next request, by path (`/0`, `/1`, …). */
const answers = new Map<string, string>();

beforeAll(async () => {
  server = net.createServer((socket) => {
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (d) => {
      if (head.includes('\r\n\r\n')) return;
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const path = head.split(' ')[1] ?? '';
      socket.end(Buffer.from(answers.get(path) ?? 'HTTP/1.1 500 Nope\r\nContent-Length: 0\r\n\r\n', 'latin1'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

async function viaHttpGet(path: string): Promise<Outcome> {
  try {
    const res = await httpGet(new URL(`${origin}${path}`), { idleTimeoutMs: 2000 });
    const into = Buffer.alloc(128 * 1024);
    const parts: Buffer[] = [];
    for (let n = await res.body.readInto(into); n > 0; n = await res.body.readInto(into)) {
      parts.push(Buffer.from(into.subarray(0, n)));
    }
    return { ok: true, status: res.status, body: Buffer.concat(parts).toString('latin1') };
  } catch (error) {
    return { ok: false, error };
  }
}

async function viaUndici(path: string): Promise<Outcome> {
  const client = new Client(origin, { pipelining: 1, headersTimeout: 2000, bodyTimeout: 2000 });
  try {
    const res = await client.request({ path, method: 'GET' });
    const body = Buffer.from(await res.body.arrayBuffer()).toString('latin1');
    return { ok: true, status: res.statusCode, body };
  } catch (error) {
    return { ok: false, error };
  } finally {
    await client.destroy().catch(() => {});
  }
}

/** node:http, for the one answer undici refuses by a rule of its own. */
function viaNodeHttp(path: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(`${origin}${path}`, { agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ ok: true, status: res.statusCode!, body: Buffer.concat(parts).toString('latin1') }),
      );
      res.on('error', (error) => resolve({ ok: false, error }));
    });
    req.on('error', (error) => resolve({ ok: false, error }));
  });
}

describe('httpGet refuses wherever llhttp (undici) refuses', () => {
  it('has a corpus of at least 25 answers, valid and malformed', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  it.each(corpus.map((c, i) => [c.name, i] as const))('%s', async (_name, i) => {
    const c = corpus[i]!;
    answers.set(`/${i}`, c.wire);
    const theirs = await viaUndici(`/${i}`);
    const ours = await viaHttpGet(`/${i}`);
    if (c.lenient) {
      expect(theirs.ok, c.lenient).toBe(false);
      const node = await viaNodeHttp(`/${i}`);
      expect(node.ok).toBe(true);
      expect(ours).toEqual(node);
    } else if (c.stricter) {
      expect(theirs.ok, 'a case marked stricter is one undici accepts').toBe(true);
      expect(ours.ok, `httpGet refuses on purpose: ${c.stricter}`).toBe(false);
    } else if (!theirs.ok) {
      expect(ours.ok, 'llhttp refuses this answer, httpGet must too').toBe(false);
    } else {
      expect(ours).toEqual(theirs);
    }
    if (!ours.ok) {
      const e = (ours as { error: unknown }).error;
      expect(e instanceof HttpProtocolError || e instanceof PrematureCloseError, String(e)).toBe(true);
    }
  });
});
