/**
 * The service listener. Checks run in the order of docs/interface.md "Errors" — Origin → route → rate limit → session →
 * CSRF header → product → feature → body — then the family handler runs. Every response, errors included, carries the
 * common response headers (docs/interface.md "Requests and headers"); nothing a handler throws becomes a 500 with
 * internals in it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Session } from '../auth/sessions.ts';
import type { EmulatorState } from '../state.ts';
import { serveContract } from './contract-routes.ts';
import { parseCookies } from './cookies.ts';
import {
  ApiError,
  cookieMissing,
  csrfMismatch,
  featureNotEnabled,
  notFound,
  originNotAllowed,
  payloadTooLarge,
  tooManyRequests,
  unauthorized,
} from './errors.ts';
import { type Handler, type HandlerContext, Reply } from './handler.ts';
import { reportIgnoredFields, trackFieldReads } from './ignored-fields.ts';
import { matchRoute } from './routes.ts';
import { fail, isObject, type Json } from './validate.ts';

export const EMULATOR_BUILD = 'pulse-emulator-3.0.0';

function commonHeaders(state: EmulatorState): Record<string, string> {
  const p = state.options.headerPrefix;
  return {
    [`${p}-Api`]: EMULATOR_BUILD,
    [`${p}-Lib`]: 'pulse-emulator-lib-1',
    'Access-Control-Allow-Origin': state.options.origin,
    'Access-Control-Allow-Credentials': 'true',
    'Access-Control-Expose-Headers': `Content-Disposition, ${p}-Ignored-Fields`,
    Vary: 'Origin',
    'X-Content-Type-Options': 'nosniff',
    'X-XSS-Protection': '1; mode=block',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Cache-Control': 'no-store',
    Server: 'pulse-emulator',
  };
}

function send(
  res: ServerResponse,
  state: EmulatorState,
  status: number,
  body: unknown,
  extra: Record<string, string | string[]> = {},
) {
  if (res.headersSent) return;
  const headers: Record<string, string | string[] | number> = { ...commonHeaders(state), ...extra };
  if (body === undefined) {
    headers['Content-Length'] = 0;
    res.writeHead(status, headers).end();
    return;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  headers['Content-Type'] ??= 'application/json; charset=utf-8';
  headers['Content-Length'] = Buffer.byteLength(text);
  res.writeHead(status, headers).end(text);
}

function sendError(res: ServerResponse, state: EmulatorState, e: ApiError) {
  send(res, state, e.status, { error: e.error, message: e.message }, { ...e.headers });
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw payloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw payloadTooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Every body is parsed as JSON whatever its Content-Type (docs/interface.md "Requests and headers"); an absent body
 * counts as `{}`.
 */
function parseBody(raw: Buffer): Json {
  const text = raw.toString('utf8').trim();
  if (text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    fail('body', 'invalid JSON');
  }
  if (!isObject(v)) fail('body', 'must be a JSON object');
  return v;
}

