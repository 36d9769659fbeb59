/**
 * What passes through the service listener, for whoever watches it in-process (the test suite's contract check:
 * test/helpers/contract-watch.ts): each request with its operation id, its parsed body and the answer as sent. Also
 * where a fault profile's `alterShape` rules change an answer. The emulator never judges an exchange itself.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Handler } from './http/handler.ts';
import { Reply } from './http/handler.ts';
import { matchRoute } from './http/routes.ts';
import type { EmulatorState } from './state.ts';

export interface EmulatorExchange {
  method: string;
  /** The request path (no query). */
  path: string;
  /** Undefined when no operation matches the method and path (a 404, a CORS preflight). */
  operationId: string | undefined;
  /** The `<prefix>-Client` header: which client sent it (Pulse's own client sends `pulse`), if any. */
  client: string | undefined;
  /** The parsed JSON body (`{}` for GET); undefined when the request was refused before its handler ran. */
  requestBody: unknown;
  status: number;
  contentType: string | undefined;
  /** The answer's body as sent; undefined when it was longer than MAX_KEPT_BYTES. */
  responseText: string | undefined;
  /** A fault profile was set when the request came: the answer may deliberately differ from the documented one. */
  faultsActive: boolean;
}

export type ExchangeObserver = (exchange: EmulatorExchange) => void;

/** Longest answer kept for observers: every JSON answer of a test data set is far below it. */
const MAX_KEPT_BYTES = 8 * 1024 * 1024;

const observers = new Set<ExchangeObserver>();

/**
 * Calls `observer` with every completed exchange of every emulator in this process (those started before too);
 * returns the function that stops it. Without observers nothing is recorded.
 */
export function observeExchanges(observer: ExchangeObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** The families' handlers with the request body kept for observers and the answer through `alterShape` faults. */
export function observedHandlers(
  handlers: Record<string, Handler>,
  state: EmulatorState,
  bodies: WeakMap<IncomingMessage, unknown>,
): Record<string, Handler> {
  const wrap =
    (id: string, handle: Handler): Handler =>
    async (ctx) => {
      if (observers.size > 0) bodies.set(ctx.req, ctx.body);
      const result = await handle(ctx);
      if (!state.faults.active) return result;
      const path = new URL(ctx.req.url ?? '/', 'http://emulator.invalid').pathname;
      if (!(result instanceof Reply)) return state.faults.alterAnswer(id, path, result);
      if (result.body === undefined || result.stream) return result;
      const { status, headers } = result;
      return new Reply({ status, headers, body: state.faults.alterAnswer(id, path, result.body) });
    };
  return Object.fromEntries(Object.entries(handlers).map(([id, handle]) => [id, wrap(id, handle)]));
}

/** Reports each exchange of `server` to the observers once its answer has been sent completely. */
export function watchExchanges(server: Server, state: EmulatorState, bodies: WeakMap<IncomingMessage, unknown>): void {
  const clientHeader = `${state.options.headerPrefix.toLowerCase()}-client`;
  server.prependListener('request', (req: IncomingMessage, res) => {
    if (observers.size === 0) return;
    const faultsActive = state.faults.active;
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function' || size > MAX_KEPT_BYTES) return;
      const b =
        typeof chunk === 'string'
          ? Buffer.from(chunk, (encoding as BufferEncoding) ?? 'utf8')
          : Buffer.from(chunk as Uint8Array);
      size += b.length;
      chunks.push(b);
    };
    const { write, end, writeHead } = res;
    // Headers given to writeHead bypass getHeader: its Content-Type is taken on the way.
    let contentType: string | undefined;
    res.writeHead = ((...args: unknown[]) => {
      const headers = args.find((a) => typeof a === 'object' && a !== null && !Array.isArray(a));
      for (const [k, v] of Object.entries(headers ?? {}))
        if (k.toLowerCase() === 'content-type') contentType = String(v);
      return (writeHead as (...a: unknown[]) => typeof res).apply(res, args);
    }) as typeof res.writeHead;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(res, chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return (end as (...a: unknown[]) => typeof res).call(res, chunk, ...rest);
    }) as typeof res.end;
    res.once('close', () => {
      if (!res.writableFinished) return; // cut off: no complete answer to judge
      const method = req.method ?? 'GET';
      const path = new URL(req.url ?? '/', 'http://emulator.invalid').pathname;
      const client = req.headers[clientHeader];
      const exchange: EmulatorExchange = {
        method,
        path,
        operationId: matchRoute(method, path)?.route.id,
        client: Array.isArray(client) ? client[0] : client,
        requestBody: bodies.get(req),
        status: res.statusCode,
        contentType: contentType ?? res.getHeader('content-type')?.toString(),
        responseText: size > MAX_KEPT_BYTES ? undefined : Buffer.concat(chunks).toString('utf8'),
        faultsActive,
      };
      for (const observer of observers) observer(exchange);
    });
  });
}
