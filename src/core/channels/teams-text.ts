/**
 * Service text inside an Adaptive Card's markdown (TextBlock text, FactSet titles and values), shown as it is: a
 * product called `**x** [a](https://evil)` must not turn bold or into a link, `<at>x</at>` must not mention, `&lt;`
 * must not become `<`. Teams renders a markdown subset (bold, italic, bulleted and numbered lists, links) and honours
 * CommonMark's backslash escapes, so each character that can open markup gets a backslash: the inline ones (`\`, `*`,
 * `_`, `` ` ``, `~`, `[`, `]`, `<`, `>`, `&`) everywhere, and `{` too, which also breaks the `{{DATE(…)}}` functions
 * Adaptive Cards substitute. Characters that are markup only at the start of a line (`#` heading, `-` `+` bullets,
 * `=` setext underline, `1.` `1)` numbered items) are escaped there only, so "1.5" and "e-mail" stay as they are.
 */

import type { Escaping } from './channel-text.ts';

const INLINE = /[\\*_`~[\]<>&{}]/g;
const BLOCK_START = /(^|\n)([ \t]*)([#+=-])/g;
const NUMBERED_START = /(^|\n)([ \t]*\d+)([.)])(?=[ \t\n]|$)/g;

/** `text` for an Adaptive Card's markdown: every character shows as itself. */
export function escapeCardMarkdown(text: string): string {
  return text.replace(INLINE, '\\$&').replace(BLOCK_START, '$1$2\\$3').replace(NUMBERED_START, '$1$2\\$3');
}

/** Card markdown escaping for fitText: every backslash of escaped text opens a pair, which a cut must not split. */
export const CARD_MARKDOWN: Escaping = {
  escape: escapeCardMarkdown,
  unitEnd(escaped, end) {
    let start = end;
    while (start > 0 && escaped[start - 1] === '\\') start--;
    return (end - start) % 2 === 1 ? end - 1 : end;
  },
};
