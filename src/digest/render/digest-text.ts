/**
 * The plain-text part of the digest, from the same model as the HTML, so it carries the same figures: title, week,
 * banner, the "what changed" sentences, the headline figures of every product, then per product its lead sentence,
 * KPIs, the numbers behind its charts (their alt text), its top exception and the link to its section of the full
 * report; then the report link and the footer.
 */

import { safeUrl } from '../../core/render/templater.ts';
import type { DigestModel } from './digest-model.ts';

const MAX_RULE = 78;

/** Length in code points, so "▲" or "é" count as one column. */
const width = (s: string) => [...s].length;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The text with a rule as wide as its longest line under it. */
function underline(text: string, char: string): string {
  const w = Math.max(...text.split('\n').map(width));
  return `${text}\n${char.repeat(Math.min(w, MAX_RULE))}`;
}

type Trend = { arrow: string; trendWord: string };
const trend = (t: Trend) => [t.arrow, t.trendWord].filter(Boolean).join(' ');

function headlineText(model: DigestModel): string {
  const { columns, rows } = model.headline;
  const lines = rows.map((row) => {
    const cells = row.cells.map((c, i) =>
      c.change === ''
        ? `${columns[i]} ${c.value}`
        : `${columns[i]} ${c.value} (${c.change}${c.trendWord ? `, ${c.trendWord}` : ''})`,
    );
    return `- ${oneLine(row.name)}: ${cells.join(' · ')}`;
  });
  return `${underline('This week', '-')}\n${lines.join('\n')}`;
}

function productText(product: DigestModel['products'][number]): string {
  const parts = [underline(oneLine(product.name), '-')];
  if (product.notable) parts.push(oneLine(product.notable));
  if (product.kpis.length > 0)
    parts.push(
      product.kpis
        .map(
          (k) =>
            `${oneLine(k.label)}: ${oneLine(k.value)} ${trend(k)}`.trimEnd() +
            k.deltas.map((d) => `\n  ${oneLine(d)}`).join(''),
        )
        .join('\n'),
    );
  if (product.charts.length > 0) parts.push(product.charts.map((c) => `Chart: ${oneLine(c.alt)}`).join('\n'));
  if (product.topException) parts.push(`Top exception: ${oneLine(product.topException)}`);
  if (product.link) parts.push(`Full report: ${product.link}`);
  return parts.join('\n\n');
}

/** From the model the HTML is filled with, so both parts show the same figures. */
export function digestText(model: DigestModel): string {
  const parts = [underline(`${oneLine(model.title)}\n${oneLine(model.weekLabel)}`, '=')];
  if (model.banner) parts.push(`!! ${oneLine(model.banner)}`);
  if (model.highlights.length > 0) {
    const more = model.moreHighlights && model.viewInBrowserUrl ? `\n(${model.moreHighlights})` : '';
    parts.push(
      `${underline('What changed', '-')}\n${model.highlights.map((h) => `- ${oneLine(h)}`).join('\n')}${more}`,
    );
  }
  if (model.headline.rows.length > 0) parts.push(headlineText(model));
  parts.push(...model.products.map(productText));
  const link = model.viewInBrowserUrl === null ? '#' : safeUrl(model.viewInBrowserUrl);
  if (link !== '#') parts.push(`Full report in your browser: ${link}`);
  parts.push(oneLine(model.footer));
  return `${parts.join('\n\n')}\n`;
}
