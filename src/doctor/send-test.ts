/**
 * `pulse doctor --send-test CHANNEL`: the channel's line (channel-checks.ts), then exactly one test message posted
 * the way every run posts (`channelSend`: rendered and, for a webhook, signed like any event), and what came of it:
 * sent, refused, rate limited, unknown (it may have arrived) or not sent. One post and no second: a 429 or a 5xx is
 * reported, not waited out or retried, so a person sees what the channel answered. The message is on demand, not a
 * delivery: no ledger claim is taken and nothing is recorded, and its webhook-id is fresh each time (a receiver
 * that deduplicates would drop a second test under the same id). The outcome is judged from the one exchange,
 * recorded with the URL and signing secret already cut out of it.
 */
import { randomUUID } from 'node:crypto';
import { ChannelSecretError } from '../adapters/channel-endpoint.ts';
import { retryAfterSeconds } from '../client/error-mapping.ts';
import type { ChannelConfig } from '../config/channels-schema.ts';
import type { PulseConfig } from '../config/schema.ts';
import { localDateTime } from '../core/calendar.ts';
import type { ChannelMessage } from '../core/channels/channel-message.ts';
import { channelLabel } from '../core/channels/channel-targets.ts';
import { channelSend } from '../core/channels/deliver-to-channel.ts';
import { answerExcerpt, errorWithoutEndpoint } from '../core/channels/endpoint-redaction.ts';
import { channelEventId } from '../core/channels/webhook-event.ts';
import {
  type ChannelEndpoint,
  type ChannelPorts,
  type ChannelPoster,
  type ChannelRequest,
  type ChannelResponse,
  PostNotSentError,
} from '../ports/channels.ts';
import { type Clock, systemClock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import { ChannelCheckError, type ChannelFailureReason, channelCheck, channelUses } from './channel-checks.ts';
import { type CheckResult, explainedFail, ok, skip } from './check-result.ts';

const TEST_MESSAGE_TITLE = 'Pulse test message';
const NAME = 'test message';

/** Where the test message goes: the configured channel, or (`--local`) the local channel sink. */
export interface SendTestTarget {
  ports: ChannelPorts;
  localSink?: LocalSinkView;
}

/** What the outcome line needs of the local channel sink (channel-local-sink.ts). */
export interface LocalSinkView {
  /** `127.0.0.1:<port>`. */
  host: string;
  /** Every post received, oldest first (a live list), with the outbox files written for it. */
  received: readonly { channel: string; files: string[] }[];
  idle(): Promise<void>;
}

export interface SendTestOptions {
  logger: Logger;
  /** Who sends it, named in the message: the config file's name and the stack. */
  sender: { config: string; stack?: string | undefined };
  clock?: Clock;
}

/** The channel's line, then the test message's (skipped when the channel's secret is not usable). */
export async function* sendTestChecks(
  config: PulseConfig,
  channel: ChannelConfig,
  target: SendTestTarget,
  opts: SendTestOptions,
): AsyncGenerator<CheckResult> {
  const sink = target.localSink;
  const check = sink
    ? ok(channelLabel(channel), `the local channel sink at ${sink.host} (--local: the configured secret is not read)`)
    : await channelCheck(channel, target.ports.secrets, channelUses(config).get(channel.id) ?? []);
  yield check;
  if (check.status === 'fail') {
    yield skip(NAME, "not sent: the channel's secret is not usable (above)");
    return;
  }
  yield await sendTestMessage(channel, target, opts);
}

/** "Pulse test message": which config and stack sent it, and when, in the channel's time zone. */
export function testMessage(channel: ChannelConfig, sender: SendTestOptions['sender'], now: Date): ChannelMessage {
  const timeZone = channel.timeZone ?? 'UTC';
  const { date, time } = localDateTime(now, timeZone);
  const from = `config ${sender.config}${sender.stack !== undefined ? `, stack ${sender.stack}` : ''}`;
  return {
    event: 'channel.test',
    title: TEST_MESSAGE_TITLE,
    summary: `Sent by pulse doctor --send-test (${from}) on ${date} at ${time} (${timeZone})`,
    lines: ['Nothing to do: this message checks that Pulse can post to this channel.'],
    facts: [{ label: 'Channel', value: channel.id }],
    sections: [],
    occurredAt: now.toISOString(),
    data: {
      channel: channel.id,
      config: sender.config,
      ...(sender.stack !== undefined ? { stack: sender.stack } : {}),
      sentBy: 'pulse doctor --send-test',
    },
  };
}

/** Thrown by the wait before a second post: the doctor posts once and reports. */
class OnePostOnly extends Error {
  override name = 'OnePostOnly';
}

async function sendTestMessage(
  channel: ChannelConfig,
  target: SendTestTarget,
  opts: SendTestOptions,
): Promise<CheckResult> {
  const clock = opts.clock ?? systemClock;
  const exchange = new RecordedExchange(target.ports);
  // A fresh key, so a fresh webhook-id: each test is a new event.
  const key = `doctor-send-test#${channel.id}#${randomUUID()}`;
  const eventId = channelEventId(key);
  const receivedBefore = target.localSink?.received.length ?? 0;
  const send = channelSend(
    {
      logger: opts.logger,
      channels: exchange.ports,
      clock,
      sleep: () => Promise.reject(new OnePostOnly('one post only')),
    },
    channel,
    testMessage(channel, opts.sender, clock.now()),
    { key },
  );
  let sent = true;
  let failure: unknown;
  try {
    await send();
  } catch (e) {
    sent = false;
    failure = e;
  }
  const after: string[] = [];
  if (channel.kind === 'webhook' && exchange.posted)
    after.push(`webhook-id ${eventId}: look for it in the receiver's log`);
  const sink = target.localSink;
  if (sink) {
    await sink.idle();
    const file = sink.received.slice(receivedBefore).find((p) => p.channel === channel.id && p.files.length > 0);
    const json = file?.files.find((f) => f.endsWith('.json'));
    if (json !== undefined) after.push(`outbox ${json} (and its .html preview)`);
  }
  const tail = after.length > 0 ? `; ${after.join('; ')}` : '';
  if (sent) return ok(NAME, `sent: ${answered(channel, exchange.last)}${tail}`);
  const { detail, reason } = judge(channel, exchange, failure);
  return explainedFail(NAME, `${detail}${tail}`, new ChannelCheckError(detail, reason, { cause: failure }));
}

/** Why the message is not (known to be) in the channel, and the exit code's reason. */
function judge(
  channel: ChannelConfig,
  exchange: RecordedExchange,
  failure: unknown,
): { detail: string; reason: ChannelFailureReason } {
  const last = exchange.last;
  if (last === undefined) {
    // Nothing was posted: the secret was not read (after its check passed: rotated in between) or not rendered.
    const message = failure instanceof Error ? failure.message : String(failure);
    return { detail: `not sent: ${message}`, reason: failure instanceof ChannelSecretError ? 'secret' : 'other' };
  }
  if ('error' in last) {
    return last.notSent
      ? { detail: `not sent: ${last.error}: check the network and the URL's host`, reason: 'network' }
      : { detail: `unknown: ${last.error}: it may have arrived, check the channel`, reason: 'network' };
  }
  const answer = answered(channel, last);
  if (last.status === 429) {
    const after = retryAfterSeconds(new Headers(last.retryAfter ? { 'retry-after': last.retryAfter } : {}));
    const wait = after === undefined ? 'try again later' : `try again in ${after} s`;
    return { detail: `rate limited: ${answer}: nothing was posted; ${wait}`, reason: 'answer' };
  }
  if (last.status < 500) {
    return {
      detail:
        `refused: ${answer}: nothing was posted; check the channel's secret ` +
        '(a removed webhook, an archived channel, a deleted workflow, a receiver that refuses the signature)',
      reason: 'answer',
    };
  }
  return { detail: `unknown: ${answer}: it may have posted it, check the channel`, reason: 'answer' };
}

/** "Slack channel ops answered 404 channel_not_found". */
function answered(channel: ChannelConfig, last: Exchange | undefined): string {
  if (last === undefined || 'error' in last) return channelLabel(channel);
  const redirect = last.status >= 300 && last.status < 400 ? ' (a redirect, not followed)' : '';
  const excerpt = last.excerpt === '' ? '' : ` ${last.excerpt}`;
  // A Workflows 202 means the flow took it; the flow then posts, or fails where only its run history says.
  const accepted = channel.kind === 'teams' && last.status === 202 ? ' (the workflow took it: check the channel)' : '';
  return `${channelLabel(channel)} answered ${last.status}${redirect}${excerpt}${accepted}`;
}

type Exchange =
  | { status: number; excerpt: string; retryAfter?: string }
  /** No answer: `notSent` when the request certainly never reached the receiver. */
  | { error: string; notSent: boolean };

/**
 * The ports `channelSend` posts through, recording the last exchange as text already cleaned of the endpoint (the
 * URL, its path and query, the signing secret), so that the outcome line is built from nothing secret.
 */
class RecordedExchange {
  last: Exchange | undefined;
  posted = false;
  readonly ports: ChannelPorts;
  #endpoint: ChannelEndpoint | undefined;

  constructor(inner: ChannelPorts) {
    const poster: ChannelPoster = { post: (request) => this.#post(inner.poster, request) };
    this.ports = {
      poster,
      secrets: {
        endpointOf: async (channel) => {
          this.#endpoint = await inner.secrets.endpointOf(channel);
          return this.#endpoint;
        },
      },
    };
  }

  async #post(inner: ChannelPoster, request: ChannelRequest): Promise<ChannelResponse> {
    this.posted = true;
    const endpoint = this.#endpoint ?? { url: request.url };
    try {
      const res = await inner.post(request);
      const retryAfter = res.headers['retry-after'];
      this.last = {
        status: res.status,
        excerpt: answerExcerpt(res.body, endpoint),
        ...(retryAfter !== undefined ? { retryAfter } : {}),
      };
      return res;
    } catch (e) {
      const clean = errorWithoutEndpoint(e, endpoint);
      this.last = {
        error: clean instanceof Error ? clean.message : String(clean),
        notSent: e instanceof PostNotSentError,
      };
      throw e;
    }
  }
}
