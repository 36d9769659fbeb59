/**
 * One message to one channel under one ledger key, with the guarantee its readers need (docs/delivery.md):
 *
 * - Slack and Teams are read by people: AT MOST ONCE, like email. A 2xx is sent; a 3xx (not followed) or 4xx is a
 *   refusal, so the claim is released and the next run tries again; a 429 posted nothing, so the Retry-After it
 *   asks for is waited within the run's deadline and the post repeated. A 5xx, a timeout or a connection lost after
 *   the request was written may have posted it: unknown, never posted again unless a person asks (`resendUnknown`).
 * - Webhooks are read by programs: AT LEAST ONCE, deduplicated by a stable id. Every attempt carries the same
 *   `webhook-id` (a fresh timestamp and signature); 5xx, 429, timeouts and connection errors are retried with
 *   backoff up to `maxAttempts` within the deadline; other 3xx/4xx stop at once. An event not taken is released,
 *   so the next run delivers it with the same id, and a claim left unknown by a run that died is taken over.
 *
 * `channelSend` is the send alone, for callers that hold their claims (license alerts); `deliverToChannel` claims
 * and settles. Log lines and errors name the channel, its kind, the status and the attempt, never the URL or secret.
 */
import { setTimeout as realSleep } from 'node:timers/promises';
import { retryAfterSeconds } from '../../client/error-mapping.ts';
import type { ChannelConfig } from '../../config/channels-schema.ts';
import type { ChannelEndpoint, ChannelPorts, ChannelRequest, ChannelResponse } from '../../ports/channels.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { Logger } from '../../ports/logger.ts';
import { NotSentError } from '../../ports/not-sent.ts';
import { claimKey, type Delivery, type Send, settleSend } from '../delivery/deliver-once.ts';
import {
  ChannelNotPostedError,
  ChannelRateLimitedError,
  ChannelRefusedError,
  ChannelServerError,
  WebhookUndeliveredError,
} from './channel-errors.ts';
import type { ChannelMessage } from './channel-message.ts';
import { channelLabel } from './channel-targets.ts';
import { answerExcerpt, errorWithoutEndpoint } from './endpoint-redaction.ts';
import { renderChannelRequest } from './render-channel.ts';
import { channelEventId } from './webhook-event.ts';

/** The wait on a 429 that gives no (readable) Retry-After. */
/** The header a chat post names its delivery with (a webhook's is `webhook-id`). */
export const DELIVERY_ID_HEADER = 'x-pulse-delivery';

export const DEFAULT_RETRY_AFTER_MS = 1000;
/** No single wait is longer, whatever a Retry-After asks: a run does not sit for minutes on one channel. */
export const MAX_WAIT_MS = 60_000;
/** Webhook retries: full-jitter backoff doubling from the base, at most the cap (like the service client's). */
export const WEBHOOK_BACKOFF = { baseMs: 1000, capMs: 30_000 } as const;
/** Slack and Teams: posts of one message in a run, counting those answered 429 (nothing posted). */
export const CHAT_MAX_POSTS = 6;

export interface ChannelSendPorts {
  logger: Logger;
  channels: ChannelPorts;
  clock?: Clock;
  /** Waits between posts; tests pass one that returns at once. @default node:timers/promises setTimeout */
  sleep?: (ms: number) => Promise<void>;
  /** The jitter of webhook backoff, in [0, 1). @default Math.random */
  random?: () => number;
}

export interface DeliverToChannelPorts extends ChannelSendPorts {
  ledger: Ledger;
}

export interface ChannelSendOptions {
  /** The ledger key this message is delivered under: its event id (webhook-id, message id) comes from it. */
  key: string;
  /** The run's deadline (epoch ms, by `clock`): no wait or post is begun that would end after it. */
  deadline?: number;
}

/** The send under claims the caller holds: posts `message` to `channel` and returns the event id. */
export function channelSend(
  ports: ChannelSendPorts,
  channel: ChannelConfig,
  message: ChannelMessage,
  opts: ChannelSendOptions,
): Send {
  return async () => {
    const eventId = channelEventId(opts.key);
    const post: Post = { ports, channel, message, eventId, endpoint: await endpointOf(ports, channel), opts };
    await (channel.kind === 'webhook' ? postWebhook(post) : postChat(post));
    return { messageId: eventId };
  };
}

