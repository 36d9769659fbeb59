/**
 * One call to the service: builds the request (Origin, client headers, cookies of the service origin only, the
 * CSRF header) and applies the retry policy of docs/interface.md "Safe-to-repeat requests". ky's own retry runs the
 * attempts of one call:
 * - 429: waits `Retry-After` (ky's `afterStatusCodes`, capped by `maxRetryAfter` = what is left of the deadline);
 * - 5xx, timeouts and network errors: exponential backoff (`delay`, `backoffLimit`) with full `jitter`;
 * - `limit` = maxRetries, a per-attempt `timeout`, and the call's deadline as ky's `totalTimeout`;
 * - the warn line per retry, and the refreshed cookies of the next attempt, in a `beforeRetry` hook.
 * What ky cannot express stays here, around and inside ky's loop (`shouldRetry`, the 401 branch below):
 * - operations that are not safe to repeat are retried only when the failure happened before the request was sent;
 * - a wait that would end past the deadline is not started: the call fails at once with what the service said;
 * - 401 `Cookie Missing`: repeat once after ~1 s, then treat as 401;
 * - 401 on a data call: sign in again once (single-flight across concurrent calls) and repeat;
 * - error bodies are read for their JSON error fields only (64 KiB), never by ky (which would take 10 MiB);
 * - never a redirect followed, never ky's Request (with the cookies) in an error's cause.
 */
import ky, { isHTTPError, isNetworkError, isTimeoutError, type ShouldRetryState } from 'ky';
import { isProductScoped, type OperationDef } from '../api/operations.ts';
import type { ServiceCookieJar } from './cookie-jar.ts';
import { errorForStatus, parseErrorBody, retryAfterSeconds, type ServiceErrorBody } from './error-mapping.ts';
import { AuthenticationError, NetworkError, ReportingServiceError, TimeoutError } from './errors.ts';
import type { ResolvedOptions } from './options.ts';
import { readBodyText } from './shape.ts';

export interface Exchange {
  op: OperationDef;
  productId?: string | undefined;
  body?: unknown;
  /** Content-Type of the JSON body (the client export is sent as `*\/*`). */
  contentType?: string;
  signal?: AbortSignal | undefined;
  /** Use the jar as it is: no sign-in before, no sign-in again on 401 (logout). */
  sessionless?: boolean;
}

/** How the transport reaches the session without depending on it. */
export interface SessionHooks {
  /** Signs in if needed; returns the session generation the request will use. */
  ensure(): Promise<number>;
  /** The session of `generation` was refused: sign in again unless another call already did. */
  refresh(generation: number): Promise<void>;
  /** The service accepted the session in a request sent at `sentAtMs` (and so renewed its idle timer then). */
  used(sentAtMs: number): void;
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** How long before the call's deadline reading an error body gives up (ky's total timeout fires at the deadline). */
const ERROR_BODY_DEADLINE_MARGIN_MS = 250;
const PUBLIC_OPS = new Set(['requestCsrf', 'signIn']);
/** Connection failures that prove the request never reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** ky retries any method: whether an operation may repeat is decided per operation, in shouldRetry. */
const ALL_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace', 'query'];
/** 429 and every 5xx; 408 and 413 are not retried. */
const RETRY_STATUS_CODES = [429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];

/** The state of one call across ky's attempts and the repeats around them. */
interface CallState {
  url: string;
  started: number;
  deadline: number;
  needsSession: boolean;
  /** Retries used so far (429, 5xx, network errors, timeouts): at most maxRetries over the whole call. */
  retries: number;
  /** Requests handed to fetch so far. */
  attempts: number;
  /** When the latest attempt was handed to fetch (opts.now). */
  sentAt: number;
  /** The wait before the next retry, as shouldRetry planned it (for the warn line). */
  delayMs: number;
  /** The jitter fraction of the next backoff, drawn in shouldRetry. */
  jitter: number;
  /** The latest non-2xx answer: its parsed error body and the error it maps to. */
  answer?: { body: ServiceErrorBody; err: ReportingServiceError } | undefined;
}

