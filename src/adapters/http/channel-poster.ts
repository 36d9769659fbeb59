/**
 * Posts one channel request (Slack, Teams, a webhook receiver) over node:http / node:https, and says whether it can
 * have arrived when it fails. That is why it is not fetch or an HTTP library: fetch reports a refused connection and
 * a connection reset after the body was written as the same `TypeError: fetch failed`, and delivery must tell them
 * apart (never written: post again freely; maybe written: a chat message may already be in the channel).
 *
 * - Every post opens its own connection (`agent: false`): a kept-alive socket closed by the server just as we reuse
 *   it would fail after we wrote, an "unknown" with nothing behind it.
 * - Until the connection is made (TCP, and TLS for https) nothing can have arrived: DNS failures, refused connections,
 *   connect timeouts and TLS failures are PostNotSentError. After that, an error is ChannelPostUncertainError.
 * - Once the status line is in, the receiver has decided: a body cut short or slow is returned as far as it came.
 * - A 3xx is returned, never followed; the answer's body is read up to ANSWER_BYTES.
 * - Only https, or http to a loopback host; the URL's path and query are the credential, so errors name the host.
 */
import http from 'node:http';
import https from 'node:https';
import type { ChannelPoster, ChannelRequest, ChannelResponse } from '../../ports/channels.ts';
import { PostNotSentError } from '../../ports/channels.ts';
import { checkChannelUrl } from '../channel-endpoint.ts';

/** How much of an answer's body is read: enough for Slack's `invalid_blocks` or a Teams error. */
export const ANSWER_BYTES = 4096;

/** The request may have reached the receiver (no answer in time, the connection lost after it was written). */
export class ChannelPostUncertainError extends Error {
  override name = 'ChannelPostUncertainError';
}

export class HttpChannelPoster implements ChannelPoster {
  post(request: ChannelRequest): Promise<ChannelResponse> {
    const target = checkChannelUrl(request.url);
    if ('refused' in target) {
      const host = URL.canParse(request.url) ? ` to ${new URL(request.url).host}` : '';
      return Promise.reject(new PostNotSentError(`refused to post${host}: the channel URL ${target.refused}`));
    }
    return exchange(target, request);
  }
}

function exchange(url: URL, request: ChannelRequest): Promise<ChannelResponse> {
  const secure = url.protocol === 'https:';
  const body = Buffer.from(request.body, 'utf8');
  return new Promise((resolve, reject) => {
    let connected = false;
    let timedOut = false;
    let settled = false;
    let answer: { status: number; headers: Record<string, string>; chunks: Buffer[]; bytes: number } | undefined;

    const req = (secure ? https : http).request(url, {
      method: 'POST',
      agent: false,
      headers: { ...request.headers, 'content-length': String(body.length) },
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timed out'));
    }, request.timeoutMs);

    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
      req.destroy();
    };
    const answered = () =>
      finish(() => {
        if (answer === undefined) return;
        const text = Buffer.concat(answer.chunks).subarray(0, ANSWER_BYTES).toString('utf8');
        resolve({ status: answer.status, headers: answer.headers, body: text });
      });

    req.on('socket', (socket) => {
      // TLS counts from its handshake: a certificate refused is a failure before anything of the request went out.
      if (secure) socket.once('secureConnect', () => (connected = true));
      else if (socket.connecting) socket.once('connect', () => (connected = true));
      else connected = true;
    });
    req.on('response', (res) => {
      answer = { status: res.statusCode ?? 0, headers: flatHeaders(res.headers), chunks: [], bytes: 0 };
      const a = answer;
      res.on('data', (chunk: Buffer) => {
        a.chunks.push(chunk);
        a.bytes += chunk.length;
        if (a.bytes >= ANSWER_BYTES) answered();
      });
      res.on('end', answered);
      // Cut short (the connection lost mid-body): what came is the answer.
      res.on('close', answered);
      res.on('error', answered);
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (answer !== undefined) return answered();
      finish(() => reject(failure(url, request, e, { connected, timedOut })));
    });
    req.end(body);
  });
}

/** The error of a post that got no answer: not sent before the connection was made, uncertain after. */
function failure(
  url: URL,
  request: ChannelRequest,
  e: NodeJS.ErrnoException,
  state: { connected: boolean; timedOut: boolean },
): Error {
  if (state.timedOut) {
    return state.connected
      ? new ChannelPostUncertainError(`no answer from ${url.host} within ${request.timeoutMs} ms`)
      : new PostNotSentError(`no connection to ${url.host} within ${request.timeoutMs} ms`);
  }
  const why = withoutUrl(`${e.code ? `${e.code}: ` : ''}${e.message}`, url);
  return state.connected
    ? new ChannelPostUncertainError(`connection to ${url.host} lost after the request was sent (${why})`)
    : new PostNotSentError(`not sent to ${url.host} (${why})`);
}

/** Node names hosts and addresses in its errors, not paths; this keeps it so should that ever change. */
function withoutUrl(text: string, url: URL): string {
  let out = text.replaceAll(url.href, url.host);
  const pathAndQuery = `${url.pathname}${url.search}`;
  if (pathAndQuery.length > 1) out = out.replaceAll(pathAndQuery, '/…');
  return out;
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
