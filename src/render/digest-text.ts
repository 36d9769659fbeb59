/**
 * The plain-text part of the digest, from the same DigestView as the HTML: title, week, banner, highlights, per
 * product the KPIs, chart headlines (their alt text) and tables as aligned columns, then the link and footer.
 */
import type { DigestView, KpiView, ProductView, TableView } from '../jobs/digest/view-model.ts';
import { TREND_ARROWS, trendWord } from './digest-model.ts';
import { safeUrl } from './templater.ts';

/** Plain-text mail readers are narrow; wider tables are listed row by row instead of as columns. */
const MAX_LINE = 78;
const GAP = '  ';

/** Length in code points, so "▲" or "é" count as one column. */
const width = (s: string) => [...s].length;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const pad = (s: string, w: number, align: 'left' | 'right') =>
  align === 'right' ? ' '.repeat(w - width(s)) + s : s + ' '.repeat(w - width(s));

/** The text with a rule as wide as its longest line under it. */
function underline(text: string, char: string): string {
  const w = Math.max(...text.split('\n').map(width));
  return `${text}\n${char.repeat(Math.min(w, MAX_LINE))}`;
}

function kpiLines(kpi: KpiView): string[] {
  const word = trendWord(kpi);
  const head = `${oneLine(kpi.label)}: ${oneLine(kpi.value)} ${TREND_ARROWS[kpi.trend]}${word ? ` ${word}` : ''}`;
  return kpi.delta ? [head, `  ${oneLine(kpi.delta)}`] : [head];
}

function tableText(table: TableView): string {
  const title = oneLine(table.title);
  if (table.rows.length === 0) return `${title}\n${oneLine(table.emptyText)}`;
  const columns = table.columns.map(oneLine);
  const rows = table.rows.map((row) => columns.map((_, i) => oneLine(row[i] ?? '')));
  const widths = columns.map((c, i) => Math.max(width(c), ...rows.map((r) => width(r[i]!))));
  const total = widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1);
  if (total > MAX_LINE) {
    // Too wide for columns: one block per row, "column: value".
    const blocks = rows.map((r) => r.map((cell, i) => `${i === 0 ? '-' : ' '} ${columns[i]}: ${cell}`).join('\n'));
    return `${title}\n${blocks.join('\n')}`;
  }
  const align = (i: number) => (table.align[i] === 'right' ? 'right' : 'left');
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i]!, align(i)))
      .join(GAP)
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join(GAP);
  return [title, line(columns), rule, ...rows.map(line)].join('\n');
}

function productText(product: ProductView): string {
  const heading = product.isTotal ? `${oneLine(product.name)} (summary of all products)` : oneLine(product.name);
  const parts = [underline(heading, '-')];
  if (product.kpis.length > 0) parts.push(product.kpis.flatMap(kpiLines).join('\n'));
  if (product.charts.length > 0) parts.push(product.charts.map((c) => `Chart: ${oneLine(c.alt)}`).join('\n'));
  parts.push(...product.tables.map(tableText));
  return parts.join('\n\n');
}

export function digestText(view: DigestView): string {
  const parts = [underline(`${oneLine(view.title)}\n${oneLine(view.weekLabel)}`, '=')];
  if (view.banner) parts.push(`!! ${oneLine(view.banner)}`);
  if (view.highlights.length > 0)
    parts.push(underline('What changed', '-') + '\n' + view.highlights.map((h) => `- ${oneLine(h)}`).join('\n'));
  parts.push(...view.products.map(productText));
  const link = view.viewInBrowserUrl === null ? '#' : safeUrl(view.viewInBrowserUrl);
  if (link !== '#') parts.push(`View in browser: ${link}`);
  parts.push(oneLine(view.footer));
  return `${parts.join('\n\n')}\n`;
}