/**
 * A non-2xx answer as the afterResponse hook read it (its error body and the error it maps to); from its status
 * alone when the hook has not read it.
 */
function answerTo(operationId: string, res: Response, call: CallState): NonNullable<CallState['answer']> {
  return call.answer ?? { body: {}, err: errorForStatus(operationId, res.status, res.statusText, {}, res.headers) };
}

function causeCode(e: unknown): string | undefined {
  for (let c: unknown = e, depth = 0; c && depth < 5; depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

export class Transport {
  readonly opts: ResolvedOptions;
  readonly jar: ServiceCookieJar;
  session: SessionHooks | undefined;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: ResolvedOptions, jar: ServiceCookieJar) {
    this.opts = opts;
    this.jar = jar;
    this.sleep = (ms, signal) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        // The caller's signal may outlive many calls: the listener goes away with the timer, whichever ends first.
        const onAbort = () => {
          clearTimeout(t);
          reject(signal?.reason);
        };
        const t = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
  }

  urlOf(op: OperationDef, productId: string | undefined): string {
    if (!isProductScoped(op)) {
      // `productProperties`: `/{product_id}` appended when a product is given (the service's other form).
      const product = op.optionalProduct && productId ? `/${encodeURIComponent(productId)}` : '';
      return this.opts.baseUrl + op.path + product;
    }
    if (productId === undefined || productId === '') throw new TypeError(`${op.id}: a product id is required`);
    return this.opts.baseUrl + op.path.replace('{product_id}', encodeURIComponent(productId));
  }

  /** Sends with the retry policy; resolves with a 2xx Response (body unread), or throws a ReportingServiceError. */
  async request(x: Exchange): Promise<Response> {
    const { op } = x;
    const url = this.urlOf(op, x.productId);
    const started = Date.now();
    const deadline = started + this.opts.deadlineMs;
    const needsSession = !PUBLIC_OPS.has(op.id) && !x.sessionless;
    const call: CallState = {
      url,
      started,
      deadline,
      needsSession,
      retries: 0,
      attempts: 0,
      sentAt: 0,
      delayMs: 0,
      jitter: 1,
    };
    let cookieMissingSeen = false;
    let reauthenticated = false;

    for (;;) {
      const generation = needsSession && this.session ? await this.session.ensure() : 0;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new TimeoutError(`no answer within ${this.opts.deadlineMs} ms`, { operationId: op.id });
      call.answer = undefined;
      let res: Response;
      try {
        res = await this.attempts(x, call, remaining);
      } catch (e) {
        throw this.failure(e, x, call);
      }
      if (res.ok) return res;

      const { body, err } = answerTo(op.id, res, call);
      if (res.status === 401 && needsSession && this.session) {
        // Cookie Missing is transient — repeat once after about a second, then sign in again.
        if (body.error === 'Cookie Missing' && !cookieMissingSeen) {
          cookieMissingSeen = true;
          await this.wait(op.id, this.opts.cookieMissingDelayMs, deadline, err, x.signal);
          continue;
        }
        if (!reauthenticated) {
          reauthenticated = true;
          await this.session.refresh(generation);
          continue;
        }
        throw new AuthenticationError(`${err.message.replace(`${op.id}: `, '')} (after signing in again)`, {
          operationId: op.id,
          status: 401,
          serviceError: body.error,
          serviceMessage: body.message,
        });
      }
      throw err;
    }
  }

  /** The request headers of the next attempt: the jar's cookies and CSRF value as they are now. */
  private async headersOf(x: Exchange, url: string): Promise<Record<string, string>> {
    const p = this.opts.headerPrefix;
    const headers: Record<string, string> = {
      Origin: this.opts.origin,
      [`${p}-Client`]: this.opts.clientName,
      [`${p}-Client-Version`]: this.opts.clientVersion,
      Accept: 'application/json, text/csv;q=0.9, */*;q=0.1',
    };
    const cookie = await this.jar.header(url);
    if (cookie) headers.Cookie = cookie;
    if (this.opts.sendCsrfHeader && !PUBLIC_OPS.has(x.op.id)) {
      const csrf = await this.jar.value('Csrf');
      if (csrf) headers[`${p}-Csrf`] = csrf;
    }
    if (x.op.method !== 'GET') headers['Content-Type'] = x.contentType ?? 'application/json';
    return headers;
  }

  /**
   * ky's attempts of one call, up to a final answer: 2xx, an error status ky does not retry (401 included, which
   * `request` handles), or the last retryable error when the retries or the deadline are used up (thrown).
   */
  private async attempts(x: Exchange, call: CallState, remainingMs: number): Promise<Response> {
    const { op } = x;
    const o = this.opts;
    const before = call.retries;
    return ky(call.url, {
      method: op.method,
      headers: await this.headersOf(x, call.url),
      body: op.method === 'GET' ? null : JSON.stringify(x.body ?? {}),
      timeout: o.timeoutMs,
      totalTimeout: remainingMs,
      // Only what may be retried is an "error" to ky; every other answer comes back to `request` as it is.
      throwHttpErrors: (status) => status === 429 || status >= 500,
      retry: {
        // Cookie Missing and the sign-in again repeat the call outside ky: they use none of its retries.
        limit: o.maxRetries - call.retries,
        // Whether an operation may repeat depends on the operation, not its method: shouldRetry decides.
        methods: ALL_METHODS,
        statusCodes: RETRY_STATUS_CODES,
        afterStatusCodes: [429],
        maxRetryAfter: remainingMs,
        retryOnTimeout: true,
        // ky counts its retries from 1 in each of its loops; the exponent goes on from the retries the call used.
        delay: (n) => this.backoffCap(before + n),
        backoffLimit: o.retryMaxDelayMs,
        jitter: (cap) => Math.floor(cap * call.jitter),
        shouldRetry: (state) => this.shouldRetry(op, state, call),
      },
      hooks: {
        afterResponse: [({ response }) => this.afterAttempt(op, response, call)],
        beforeRetry: [({ request, error }) => this.beforeRetry(x, request, error, call)],
      },
      // Never follow a redirect: the service's cookies must not travel to wherever it points.
      redirect: 'manual',
      fetch: (input, init) => {
        call.attempts++;
        call.sentAt = o.now();
        return o.fetch(input, init);
      },
      ...(x.signal ? { signal: x.signal } : {}),
    });
  }

  /** The backoff of retry `retry` (from 1) before the jitter: doubling from retryBaseDelayMs, at most retryMaxDelayMs. */
  private backoffCap(retry: number): number {
    return Math.min(this.opts.retryMaxDelayMs, this.opts.retryBaseDelayMs * 2 ** (retry - 1));
  }

  /**
   * ky asks this before each retry (after its `limit` and `methods` checks). `false` ends the call with the error;
   * `undefined` lets ky decide by its own rules (statusCodes, Retry-After, retryOnTimeout, network errors) and wait.
   */
  private shouldRetry(op: OperationDef, { error }: ShouldRetryState, call: CallState): false | undefined {
    let waitMs: number | undefined;
    if (isHTTPError(error)) {
      // A 429 was refused before any work was done, so even non-idempotent operations may repeat it.
      if (error.response.status !== 429 && !op.retrySafe) return false;
      const after = error.response.status === 429 ? retryAfterSeconds(error.response.headers) : undefined;
      if (after !== undefined) waitMs = after * 1000;
    } else if (isNetworkError(error)) {
      if (!op.retrySafe && !NOT_SENT_CODES.has(causeCode(error) ?? '')) return false;
    } else if (!(isTimeoutError(error) && op.retrySafe)) {
      return false; // an abort, an error of a hook, or a timeout of an operation that is not safe to repeat
    }
    // The jitter is drawn here, where the deadline can still refuse the wait; ky's `jitter` applies it.
    call.jitter = this.opts.random();
    waitMs ??= Math.floor(this.backoffCap(call.retries + 1) * call.jitter);
    // Waiting past the deadline is pointless (ky would wait, then time out): fail now with what the service said.
    if (Date.now() + waitMs >= call.deadline) return false;
    call.delayMs = waitMs;
    return undefined;
  }

  /** Every answer: cookies into the jar, the session's use, the debug line; an error body read here, by us. */
  private async afterAttempt(op: OperationDef, res: Response, call: CallState): Promise<Response | undefined> {
    await this.jar.store(call.url, res.headers.getSetCookie());
    // Any answer but 401 means the service took the session and renewed it, no earlier than we sent the request.
    if (call.needsSession && res.status !== 401) this.session?.used(call.sentAt);
    this.opts.logger?.debug('reporting service call', {
      operationId: op.id,
      status: res.status,
      attempt: call.attempts,
      durationMs: Date.now() - call.started,
    });
    if (res.ok) return undefined;
    // An error body is read for its JSON error fields only: its first 64 KiB, within the attempt's timeout and ending
    // a little before the call's deadline, so a stalled body still ends as the service's error and not as ky's total
    // timeout. ky gets the answer without its body, so it has nothing left to read into HTTPError.data.
    const until = Math.min(Date.now() + this.opts.timeoutMs, call.deadline - ERROR_BODY_DEADLINE_MARGIN_MS);
    const text = await readBodyText(op.id, res, until, MAX_ERROR_BODY_BYTES, 'truncate').catch(() => '');
    const body = parseErrorBody(text);
    call.answer = { body, err: errorForStatus(op.id, res.status, res.statusText, body, res.headers) };
    return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  /** ky has waited and is about to repeat: log it, and send the cookies the jar holds now. */
  private async beforeRetry(x: Exchange, request: Request, error: Error, call: CallState): Promise<void> {
    call.retries++;
    const last = isHTTPError(error) ? call.answer?.err : undefined;
    this.opts.logger?.warn('retrying reporting service call', {
      operationId: x.op.id,
      status: last?.status,
      error: last ? (last.serviceError ?? last.name) : isTimeoutError(error) ? 'TimeoutError' : 'NetworkError',
      delayMs: call.delayMs,
    });
    const headers = await this.headersOf(x, call.url);
    for (const name of ['Cookie', `${this.opts.headerPrefix}-Csrf`]) {
      const value = headers[name];
      if (value === undefined) request.headers.delete(name);
      else request.headers.set(name, value);
    }
  }

  /** What ky threw, as a ReportingServiceError. */
  private failure(e: unknown, x: Exchange, call: CallState): unknown {
    const operationId = x.op.id;
    if (x.signal?.aborted || e instanceof ReportingServiceError) return e;
    // The last answer, as afterResponse read it: RateLimitedError, ServerError.
    if (isHTTPError(e)) return answerTo(operationId, e.response, call).err;
    // ky's errors carry the Request, whose headers hold the session cookie and the CSRF value (shown by
    // console.log / util.inspect of our error): keep only the error below it (the socket error, if any).
    const cause = e instanceof Error && 'request' in e ? e.cause : e;
    if (isTimeoutError(e) || (e as Error)?.name === 'TimeoutError') {
      return Date.now() >= call.deadline
        ? new TimeoutError(`no answer within ${this.opts.deadlineMs} ms`, { operationId, cause })
        : new TimeoutError(`attempt ${call.attempts} got no answer within ${this.opts.timeoutMs} ms`, {
            operationId,
            cause,
          });
    }
    return new NetworkError(`network error (${causeCode(e) ?? 'no response'})`, { operationId, cause });
  }

  private async wait(
    operationId: string,
    ms: number,
    deadline: number,
    lastError: ReportingServiceError,
    signal?: AbortSignal,
  ): Promise<void> {
    // Waiting past the deadline is pointless: fail now with what the service said.
    if (Date.now() + ms >= deadline) throw lastError;
    this.opts.logger?.warn('retrying reporting service call', {
      operationId,
      status: lastError.status,
      error: lastError.serviceError ?? lastError.name,
      delayMs: ms,
    });
    await this.sleep(ms, signal);
  }
}
