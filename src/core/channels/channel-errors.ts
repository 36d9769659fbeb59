/**
 * How a channel post ends when it does not end in a 2xx (deliver-to-channel.ts), as errors settleSend sorts: a
 * NotSentError subclass when the message certainly is not in the channel (the claim is released and the next run
 * posts), a plain error when it may be (the claim is kept as unknown). Every message names the channel and what it
 * said, never its URL or signing secret.
 */
import { NotSentError } from '../../ports/not-sent.ts';

/** A 3xx (not followed) or a 4xx: the service refused the message, so it is not in the channel. */
export class ChannelRefusedError extends NotSentError {
  override name = 'ChannelRefusedError';
}

/** A chat service answered 429 and the wait it asked for does not fit the run: nothing was posted. */
export class ChannelRateLimitedError extends NotSentError {
  override name = 'ChannelRateLimitedError';
}

/** Nothing was posted for a reason on our side: the secret not read, the message not rendered, no time left. */
export class ChannelNotPostedError extends NotSentError {
  override name = 'ChannelNotPostedError';
}

/**
 * A webhook event not taken within the run's attempts: released, so the next run delivers it again with the same
 * id (a receiver may have got one of the attempts; it deduplicates by webhook-id).
 */
export class WebhookUndeliveredError extends NotSentError {
  override name = 'WebhookUndeliveredError';
}

/** A chat service answered 5xx: it may have posted the message before failing, so it is not posted again. */
export class ChannelServerError extends Error {
  override name = 'ChannelServerError';
}
