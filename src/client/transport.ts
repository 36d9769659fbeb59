/**
 * One call to the service: builds the request (Origin, client headers, cookies of the service origin only, the
 * CSRF header), sends single attempts through ky, and owns the retry policy of api-shapes §1.3:
 * - 401 `Cookie Missing`: repeat once after ~1 s, then treat as 401;
 * - 401 on a data call: sign in again once (single-flight across concurrent calls) and repeat;
 * - 429: wait `Retry-After`; 5xx and network errors: exponential backoff with full jitter — but operations that are
 *   not safe to repeat are retried only when the failure happened before the request was sent;
 * - every call has an overall deadline, every attempt a timeout.
 */
import ky, { isTimeoutError } from 'ky';
import { isProductScoped, type OperationDef } from '../api/operations.ts';
import type { ServiceCookieJar } from './cookie-jar.ts';
import { errorForStatus, parseErrorBody, retryAfterSeconds } from './error-mapping.ts';
import { AuthenticationError, NetworkError, type ReportingServiceError, TimeoutError } from './errors.ts';
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
const PUBLIC_OPS = new Set(['requestCsrf', 'signIn']);
/** Connection failures that prove the request never reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

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
      // [4] productProperties: `/{product_id}` appended when a product is given (the service's other form).
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
    let retries = 0;
    let cookieMissingSeen = false;
    let reauthenticated = false;

    for (let attempt = 1; ; attempt++) {
      const generation = needsSession && this.session ? await this.session.ensure() : 0;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new TimeoutError(`no answer within ${this.opts.deadlineMs} ms`, { operationId: op.id });
      let res: Response;
      const sentAt = this.opts.now();
      try {
        res = await this.once(x, url, Math.min(this.opts.timeoutMs, remaining));
      } catch (e) {
        const timedOut = isTimeoutError(e) || (e as Error)?.name === 'TimeoutError';
        if (x.signal?.aborted) throw e;
        const notSent = NOT_SENT_CODES.has(causeCode(e) ?? '');
        // ky's errors carry the Request, whose headers hold the session cookie and the CSRF value (shown by
        // console.log / util.inspect of our error): keep only the error below it (the socket error, if any).
        const cause = e instanceof Error && 'request' in e ? e.cause : e;
        const err: ReportingServiceError = timedOut
          ? new TimeoutError(`attempt ${attempt} timed out`, { operationId: op.id, cause })
          : new NetworkError(`network error (${causeCode(e) ?? 'no response'})`, { operationId: op.id, cause });
        if ((op.retrySafe || notSent) && retries < this.opts.maxRetries) {
          retries++;
          await this.backoff(op.id, retries, deadline, err, x.signal);
          continue;
        }
        throw err;
      }
      await this.jar.store(url, res.headers.getSetCookie());
      // Any answer but 401 means the service took the session and renewed it, no earlier than we sent the request.
      if (needsSession && res.status !== 401) this.session?.used(sentAt);
      this.opts.logger?.debug('reporting service call', {
        operationId: op.id,
        status: res.status,
        attempt,
        durationMs: Date.now() - started,
      });
      if (res.ok) return res;

      // An error body is read for its JSON error fields only: its first 64 KiB, within the call's deadline.
      const text = await readBodyText(op.id, res, deadline, MAX_ERROR_BODY_BYTES, 'truncate').catch(() => '');
      const body = parseErrorBody(text);
      const err = errorForStatus(op.id, res.status, res.statusText, body, res.headers);
      if (res.status === 401 && needsSession && this.session) {
        // api-shapes §1.3: Cookie Missing is transient — repeat once after about a second, then sign in again.
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
      // A 429 was refused before any work was done, so even non-idempotent operations may repeat it.
      if (res.status === 429 && retries < this.opts.maxRetries) {
        retries++;
        const after = retryAfterSeconds(res.headers);
        if (after === undefined) await this.backoff(op.id, retries, deadline, err, x.signal);
        else await this.wait(op.id, after * 1000, deadline, err, x.signal);
        continue;
      }
      if (res.status >= 500 && op.retrySafe && retries < this.opts.maxRetries) {
        retries++;
        await this.backoff(op.id, retries, deadline, err, x.signal);
        continue;
      }
      throw err;
    }
  }

  private async once(x: Exchange, url: string, timeoutMs: number): Promise<Response> {
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
    let body: string | undefined;
    if (x.op.method !== 'GET') {
      body = JSON.stringify(x.body ?? {});
      headers['Content-Type'] = x.contentType ?? 'application/json';
    }
    return ky(url, {
      method: x.op.method,
      headers,
      body: body ?? null,
      timeout: timeoutMs,
      retry: 0,
      throwHttpErrors: false,
      // Never follow a redirect: the service's cookies must not travel to wherever it points.
      redirect: 'manual',
      fetch: this.opts.fetch,
      ...(x.signal ? { signal: x.signal } : {}),
    });
  }

  /** Exponential backoff with full jitter, bounded by the call's deadline. */
  private backoff(
    operationId: string,
    retry: number,
    deadline: number,
    lastError: ReportingServiceError,
    signal?: AbortSignal,
  ): Promise<void> {
    const cap = Math.min(this.opts.retryMaxDelayMs, this.opts.retryBaseDelayMs * 2 ** (retry - 1));
    return this.wait(operationId, Math.floor(cap * this.opts.random()), deadline, lastError, signal);
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
