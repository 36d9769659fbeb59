/**
 * HttpChannelPoster against real servers on 127.0.0.1: what a receiver answers comes back as it is (redirects not
 * followed, bodies cut at 4 KB), and a failure is PostNotSentError only when the request cannot have arrived (a
 * refused connection, a TLS handshake that failed or never finished, a URL refused before connecting); a timeout or
 * a connection dropped after the body was read is ChannelPostUncertainError. No error names the URL's path or query.
 */

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ANSWER_BYTES, ChannelPostUncertainError, HttpChannelPoster } from '../../src/adapters/http/channel-poster.ts';
import { type ChannelRequest, PostNotSentError } from '../../src/ports/channels.ts';
import { startStubServer } from '../helpers/stub-server.ts';

const SECRET_PATH = '/services/T0SECRET/B0SECRET/xoxSECRETPATH';
const SECRET_QUERY = '?sig=QUERYSECRET';
const poster = new HttpChannelPoster();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const request = (base: string, extra: Partial<ChannelRequest> = {}): ChannelRequest => ({
  url: `${base}${SECRET_PATH}${SECRET_QUERY}`,
  body: JSON.stringify({ text: 'Weekly digest · 2026-W47 ✓' }),
  headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
  timeoutMs: 2000,
  ...extra,
});

/** Every way an error can end up in a log or a report. */
const renderings = (e: unknown) => [String(e), (e as Error).stack ?? '', inspect(e, { depth: 5 }), JSON.stringify(e)];

function expectNoSecret(e: unknown): void {
  for (const text of renderings(e)) {
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('QUERYSECRET');
  }
}

