/**
 * Text handling every chat renderer shares (slack.ts, teams.ts): making service text displayable, escaping it and
 * cutting it to a channel's limit. Service text may hold anything (lone surrogates, NUL, a right-to-left override),
 * and a chat service either refuses such a payload or lets the characters rearrange the text around them (a U+202E
 * in a product name reverses the figures printed after it), so they are replaced with U+FFFD, visibly, before any
 * escaping. Text may be 10 KB where 150 characters show: only what can show is cleaned and escaped.
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
const cleanText = (text: string) => text.toWellFormed().replace(/\r\n?/g, '\n').replace(HIDDEN, REPLACEMENT);

/** A title on one line: a line break in a heading (or inside Slack's `*bold*`) would break it. */
const cleanTitle = (text: string) =>
  cleanText(text)
    .replace(/\s*[\n\u2028\u2029]\s*/g, ' ')
    .trim();

/** The end of a prefix of `text` at most `end` code units long that does not split a surrogate pair. */
function codePointEnd(text: string, end: number): number {
  const last = text.charCodeAt(end - 1);
  return end > 0 && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/** How service text is escaped for one markup (slack-text.ts, teams-text.ts), and where escaped text may be cut. */
export interface Escaping {
  escape(text: string): string;
  /** The largest end, at most `end`, of a prefix of `escaped` that splits no escape sequence (`&amp;`, `\*`). */
  unitEnd(escaped: string, end: number): number;
}

/** Text shown as it is (plain_text, alt text, a button): nothing to escape. */
export const AS_IS: Escaping = { escape: (text) => text, unitEnd: (_escaped, end) => end };

/**
 * Service text cleaned (a title also on one line), escaped, and cut with an ellipsis so that it is at most `limit`
 * UTF-16 code units long (the stricter of the ways a service may count, code points or code units). The cut never
 * splits an escape sequence or a surrogate pair. Cleaning never lengthens text and shortens it by half at most (CR LF;
 * a title's collapsed spaces aside), and escaping only lengthens it, so twice the limit of source is all that can
 * show; the last character of such a slice is dropped, since cleaning may read it otherwise without what followed.
 */
export function fitText(text: string, limit: number, escaping: Escaping = AS_IS, kind: 'text' | 'title' = 'text') {
  const clean = kind === 'title' ? cleanTitle : cleanText;
  const sliced = text.length > 2 * limit + 2;
  let source = clean(sliced ? text.slice(0, 2 * limit + 2) : text);
  if (sliced) source = source.slice(0, codePointEnd(source, source.length - 1));
  const escaped = escaping.escape(source.length > limit ? source.slice(0, limit + 1) : source);
  if (!sliced && source.length <= limit && escaped.length <= limit) return escaped;
  const end = escaping.unitEnd(escaped, Math.min(escaped.length, limit - ELLIPSIS.length));
  return escaped.slice(0, codePointEnd(escaped, end)) + ELLIPSIS;
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