/** Claims `key`, posts, and settles the claim as the channel's guarantee says. */
export async function deliverToChannel(
  ports: DeliverToChannelPorts,
  key: string,
  channel: ChannelConfig,
  message: ChannelMessage,
  opts: { resendUnknown?: boolean; deadline?: number } = {},
): Promise<Delivery> {
  // A webhook claim left unknown (a run died holding it) is taken over: a duplicate is fine for a program.
  const takeOver = opts.resendUnknown === true || channel.kind === 'webhook';
  const claimed = await claimKey(ports, key, { resendUnknown: takeOver });
  if (claimed !== 'claimed') return claimed;
  const send = channelSend(ports, channel, message, {
    key,
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
  });
  return settleSend(ports, [key], send, {
    receiver: channelLabel(channel),
    ...(opts.resendUnknown ? { resendUnknown: true } : {}),
  });
}

interface Post {
  ports: ChannelSendPorts;
  channel: ChannelConfig;
  message: ChannelMessage;
  eventId: string;
  endpoint: ChannelEndpoint;
  opts: ChannelSendOptions;
}

async function endpointOf(ports: ChannelSendPorts, channel: ChannelConfig): Promise<ChannelEndpoint> {
  try {
    return await ports.channels.secrets.endpointOf(channel);
  } catch (e) {
    // Nothing was posted without an endpoint, whatever the secrets adapter threw.
    if (e instanceof NotSentError) throw e;
    throw new ChannelNotPostedError(`${channelLabel(channel)}: its secret was not read (${describe(e)})`);
  }
}

/** Slack and Teams: one post, repeated only after a 429 (which posted nothing). */
async function postChat(p: Post): Promise<void> {
  const label = channelLabel(p.channel);
  for (let attempt = 1; ; attempt++) {
    const res = await postOnce(p, attempt);
    if (isSuccess(res)) return logPosted(p, attempt, res);
    logAnswer(p, attempt, res);
    if (res.status === 429) {
      const waitMs = retryAfterMs(res) ?? DEFAULT_RETRY_AFTER_MS;
      const refused = attempt >= CHAT_MAX_POSTS ? `after ${attempt} posts answered 429` : waitRefused(p, waitMs);
      if (refused !== undefined) {
        throw new ChannelRateLimitedError(
          `${label} is rate-limited (429, retry after ${seconds(waitMs)}): not posted, ${refused}`,
        );
      }
      await wait(p, attempt, waitMs);
      continue;
    }
    if (isRefusal(res)) throw refusal(p, res);
    throw new ChannelServerError(`the service answered ${statusText(p, res)}`);
  }
}

/** Webhooks: the same event id on every attempt until a 2xx, a refusal, `maxAttempts` or the deadline. */
async function postWebhook(p: Post): Promise<void> {
  const label = channelLabel(p.channel);
  let last = '';
  let stopped = '';
  let attempt = 1;
  for (; ; attempt++) {
    let res: ChannelResponse | undefined;
    try {
      res = await postOnce(p, attempt);
    } catch (e) {
      if (e instanceof ChannelNotPostedError) throw e;
      last = describe(e);
    }
    if (res !== undefined) {
      if (isSuccess(res)) return logPosted(p, attempt, res);
      logAnswer(p, attempt, res);
      if (res.status !== 429 && isRefusal(res)) throw refusal(p, res);
      last = statusText(p, res);
    }
    if (attempt >= p.channel.maxAttempts) break;
    const waitMs = (res?.status === 429 ? retryAfterMs(res) : undefined) ?? backoffMs(p, attempt);
    const refused = waitRefused(p, waitMs);
    if (refused !== undefined) {
      stopped = `, then stopped: the next wait (${seconds(waitMs)}) is ${refused}`;
      break;
    }
    await wait(p, attempt, waitMs);
  }
  throw new WebhookUndeliveredError(
    `${label} did not take event ${p.eventId} in ${attempt} attempt(s)${stopped} (last: ${last}); ` +
      'the next run delivers it again with the same webhook-id',
  );
}

/**
 * One attempt: rendered now (a webhook's timestamp and signature are fresh on every attempt) and posted. A poster
 * error comes back with the endpoint cut out of its message; its class (PostNotSentError or not) is kept.
 */
