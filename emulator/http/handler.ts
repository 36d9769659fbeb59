/** The contract between the server and the operation families. */
import type { IncomingMessage } from 'node:http';
import type { Session } from '../auth/sessions.ts';
import type { Day } from '../data/dates.ts';
import type { ProductData } from '../data/model.ts';
import type { EmulatorState } from '../state.ts';
import type { Json } from './validate.ts';

export interface HandlerContext {
  operationId: string;
  /**
   * The JSON body as an object (`{}` for GET and for an empty POST body). For a POST read it is behind proxies that
   * record which members are looked at (ignored-fields.ts): read it, walk it, stringify it; do not structuredClone it.
   */
  body: Json;
  /**
   * The product of the path; the current product for `productProperties` without one. Undefined only for auth routes.
   */
  pd: ProductData;
  state: EmulatorState;
  session: Session | undefined;
  req: IncomingMessage;
  /** The clock's UTC day at the time of the request: "today" of every report. */
  today: Day;
}

/** A non-default answer: another status, headers, an empty body, or a streamed body. */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string | string[]>;
  readonly stream: AsyncIterable<string | Uint8Array> | undefined;

  constructor(opts: {
    status?: number;
    body?: unknown;
    headers?: Record<string, string | string[]>;
    stream?: AsyncIterable<string | Uint8Array>;
  }) {
    this.status = opts.status ?? 200;
    this.body = opts.body;
    this.headers = opts.headers ?? {};
    this.stream = opts.stream;
  }
}

/** Returns the JSON body of a 200, or a Reply. Throw ApiError (http/errors.ts) for failures. */
export type Handler = (ctx: HandlerContext) => unknown;
