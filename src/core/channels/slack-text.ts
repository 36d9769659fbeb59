/**
 * Service text inside Slack mrkdwn (a section's text, the top-level notification `text`), shown as it is and never as
 * markup: no mention (`<!channel>`, `<@U123>`), no link (`<https://evil|click>`), no bold, italic, strike or code.
 *
 * Slack documents one escape only: `&`, `<` and `>` as `&amp;`, `&lt;`, `&gt;`
 * (https://api.slack.com/reference/surfaces/formatting#escaping); that is what stops mentions and links, which all
 * start with `<`. mrkdwn has no escape for its formatting characters (a backslash shows as a backslash), so, as Slack
 * tooling does for untrusted text (jsx-slack's <Escape>, github.com/yhatt/jsx-slack/blob/main/docs/
 * about-escape-and-exact-mode.md), each is replaced by the Unicode character that looks like it: `*` → `∗` (U+2217),
 * `_` → `ˍ` (U+02CD), `~` → `∼` (U+223C), `` ` `` → `ˋ` (U+02CB), and their full-width forms, which Slack also
 * formats, likewise. Zero-width spaces around them would not do: Slack reads one as a word boundary, so it formats
 * more, not less (jsx-slack's "exact mode" uses them to force formatting).
 * A `>` that starts a line quotes it even as `&gt;`, so it gets a soft hyphen (U+00AD, invisible) in front.
 * The text objects also set `verbatim: true` (slack.ts) so that Slack does not turn bare channel names or URLs into
 * links; plain_text objects need none of this and are used wherever Block Kit allows.
 */

import type { Escaping } from './channel-text.ts';

const REPLACE: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '*': '\u2217',
  '＊': '\uFE61',
  _: '\u02CD',
  '＿': '\u2E0F',
  '~': '\u223C',
  '～': '\u223C',
  '`': '\u02CB',
  '｀': '\u02CB',
};
const SPECIAL = /[&<>*＊_＿~～`｀]/g;
const QUOTE_AT_LINE_START = /(^|\n)(&gt;|＞)/g;

/** `text` for a mrkdwn text object: every character shows as itself (or as its look-alike), none is markup. */
export function escapeMrkdwn(text: string): string {
  return text.replace(SPECIAL, (c) => REPLACE[c]!).replace(QUOTE_AT_LINE_START, '$1\u00AD$2');
}

/** mrkdwn escaping for fitText: every `&` of escaped text opens an entity, which a cut must not split. */
export const MRKDWN: Escaping = {
  escape: escapeMrkdwn,
  unitEnd(escaped, end) {
    const amp = escaped.lastIndexOf('&', end - 1);
    return amp >= 0 && escaped.indexOf(';', amp) >= end ? amp : end;
  },
};
