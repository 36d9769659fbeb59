/**
 * What a channel's secret must hold, checked in one place for every source (channel-secrets.ts: the environment,
 * Secrets Manager) and where a channel URL may point (the poster, src/adapters/http/channel-poster.ts, refuses the
 * same URLs again before connecting). A secret that is wrong is reported with the channel, where the secret is and
 * what is wrong with it, never with any part of its value: the URL's path is the credential.
 */
import { isLoopbackHost } from '../client/loopback-host.ts';
import { SigningSecretError, signingKey } from '../core/channels/webhook-signing.ts';
import type { ChannelEndpoint, ChannelRef } from '../ports/channels.ts';
import { NotSentError } from '../ports/not-sent.ts';

/** A channel's secret is missing or malformed: nothing was posted, so the claim may be released. */
export class ChannelSecretError extends NotSentError {
  override name = 'ChannelSecretError';
}

/**
 * Why `url` may not be posted to (not a URL; not https, nor http to a loopback host), or its parsed form. The
 * reason never repeats the URL.
 */
export function checkChannelUrl(url: string): URL | { refused: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: 'is not a URL' };
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return parsed;
  return { refused: 'must be https (plain http only to a loopback host, for local runs)' };
}

/**
 * The endpoint in a channel's secret (`{"url"}`, and `"signingSecret"` for a webhook), or a ChannelSecretError
 * naming `channel`, `where` ("environment variable PULSE_CHANNEL_OPS", "secret pulse/ops") and the fault.
 * A Slack URL outside hooks.slack.com is accepted: Enterprise Grid and egress proxies have their own.
 */
export function parseChannelEndpoint(
  channel: ChannelRef,
  secret: Record<string, unknown>,
  where: string,
): ChannelEndpoint {
  const fault = (what: string) => new ChannelSecretError(`channel ${channel.id}: ${where} ${what}`);
  const { url, signingSecret } = secret;
  if (typeof url !== 'string' || url.trim() === '') throw fault('has no "url" (a non-empty string)');
  const checked = checkChannelUrl(url.trim());
  if ('refused' in checked) throw fault(`has a "url" that ${checked.refused}`);
  // The URL as given, not as parsed: a service may compare its path byte for byte.
  if (channel.kind !== 'webhook') return { url: url.trim() };

  if (typeof signingSecret !== 'string' || signingSecret === '') {
    throw fault('has no "signingSecret" (whsec_ and base64), which a webhook needs');
  }
  try {
    signingKey(signingSecret);
  } catch (e) {
    // The renderer's own check, so the two never disagree; its message names the fault, never the secret.
    if (e instanceof SigningSecretError) throw fault(`has an unusable "signingSecret": ${e.message}`);
    throw e;
  }
  return { url: url.trim(), signingSecret };
}
