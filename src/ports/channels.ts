/**
 * Chat and webhook channels (Slack, Microsoft Teams, signed webhooks): where a channel's credentials come from
 * (`ChannelSecrets`: Secrets Manager in AWS, the environment or the local sinks for local runs) and how one request
 * reaches it (`ChannelPoster`: HTTPS, no redirects followed, a timeout per post). What a post's answer means for
 * delivery is decided in src/core/channels/, not here.
 */
import { NotSentError } from './not-sent.ts';

export type ChannelKind = 'slack' | 'teams' | 'webhook';

/** A channel's credentials: never logged, never in an error, a job result or a snapshot. */
export interface ChannelEndpoint {
  /** The incoming-webhook / Workflows / receiver URL (https; loopback http for local runs). */
  url: string;
  /** Webhooks only: the Standard Webhooks signing secret, `whsec_<base64>`. */
  signingSecret?: string;
}

/** A configured channel, as the secrets port needs it (the config's `channels[]` entry). */
export interface ChannelRef {
  id: string;
  kind: ChannelKind;
  /** Where its secret is: an environment variable (default `PULSE_CHANNEL_<ID>`) or a Secrets Manager secret. */
  secret: { source: 'env'; var?: string | undefined } | { source: 'secretsManager'; secretId: string };
}

export interface ChannelSecrets {
  /** The channel's endpoint, read on every call (a rotated secret is picked up); errors name the channel only. */
  endpointOf(channel: ChannelRef): Promise<ChannelEndpoint>;
}

export interface ChannelRequest {
  url: string;
  /** The JSON body, exactly as signed. */
  body: string;
  headers: Record<string, string>;
  /** The whole exchange, from connecting to the last byte of the answer. */
  timeoutMs: number;
}

export interface ChannelResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The answer's text, at most a few KB (Slack's `invalid_blocks`, a Teams error). */
  body: string;
}

export interface ChannelPoster {
  /**
   * Posts one request and returns whatever status came back (no redirect is followed: a 3xx is returned). Throws
   * PostNotSentError when nothing reached the receiver (no connection made, refused before the request was written);
   * any other error (a timeout, a connection lost after the request was written) means it may have arrived.
   */
  post(request: ChannelRequest): Promise<ChannelResponse>;
}

/** The request never reached the receiver: posting it again cannot make a duplicate. */
export class PostNotSentError extends NotSentError {
  override name = 'PostNotSentError';
}

/** What a job needs to post to its channels. */
export interface ChannelPorts {
  secrets: ChannelSecrets;
  poster: ChannelPoster;
  /** When the run must be done (epoch ms; a Lambda's end less a margin): no wait or post is begun past it. */
  deadline?: number;
}
