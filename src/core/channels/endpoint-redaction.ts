/**
 * Text that came from outside (a service's answer body, a poster's error) made safe to report: a channel's URL path
 * is its credential and a proxy's error page may echo it, so the endpoint's URL, path and signing secret are cut
 * out, and any other URL too (a body may name a redirect target or another hook).
 */
import type { ChannelEndpoint } from '../../ports/channels.ts';
import { NotSentError } from '../../ports/not-sent.ts';

/** Characters of an answer body a report quotes. */
export const ANSWER_EXCERPT_CHARS = 200;

/** Shorter pieces of a URL (`/`, `?a=1`, a parameter like `1.0`) are left in the text. */
const MIN_SECRET_CHARS = 8;
/** A URL as written, with its slashes JSON-escaped (`http:\/\/…`) or percent-encoded (`http%3A%2F%2F…`). */
const ANY_URL = /\b[a-z][a-z0-9+.-]*(?::\/\/|:\\\/\\\/|%3A%2F%2F)[^\s"'<>]+/gi;

export function withoutEndpoint(text: string, endpoint: ChannelEndpoint): string {
  let out = text;
  const secrets = [endpoint.url];
  if (URL.canParse(endpoint.url)) {
    const url = new URL(endpoint.url);
    const pathAndQuery = `${url.pathname}${url.search}`;
    // Slack's credential is the path, a Teams workflow's the query's `sig`: each is cut out on its own too.
    secrets.push(pathAndQuery, url.pathname, url.search, ...url.searchParams.values());
    // Each path segment on its own too (a service may quote only the hook's id), whatever the escaping around it.
    secrets.push(...url.pathname.split('/'));
  }
  if (endpoint.signingSecret !== undefined) {
    secrets.push(endpoint.signingSecret, endpoint.signingSecret.replace(/^whsec_/, ''));
  }
  // As a body may quote them: percent-encoded, or with JSON's escaped slashes.
  const forms = secrets.flatMap((secret) => [secret, encodeURIComponent(secret), secret.replaceAll('/', '\\/')]);
  // Longest first: the whole URL before its path, so no piece of it is left behind.
  for (const secret of [...new Set(forms)].sort((a, b) => b.length - a.length)) {
    // A root path or a one-letter parameter is no secret, and cutting it would garble the text.
    if (secret.length >= MIN_SECRET_CHARS) out = out.replaceAll(secret, '[redacted]');
  }
  return out.replace(ANY_URL, '[url]');
}

/** An answer's body as a report quotes it: one line, without URLs or the endpoint, at most ANSWER_EXCERPT_CHARS. */
export function answerExcerpt(body: string, endpoint: ChannelEndpoint): string {
  const line = withoutEndpoint(body, endpoint).replace(/\s+/g, ' ').trim();
  return line.length > ANSWER_EXCERPT_CHARS ? `${line.slice(0, ANSWER_EXCERPT_CHARS - 1)}…` : line;
}

/**
 * `e` itself when its message is clean, else a copy with the endpoint cut out: same name, and still a NotSentError
 * if it was one (what settleSend decides by).
 */
export function errorWithoutEndpoint(e: unknown, endpoint: ChannelEndpoint): unknown {
  if (!(e instanceof Error)) return e;
  const message = withoutEndpoint(e.message, endpoint);
  if (message === e.message) return e;
  const copy = e instanceof NotSentError ? new NotSentError(message) : new Error(message);
  copy.name = e.name;
  return copy;
}