async function writeReply(res: ServerResponse, state: EmulatorState, reply: Reply, extra: Record<string, string>) {
  if (!reply.stream) {
    send(res, state, reply.status, reply.body, { ...reply.headers, ...extra });
    return;
  }
  // Chunked stream (client export): no Content-Length; a failure midway closes the socket without the last chunk.
  res.writeHead(reply.status, { ...commonHeaders(state), ...reply.headers, ...extra });
  try {
    for await (const chunk of reply.stream) {
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  } catch {
    res.destroy();
  }
}

export function createServiceServer(state: EmulatorState, handlers: Record<string, Handler>): Server {
  const prefix = state.options.headerPrefix;
  const sessionCookie = `${prefix}-Session-Token`;
  const csrfCookie = `${prefix}-Csrf`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const method = req.method ?? 'GET';
    // The interface document and its reference page are not operations: no Origin, no session (contract-routes.ts).
    if (await serveContract(req, res, state.options.host)) return;
    if (req.headers.origin !== state.options.origin) {
      req.resume();
      throw originNotAllowed();
    }
    if (method === 'OPTIONS' && url.pathname.startsWith('/v3/')) {
      req.resume();
      send(res, state, 204, undefined, {
        'Access-Control-Allow-Methods': 'GET, POST, PATCH, OPTIONS',
        'Access-Control-Allow-Headers': `Content-Type, ${prefix}-Client, ${prefix}-Client-Version, ${prefix}-Csrf`,
        'Access-Control-Max-Age': '600',
      });
      return;
    }
    const match = matchRoute(method, url.pathname);
    const handler = match && handlers[match.route.id];
    if (!match || !handler) {
      req.resume();
      throw notFound(`no operation ${method} ${url.pathname}`);
    }
    const { route } = match;
    const faults = state.faults.forRequest(route.id, url.pathname);
    // Before anything can refuse the request: a sign-in that is the rule's first match already meets them.
    if (faults.heldSessions !== undefined) state.sessions.holdElsewhere(state.options.user, faults.heldSessions);
    if (faults.delayMs > 0) await sleep(faults.delayMs);
    if (faults.serverError) {
      req.resume();
      const { status, nonJson } = faults.serverError;
      if (nonJson) send(res, state, status, '<html><body>Bad gateway</body></html>', { 'Content-Type': 'text/html' });
      else
        sendError(
          res,
          state,
          new ApiError(status, status === 503 ? 'Service Unavailable' : 'Internal Server Error', 'injected fault'),
        );
      return;
    }
    if (faults.retryAfterSeconds !== undefined) {
      req.resume();
      throw tooManyRequests(faults.retryAfterSeconds);
    }
    const cookies = parseCookies(req.headers.cookie);
    let session: Session | undefined;
    if (!route.public) {
      const token = cookies.get(sessionCookie);
      const hasServiceCookie = [...cookies.keys()].some((k) => k.startsWith(`${prefix}-`));
      if (faults.cookieMissing || token === undefined) {
        req.resume();
        throw faults.cookieMissing || hasServiceCookie ? cookieMissing() : unauthorized();
      }
      session = state.sessions.touch(token);
      if (!session) {
        req.resume();
        throw unauthorized('session expired or ended; sign in again');
      }
      if (faults.sessionExpiresAfterRequests !== undefined && session.requests > faults.sessionExpiresAfterRequests) {
        state.sessions.end(session.token);
        req.resume();
        throw unauthorized('session expired or ended; sign in again');
      }
      const header = req.headers[`${prefix.toLowerCase()}-csrf`];
      if (header !== undefined && header !== cookies.get(csrfCookie)) {
        req.resume();
        throw csrfMismatch();
      }
    }
    const firstProduct = state.products.values().next().value;
    const pd = match.productId !== undefined ? state.products.get(match.productId) : firstProduct;
    if (!pd) {
      req.resume();
      throw notFound(`unknown product ${match.productId}`);
    }
    if (route.feature && !pd.product.features[route.feature]) {
      req.resume();
      throw featureNotEnabled('raw data export');
    }
    const raw = await readBody(req, state.options.bodyLimitBytes);
    const body = method === 'GET' ? {} : parseBody(raw);
    const tracked = method === 'POST' && !route.changes ? trackFieldReads(body) : undefined;
    const ctx: HandlerContext = {
      operationId: route.id,
      body: tracked?.body ?? body,
      pd,
      state,
      session,
      req,
      today: state.clock.today(),
    };
    const result = await handler(ctx);
    const ignored = reportIgnoredFields(state, route.id, url.pathname, tracked);
    if (result instanceof Reply) await writeReply(res, state, result, ignored);
    else send(res, state, 200, result, ignored);
  }

  return createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (e instanceof ApiError) sendError(res, state, e);
      else if (req.destroyed || res.destroyed || (e as NodeJS.ErrnoException)?.code === 'ECONNRESET') {
        // The client went away mid-request (it timed out or was killed): nobody to answer, and no emulator bug.
      } else {
        // A bug in the emulator: answer like a real service would, without internals, and say so on stderr.
        process.stderr.write(`emulator: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
        sendError(res, state, new ApiError(500, 'Internal Server Error', 'internal error'));
      }
    });
  });
}
