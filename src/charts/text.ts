/**
 * Text for the SVG: labels cleaned of what must not reach the renderer, escaped for XML, measured with the font's
 * advances and truncated with "…"; numbers in fixed en-US formats so the output never depends on the host locale.
 */
import { textWidth } from './fonts.ts';
import type { ValueFormat } from './spec.ts';

/**
 * C0/C1 controls and DEL, the bidi embeddings/overrides (U+202A–U+202E) and isolates (U+2066–U+2069) that could
 * reorder the rest of a label or the chart, and the XML non-characters U+FFFE/U+FFFF. RTL text itself stays:
 * the renderer applies the Unicode bidi algorithm.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const UNWANTED = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/g;

/**
 * A label as it will be drawn: unwanted characters removed, lone surrogates replaced, whitespace collapsed and
 * trimmed (what SVG's default xml:space does anyway, so that measuring sees the drawn text).
 */
export function cleanLabel(label: string): string {
  return label
    .toWellFormed()
    .replace(UNWANTED, '')
    .replace(/[\t\n\r ]+/g, ' ')
    .trim();
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
export const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

const ELLIPSIS = '…';
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** `text` (already clean) cut at a grapheme boundary with "…" so it is at most `maxWidth` px wide at `size`. */
export function truncate(text: string, maxWidth: number, size: number, bold = false): string {
  if (textWidth(text, size, bold) <= maxWidth) return text;
  const parts = Array.from(graphemes.segment(text), (s) => s.segment);
  const ellipsis = textWidth(ELLIPSIS, size, bold);
  let width = 0;
  let keep = 0;
  for (const part of parts) {
    const w = textWidth(part, size, bold);
    if (width + w + ellipsis > maxWidth) break;
    width += w;
    keep++;
  }
  const head = parts.slice(0, keep).join('').trimEnd();
  return head === '' && ellipsis > maxWidth ? '' : head + ELLIPSIS;
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
const PERCENT_LABEL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const tickFormats = new Map<number, Intl.NumberFormat>();
/** -0 and values that round to zero print as "0", never "-0". */
const unsigned0 = (s: string) => (/^-0(\.0+)?%?$/.test(s) ? s.slice(1) : s);

/** A data label: "1,204", "2.5"; "61.0%". */
export function formatValue(value: number, format: ValueFormat = 'count'): string {
  return unsigned0(format === 'percent' ? `${PERCENT_LABEL.format(value)}%` : COUNT.format(value));
}

/** A tick label with as many decimals as the tick step needs: "1,500", "60%", "2.5%". */
export function formatTick(value: number, step: number, format: ValueFormat = 'count'): string {
  const decimals = Math.min(3, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
  let f = tickFormats.get(decimals);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    tickFormats.set(decimals, f);
  }
  return unsigned0(f.format(value) + (format === 'percent' ? '%' : ''));
}
