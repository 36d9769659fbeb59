/**
 * A `fetch` option for ReportingClient that records what the client really puts on the wire (method, URL, headers,
 * status) and lets a test divert single requests — to a closed port, to another server — while everything else
 * goes to the emulator unchanged. Shared by the client transport tests.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Emulator } from '../../emulator/index.ts';
import { OPERATION_BY_ID, type OperationId } from '../../src/api/operations.ts';
import type { FetchLike } from '../../src/client/index.ts';
import { signedIn } from '../helpers/emulator-session.ts';

export interface WireRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** Status of the answer; undefined when the request failed without one. */
  status?: number;
}

/** Decides what to do with one request: a Response (or a rejection) replaces the network; undefined passes it on. */
export type Diversion = (req: Request) => Promise<Response> | Response | undefined;

export class WireRecorder {
  readonly requests: WireRequest[] = [];
  divert: Diversion | undefined;

  readonly fetch: FetchLike = async (input, init) => {
    const req = new Request(input, init);
    const rec: WireRequest = { method: req.method, url: new URL(req.url), headers: new Headers(req.headers) };
    this.requests.push(rec);
    const res = (await this.divert?.(req)) ?? (await fetch(req));
    rec.status = res.status;
    return res;
  };

  /** The recorded requests of one operation (matched by method and path, with or without a product id). */
  of(id: OperationId): WireRequest[] {
    const op = OPERATION_BY_ID.get(id)!;
    const prefix = op.path.replace('/{product_id}', '');
    const scoped = op.path.includes('{product_id}');
    return this.requests.filter(
      (r) =>
        r.method === op.method &&
        (r.url.pathname === prefix || (scoped && r.url.pathname.slice(prefix.length).match(/^\/[^/]+$/) !== null)),
    );
  }

  /** The value of cookie `name` in the Cookie header of recorded request `r`. */
  static cookie(r: WireRequest | undefined, name: string): string | undefined {
    for (const pair of (r?.headers.get('cookie') ?? '').split(';')) {
      const eq = pair.indexOf('=');
      if (pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
    }
    return undefined;
  }

  /** Every cookie value and CSRF header value the client has sent: the secrets no error or log may contain. */
  sentSecrets(prefix = 'Svc'): Set<string> {
    const out = new Set<string>();
    for (const r of this.requests) {
      for (const pair of (r.headers.get('cookie') ?? '').split(';')) {
        const value = pair.slice(pair.indexOf('=') + 1).trim();
        if (value) out.add(value);
      }
      const csrf = r.headers.get(`${prefix}-Csrf`);
      if (csrf) out.add(csrf);
    }
    return out;
  }
}

/** Sends `req` to `origin` instead (same method, path, headers and body). */
export async function sendTo(origin: string, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const body = req.method === 'GET' ? null : await req.text();
  return fetch(origin + url.pathname + url.search, {
    method: req.method,
    headers: req.headers,
    body,
    redirect: req.redirect,
    signal: req.signal,
  });
}

/** A URL on 127.0.0.1 where nothing listens: connecting is refused, so a request there is provably never sent. */
export async function closedOrigin(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** Another HTTP server on 127.0.0.1 that records the headers it receives and answers with `answer`. */
export interface OtherServer {
  origin: string;
  received: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** `'ok'`: 200; `'reset'`: the connection dies after the request arrived; a URL: a 302 redirect to it. */
export async function startOtherServer(answer: 'ok' | 'reset' | URL = 'ok'): Promise<OtherServer> {
  const received: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    received.push(req.headers);
    // 'reset': the request arrived, then the connection dies before any answer (a request that may have done work).
    if (answer === 'reset') req.socket.destroy();
    else if (answer instanceof URL) res.writeHead(302, { Location: answer.href, 'Content-Length': 0 }).end();
    else res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** What the emulator serves for one request, fetched over a separate raw session (then logged out): the expected
 * answer a client result is compared with. */
export async function served(emu: Emulator, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
  const s = await signedIn(emu);
  const r = await s.call(method, path, body);
  await s.call('POST', '/v3/auth/logout');
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}
