/**
 * Proxies on 127.0.0.1 that put a network's latency in front of a local peer and record every call they carry
 * (bench/digest-run.ts): the local peers answer in well under a millisecond, the AWS services a Lambda calls do not.
 * - `startDelayingHttpProxy`: an HTTP/1.1 proxy that holds each request `delayMs` before passing it on (method,
 *   path, headers and body unchanged, so SigV4 signatures made for the proxy's host still verify), one round trip's
 *   worth of latency per call, as a keep-alive connection to an AWS endpoint costs;
 * - `startDelayingSmtpProxy`: a TCP proxy in front of an SMTP server that holds the server's answer to the end of
 *   each message's DATA (`<CRLF>.<CRLF>`) `delayMs`: one send's latency per message, whatever the dialogue around
 *   it (SES answers one API call per message).
 * Each records its calls as `[start, end, kind]` with Date.now() times, so another process can lay them over its own.
 */
import { Agent, createServer, request } from 'node:http';
import { connect, createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** One call through a proxy: when it arrived, when its answer had been passed back, and what it was. */
export type ProxyCall = [start: number, end: number, kind: string];

export interface LatencyProxy {
  /** `http://127.0.0.1:<port>` (the SMTP proxy: host and port of the same form). */
  url: string;
  host: string;
  port: number;
  delayMs: number;
  /** Every call finished so far, oldest first. */
  calls(): ProxyCall[];
  close(): Promise<void>;
}

/** The request headers not passed on: hop-by-hop, and `Expect` (the proxy has already taken the body). */
const NOT_FORWARDED = new Set(['expect', 'proxy-connection']);

/** An HTTP proxy to `target` adding `delayMs` before each request; `kindOf` names a call (its operation). */
export async function startDelayingHttpProxy(
  target: string,
  delayMs: number,
  kindOf: (method: string, path: string, headers: Record<string, string | string[] | undefined>) => string,
): Promise<LatencyProxy> {
  const { hostname, port } = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const calls: ProxyCall[] = [];
  const server = createServer((req, res) => {
    const start = Date.now();
    const kind = kindOf(req.method ?? 'GET', req.url ?? '/', req.headers);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !NOT_FORWARDED.has(k)));
    setTimeout(() => {
      const upstream = request(
        { host: hostname, port: Number(port), method: req.method, path: req.url, headers, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          res.once('finish', () => calls.push([start, Date.now(), kind]));
        },
      );
      upstream.once('error', (e) => res.destroy(e));
      req.pipe(upstream);
    }, delayMs);
  });
  server.keepAliveTimeout = 60_000;
  return listening(
    server,
    delayMs,
    () => calls,
    () => {
      agent.destroy();
      server.closeAllConnections();
    },
  );
}

/** Connections to the SMTP server kept greeted, ready for the next client (see `startDelayingSmtpProxy`). */
const GREETED_CONNECTIONS = 3;

/**
 * A TCP proxy to the SMTP server at `host:port` adding `delayMs` to the answer to each message's end of data.
 * smtp-server (the local sink's) holds every new connection's greeting 100 ms to catch early talkers, and the
 * function opens a connection per message: that would add 100 ms per message that SES, the transport in AWS, does
 * not have. So the proxy keeps a few connections to the server already greeted and hands one, its greeting at once,
 * to each client that connects.
 */
export async function startDelayingSmtpProxy(host: string, port: number, delayMs: number): Promise<LatencyProxy> {
  const calls: ProxyCall[] = [];
  const open = new Set<Socket>();
  const track = (s: Socket) => {
    s.setNoDelay(true);
    open.add(s);
    s.on('close', () => open.delete(s));
  };
  const ready: { socket: Socket; greeting: Buffer }[] = [];
  const waiting: ((c: { socket: Socket; greeting: Buffer }) => void)[] = [];
  let greeting = 0;
  let closed = false;
  const warm = () => {
    while (!closed && ready.length + greeting < GREETED_CONNECTIONS) {
      greeting++;
      const socket = connect(port, host);
      track(socket);
      let greetedYet = false;
      socket.once('error', () => socket.destroy());
      socket.once('close', () => {
        if (!greetedYet) greeting--;
        const i = ready.findIndex((c) => c.socket === socket);
        if (i >= 0) ready.splice(i, 1);
      });
      socket.once('data', (chunk: Buffer) => {
        greetedYet = true;
        greeting--;
        socket.pause();
        const next = waiting.shift();
        if (next) next({ socket, greeting: chunk });
        else ready.push({ socket, greeting: chunk });
      });
    }
  };
  const greeted = () => {
    const c = ready.shift();
    warm();
    return c ? Promise.resolve(c) : new Promise<{ socket: Socket; greeting: Buffer }>((r) => waiting.push(r));
  };
  warm();

  const server = createTcpServer((client) => {
    const opened = Date.now();
    track(client);
    client.pause();
    void greeted().then(({ socket: upstream, greeting }) => {
      let since = opened;
      /** Messages whose end of data the server has not answered yet. */
      let ended = 0;
      let tail = '';
      /** The server's bytes reach the client in order, a delayed answer holding back what follows it. */
      let toClient = Promise.resolve();
      for (const s of [client, upstream])
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      client.write(greeting);
      client.on('data', (chunk: Buffer) => {
        upstream.write(chunk);
        // Dot-stuffing keeps `<CRLF>.<CRLF>` out of a message's body: it only ends one.
        const text = tail + chunk.toString('latin1');
        ended += text.split('\r\n.\r\n').length - 1;
        tail = text.slice(-4);
      });
      upstream.on('data', (chunk: Buffer) => {
        const answersData = ended > 0;
        if (answersData) ended--;
        toClient = toClient.then(async () => {
          if (answersData) {
            await sleep(delayMs);
            calls.push([since, Date.now(), 'message']);
            since = Date.now();
          }
          if (!client.destroyed) client.write(chunk);
        });
      });
      client.on('end', () => upstream.end());
      upstream.on('end', () => void toClient.then(() => client.end()));
      client.on('close', () => upstream.destroy());
      upstream.resume();
      client.resume();
    });
  });
  return listening(
    server,
    delayMs,
    () => calls,
    () => {
      closed = true;
      for (const s of open) s.destroy();
    },
  );
}

async function listening(
  server: Server,
  delayMs: number,
  calls: () => ProxyCall[],
  dropConnections: () => void,
): Promise<LatencyProxy> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    delayMs,
    calls: () => [...calls()],
    close: () =>
      new Promise<void>((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
