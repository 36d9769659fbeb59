/**
 * Text handling every chat renderer shares (slack.ts, teams.ts): making service text displayable and cutting it to a
 * channel's limit. Service text may hold anything (lone surrogates, NUL, a right-to-left override), and a chat service
 * either refuses such a payload or lets the characters rearrange the text around them (a U+202E in a product name
 * reverses the figures we print after it), so they are replaced with U+FFFD, visibly, before any escaping.
 */

const REPLACEMENT = '\uFFFD';
const ELLIPSIS = '…';

/**
 * C0 and C1 controls other than tab and line feed, and the bidi embeddings, overrides and isolates (LRE…RLO,
 * LRI…PDI): characters that do not show and change how the text around them shows. Letters of right-to-left
 * scripts are untouched: the bidi algorithm places them without help.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** Service text made displayable: well-formed UTF-16, CR LF as LF, hidden characters as U+FFFD. */
export function cleanText(text: string): string {
  return text.toWellFormed().replace(/\r\n?/g, '\n').replace(HIDDEN, REPLACEMENT);
}

/** A title on one line: a line break in a heading (or inside Slack's `*bold*`) would break it. */
export const oneLine = (text: string) => text.replace(/\s*[\r\n\u2028\u2029]\s*/g, ' ');

/** The end of a prefix of `text` at most `end` code units long that does not split a surrogate pair. */
function codePointEnd(text: string, end: number): number {
  const last = text.charCodeAt(end - 1);
  return end > 0 && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/**
 * `escape(text)`, cut with an ellipsis so that it is at most `limit` UTF-16 code units long (the stricter of the
 * ways a service may count, code points or code units). The cut falls between code points of the source and before
 * escaping, so an escape sequence (`&amp;`, `\*`) is never split. `escape` must map a prefix of its input to a
 * prefix of its output, as a character-by-character escaping does.
 */
export function fitText(text: string, limit: number, escape: (text: string) => string = (t) => t): string {
  const whole = escape(text);
  if (whole.length <= limit) return whole;
  const room = limit - ELLIPSIS.length;
  // The longest source prefix whose escaping fits: escaping only grows text, so its length is monotone in the prefix.
  let lo = 0;
  let hi = Math.min(text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (escape(text.slice(0, codePointEnd(text, mid))).length <= room) lo = mid;
    else hi = mid - 1;
  }
  return escape(text.slice(0, codePointEnd(text, lo))) + ELLIPSIS;
}

/** The line that says what a channel message left out: "3 more sections not shown". */
export function notShown(count: number, noun: string): string {
  return `${count} more ${noun}${count === 1 ? '' : 's'} not shown`;
}

/** Text a service refuses when blank (a header, a field) gets a dash instead. */
export const nonBlank = (text: string) => (text.trim() === '' ? '—' : text);

/** `url` as an absolute http(s) URL of at most `maxLength` characters, or undefined: a URL cannot be cut. */
export function webUrl(url: string, maxLength: number): string | undefined {
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return undefined;
  return parsed.href.length <= maxLength ? parsed.href : undefined;
}