/** A raw HTTP server for the faults: `handle` decides what happens to each request; counts the requests. */
async function rawServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ base: string; requests: () => number }> {
  let requests = 0;
  const server: Server = createHttpServer((req, res) => {
    requests++;
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests: () => requests };
}

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (v) => ({ value: v }),
    (e: unknown) => ({ error: e }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expectNoSecret(outcome.error);
  return outcome.error as Error;
}

describe('HttpChannelPoster: answers', () => {
  it('posts the body and headers as given and returns 200, 202, 4xx and 5xx answers as they are', async () => {
    const received: {
      method: string | undefined;
      url: string | undefined;
      headers: IncomingMessage['headers'];
      body: string;
    }[] = [];
    const answers = [
      { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' },
      { status: 202, headers: {}, body: '' },
      { status: 404, headers: { 'Content-Type': 'text/plain', 'X-Slack-Req': 'a' }, body: 'channel_not_found' },
      { status: 503, headers: { 'Retry-After': '7' }, body: '<html>upstream down</html>' },
    ];
    let i = 0;
    const stub = await startStubServer((req, body) => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body: body.toString('utf8') });
      return answers[i++]!;
    });
    cleanups.push(stub.close);

    const results = [];
    for (let n = 0; n < answers.length; n++) results.push(await poster.post(request(stub.url)));

    expect(results.map((r) => [r.status, r.body])).toEqual([
      [200, 'ok'],
      [202, ''],
      [404, 'channel_not_found'],
      [503, '<html>upstream down</html>'],
    ]);
    expect(results[2]!.headers['x-slack-req']).toBe('a');
    expect(results[3]!.headers['retry-after']).toBe('7');
    expect(received[0]).toMatchObject({
      method: 'POST',
      url: `${SECRET_PATH}${SECRET_QUERY}`,
      body: JSON.stringify({ text: 'Weekly digest · 2026-W47 ✓' }),
    });
    expect(received[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': 'evt_1' });
    expect(Number(received[0]!.headers['content-length'])).toBe(
      Buffer.byteLength(JSON.stringify({ text: 'Weekly digest · 2026-W47 ✓' })),
    );
  });

  it('reads at most 4 KB of an answer', async () => {
    const stub = await startStubServer(() => ({ status: 400, headers: {}, body: 'x'.repeat(1024 * 1024) }));
    cleanups.push(stub.close);
    const res = await poster.post(request(stub.url));
    expect(res.status).toBe(400);
    expect(res.body).toBe('x'.repeat(ANSWER_BYTES));
  });

  it('returns a redirect without following it: the Location target sees no request', async () => {
    let targetRequests = 0;
    const target = await startStubServer(() => {
      targetRequests++;
      return { status: 200, headers: {}, body: 'ok' };
    });
    cleanups.push(target.close);
    const stub = await startStubServer(() => ({
      status: 302,
      headers: { Location: `${target.url}/elsewhere` },
      body: '',
    }));
    cleanups.push(stub.close);

    const res = await poster.post(request(stub.url));
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${target.url}/elsewhere`);
    expect(targetRequests).toBe(0);
  });

  it('returns the status of an answer whose body stalls until the timeout: the receiver had decided', async () => {
    const server = await rawServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('o'); // and never ends
      });
    });
    const started = Date.now();
    const res = await poster.post(request(server.base, { timeoutMs: 300 }));
    expect(res).toMatchObject({ status: 200, body: 'o' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe('HttpChannelPoster: failures', () => {
  it('a server that never answers: ChannelPostUncertainError after the timeout, naming the host only', async () => {
    const server = await rawServer((req) => req.resume());
    const started = Date.now();
    const e = await failureOf(poster.post(request(server.base, { timeoutMs: 300 })));
    expect(e).toBeInstanceOf(ChannelPostUncertainError);
    expect(e).not.toBeInstanceOf(PostNotSentError);
    expect(e.message).toBe(`no answer from ${new URL(server.base).host} within 300 ms`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(server.requests()).toBe(1);
  });

  it('a server that reads the body and drops the connection: ChannelPostUncertainError', async () => {
    let bodies = 0;
    const server = await rawServer((req) => {
      req.resume();
      req.on('end', () => {
        bodies++;
        req.socket.destroy();
      });
    });
    const e = await failureOf(poster.post(request(server.base)));
    expect(e).toBeInstanceOf(ChannelPostUncertainError);
    expect(e.message).toMatch(/^connection to 127\.0\.0\.1:\d+ lost after the request was sent \(ECONNRESET: /);
    expect(bodies).toBe(1);
  });

  it('a refused connection: PostNotSentError', async () => {
    const server = await rawServer(() => undefined);
    const base = server.base;
    await cleanups.pop()!(); // closed: nothing listens on the port any more
    const e = await failureOf(poster.post(request(base)));
    expect(e).toBeInstanceOf(PostNotSentError);
    expect(e.message).toMatch(/^not sent to 127\.0\.0\.1:\d+ \(ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
  });

  it('a TLS handshake that fails (a plain HTTP server behind an https URL): PostNotSentError, no request seen', async () => {
    const server = await rawServer((_req, res) => res.end('ok'));
    const e = await failureOf(poster.post(request(server.base.replace('http:', 'https:'))));
    expect(e).toBeInstanceOf(PostNotSentError);
    expect(e.message).toMatch(/^not sent to 127\.0\.0\.1:\d+ \(/);
    expect(server.requests()).toBe(0);
  });

  it('a TLS handshake that never finishes within the timeout: PostNotSentError (no connection made)', async () => {
    const silent: TcpServer = createTcpServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const open = new Set<import('node:net').Socket>();
    silent.on('connection', (s) => open.add(s));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of open) s.destroy();
          silent.close(() => resolve());
        }),
    );
    const { port } = silent.address() as { port: number };
    const e = await failureOf(poster.post(request(`https://127.0.0.1:${port}`, { timeoutMs: 300 })));
    expect(e).toBeInstanceOf(PostNotSentError);
    expect(e.message).toBe(`no connection to 127.0.0.1:${port} within 300 ms`);
  });

  it('refuses plain http to a host that is not loopback, and what is not a URL, before connecting', async () => {
    for (const url of [
      `http://example.com${SECRET_PATH}${SECRET_QUERY}`,
      `http://10.0.0.1${SECRET_PATH}`,
      `ftp://127.0.0.1${SECRET_PATH}`,
    ]) {
      const e = await failureOf(poster.post(request('', { url })));
      expect(e).toBeInstanceOf(PostNotSentError);
      expect(e.message).toMatch(/^refused to post to [^ ]+: the channel URL must be https/);
    }
    const e = await failureOf(poster.post(request('', { url: `not a url ${SECRET_PATH}` })));
    expect(e.message).toBe('refused to post: the channel URL is not a URL');
  });
});