async function postOnce(p: Post, attempt: number): Promise<ChannelResponse> {
  const { channel, endpoint, ports } = p;
  const noTime = waitRefused(p, 0);
  if (noTime !== undefined) throw new ChannelNotPostedError(`${channelLabel(channel)}: not posted, ${noTime}`);
  let request: ChannelRequest;
  try {
    const rendered = renderChannelRequest(channel.kind, p.message, {
      eventId: p.eventId,
      now: now(p),
      ...(endpoint.signingSecret !== undefined ? { signingSecret: endpoint.signingSecret } : {}),
    });
    // Chat posts carry their event id too: nothing reads it there but a receiver's log (and the local sinks' checks).
    const headers =
      channel.kind === 'webhook' ? rendered.headers : { ...rendered.headers, [DELIVERY_ID_HEADER]: p.eventId };
    request = { url: endpoint.url, body: rendered.body, headers, timeoutMs: channel.timeoutMs };
  } catch (e) {
    throw new ChannelNotPostedError(`${channelLabel(channel)}: the message was not rendered (${describe(e)})`);
  }
  try {
    return await ports.channels.poster.post(request);
  } catch (e) {
    const clean = errorWithoutEndpoint(e, endpoint);
    ports.logger.warn('channel post failed', {
      channel: channel.id,
      kind: channel.kind,
      attempt,
      error: describe(clean),
    });
    throw clean;
  }
}

/** Why a wait of `waitMs` followed by a post may not begin now; undefined when it may. */
function waitRefused(p: Post, waitMs: number): string | undefined {
  if (waitMs > MAX_WAIT_MS) return `longer than the ${seconds(MAX_WAIT_MS)} a run waits`;
  // The caller's, else the runtime's (a Lambda's remaining time): a 429's wait never outlives the invocation.
  const deadline = p.opts.deadline ?? p.ports.channels.deadline;
  if (deadline === undefined) return undefined;
  const left = deadline - now(p).getTime();
  if (waitMs + p.channel.timeoutMs > left) {
    return `past the run's deadline (${seconds(Math.max(0, left))} left, a post may take ${seconds(p.channel.timeoutMs)})`;
  }
  return undefined;
}

function refusal(p: Post, res: ChannelResponse): ChannelRefusedError {
  return new ChannelRefusedError(`${channelLabel(p.channel)} refused it: ${statusText(p, res)}`);
}

/** "404 channel_not_found", "302 (a redirect, not followed)": the status and the start of the body, made safe. */
function statusText(p: Post, res: ChannelResponse): string {
  const excerpt = answerExcerpt(res.body, p.endpoint);
  const redirect = res.status >= 300 && res.status < 400 ? ' (a redirect, not followed)' : '';
  return `${res.status}${redirect}${excerpt === '' ? '' : ` ${excerpt}`}`;
}

function logAnswer(p: Post, attempt: number, res: ChannelResponse): void {
  p.ports.logger.warn('channel answered', { channel: p.channel.id, kind: p.channel.kind, attempt, status: res.status });
}

/** The wait before the next attempt, logged. */
async function wait(p: Post, attempt: number, waitMs: number): Promise<void> {
  p.ports.logger.info('channel post again', {
    channel: p.channel.id,
    kind: p.channel.kind,
    attempt: attempt + 1,
    waitMs,
  });
  await (p.ports.sleep ?? realSleep)(waitMs);
}

function logPosted(p: Post, attempt: number, res: ChannelResponse): void {
  p.ports.logger.info('channel posted', { channel: p.channel.id, kind: p.channel.kind, attempt, status: res.status });
}

const isSuccess = (res: ChannelResponse) => res.status >= 200 && res.status < 300;
const isRefusal = (res: ChannelResponse) => res.status >= 300 && res.status < 500;

/** A 429's Retry-After (seconds or an HTTP date) in ms; undefined when absent or unreadable. */
function retryAfterMs(res: ChannelResponse): number | undefined {
  const value = res.headers['retry-after'];
  if (value === undefined) return undefined;
  const s = retryAfterSeconds(new Headers({ 'retry-after': value }));
  return s === undefined ? undefined : s * 1000;
}

function backoffMs(p: Post, attempt: number): number {
  const cap = Math.min(WEBHOOK_BACKOFF.capMs, WEBHOOK_BACKOFF.baseMs * 2 ** (attempt - 1));
  return Math.floor(cap * (p.ports.random ?? Math.random)());
}

const now = (p: Post) => (p.ports.clock ?? systemClock).now();
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
