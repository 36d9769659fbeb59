/**
 * The console's HTML: a tagged template that escapes every interpolated value (text from the work directory is
 * never markup: a product name, subject, license key or object key shows as text), and the one page layout with its
 * inline style sheet (no external assets, no scripts). Readable at 375 px and wider: tables scroll inside their own
 * box instead of widening the page.
 */
import { escapeHtml } from '../core/render/templater.ts';

/** Markup built by `html`: the only thing interpolated unescaped. */
export class SafeHtml {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** `html\`<td>${text}</td>\``: strings, numbers and arrays are escaped; SafeHtml (another `html`) is kept. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** A console link: the path is built from escaped, percent-encoded parts. */
export const pathOf = (...parts: string[]): string => `/${parts.map(encodeURIComponent).join('/')}`;

/** `2026-11-27T06:36:21.231Z` → `2026-11-27 06:36:21 UTC`; anything else as given. */
export function when(iso: string | undefined): SafeHtml {
  if (!iso) return html`<span class="muted">—</span>`;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m ? html`<time datetime="${iso}">${m[1]} ${m[2]} UTC</time>` : html`${iso}`;
}

export interface PageOptions {
  title: string;
  /** Which section of the navigation is current. */
  section: 'overview' | 'outbox' | 'archive' | 'ledger' | 'licenses';
  workDir: string;
  /** Shown above the content: a run holding the work directory, a part that could not be read. */
  notices?: SafeHtml[];
  body: SafeHtml;
}

const NAV: [PageOptions['section'], string, string][] = [
  ['overview', '/', 'Overview'],
  ['outbox', '/outbox', 'Outbox'],
  ['archive', '/archive', 'Archive'],
  ['ledger', '/ledger', 'Ledger'],
  ['licenses', '/licenses', 'License alerts'],
];

export function page(p: PageOptions): string {
  const nav = NAV.map(
    ([id, href, label]) =>
      html`<li><a href="${href}"${id === p.section ? new SafeHtml(' aria-current="page"') : ''}>${label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · Pulse console</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<header class="top">
<p class="brand"><a href="/">Pulse console</a> <span class="muted">read-only view of <code>${p.workDir}</code></span></p>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
</header>
<main>
<h1>${p.title}</h1>
${p.notices ?? []}
${p.body}
</main>
</body>
</html>
`.text;
}

export const notice = (kind: 'info' | 'warn' | 'error', body: SafeHtml): SafeHtml =>
  html`<div class="notice ${kind}" role="${kind === 'info' ? 'status' : 'alert'}">${body}</div>`;

/** A table cell: its content and, for numbers and hashes, a class. */
export interface Cell {
  content: Value;
  className: 'num' | 'hash' | 'nowrap';
}
export const cell = (content: Value, className: Cell['className']): Cell => ({ content, className });

/**
 * A table that scrolls sideways inside its own box; `stack` (the default) turns each row into a block of labelled
 * lines on a narrow screen, each cell labelled with its column's heading.
 */
export function table(
  caption: string,
  head: string[],
  rows: (Value | Cell)[][],
  opts: { stack?: boolean; compact?: boolean } = {},
): SafeHtml {
  const td = (c: Value | Cell, i: number) => {
    const isCell = typeof c === 'object' && c !== null && !(c instanceof SafeHtml) && !Array.isArray(c);
    const { content, className } = isCell ? (c as Cell) : { content: c as Value, className: undefined };
    return html`<td data-label="${head[i] ?? ''}"${className ? new SafeHtml(` class="${className}"`) : ''}><div>${content}</div></td>`;
  };
  return html`<div class="scroll" role="region" aria-label="${caption}" tabindex="0"><table class="${opts.stack === false ? '' : 'stack'}${opts.compact ? ' compact' : ''}">
<caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map(td)}</tr>`)}</tbody>
</table></div>`;
}

const BAD_STATES = new Set(['unknown', 'failed', 'missing', 'rejected']);

/** Rows per page of a long table: a local run's ledger holds hundreds of license alerts. */
export const PAGE_SIZE = 100;

/** The rows of page `n` (1-based, clamped) and the links to the pages around it. */
export function paged<T>(rows: T[], n: number, pathOf: (page: number) => string): { rows: T[]; nav: SafeHtml } {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const current = Math.min(Math.max(1, Number.isInteger(n) ? n : 1), pages);
  const first = (current - 1) * PAGE_SIZE;
  const shown = rows.slice(first, first + PAGE_SIZE);
  if (pages === 1) return { rows: shown, nav: html`` };
  const link = (page: number, label: string, rel: string) => html`<a href="${pathOf(page)}" rel="${rel}">${label}</a>`;
  const nav = html`<nav class="pager" aria-label="Pages"><p>Rows ${first + 1}–${first + shown.length} of ${rows.length}
${current > 1 ? link(current - 1, '← previous page', 'prev') : ''}
${current < pages ? link(current + 1, 'next page →', 'next') : ''}</p></nav>`;
  return { rows: shown, nav };
}

/** A state as a labelled badge; the text carries the meaning, the colour only repeats it. */
export const badge = (state: string): SafeHtml => {
  const tone = BAD_STATES.has(state) ? 'bad' : state === 'in-progress' ? 'warn' : 'good';
  return html`<span class="badge ${tone}">${state}</span>`;
};

// Colours chosen for WCAG AA contrast on their backgrounds (checked by the console's axe test).
const STYLE = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --soft: #f6f8fa;
  --link: #0550ae; --good: #116329; --good-bg: #dafbe1; --warn: #7d4e00; --warn-bg: #fff8c5; --bad: #a40e26;
  --bad-bg: #ffebe9; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); }
a { color: var(--link); }
a:focus-visible, [tabindex]:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.875em;
  overflow-wrap: anywhere; }
.top { border-bottom: 1px solid var(--line); background: var(--soft); padding: 0.5rem 1rem; }
.brand { margin: 0; }
.brand a { font-weight: 700; color: var(--fg); text-decoration: none; }
.brand .muted { display: block; font-size: 0.875rem; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0.5rem 0 0; padding: 0; }
nav a { display: inline-block; padding: 0.25rem 0; }
nav a[aria-current="page"] { font-weight: 700; color: var(--fg); text-decoration-thickness: 3px; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.35rem; margin: 0.5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; overflow-wrap: anywhere; }
h3 { font-size: 1rem; margin: 1rem 0 0.5rem; }
.muted { color: var(--muted); }
.hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.notice { border: 1px solid var(--line); border-left-width: 6px; padding: 0.5rem 0.75rem; margin: 0 0 1rem;
  border-radius: 4px; }
.notice.info { border-left-color: var(--link); background: var(--soft); }
.notice.warn { border-left-color: var(--warn); background: var(--warn-bg); }
.notice.error { border-left-color: var(--bad); background: var(--bad-bg); }
.notice p { margin: 0.25rem 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(18rem, 100%), 1fr)); gap: 0.75rem; margin: 0;
  padding: 0; list-style: none; }
.cards li { border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem; overflow-wrap: anywhere; }
.cards h2 { margin: 0 0 0.25rem; font-size: 1.05rem; }
.cards p { margin: 0.25rem 0; }
.scroll { position: relative; overflow-x: auto; margin: 0 0 1rem; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding: 0.5rem 0.75rem; }
th, td { text-align: left; vertical-align: top; padding: 0.4rem 0.75rem; border-top: 1px solid var(--line); }
th { background: var(--soft); white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.nowrap, .nowrap { white-space: nowrap; }
td.hash { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.8rem; word-break: break-all;
  min-width: 12rem; }
.badge { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85rem; font-weight: 600;
  white-space: nowrap; }
.badge.good { color: var(--good); background: var(--good-bg); }
.badge.warn { color: var(--warn); background: var(--warn-bg); }
.badge.bad { color: var(--bad); background: var(--bad-bg); }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.25rem 1rem; margin: 0 0 1rem; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; overflow-wrap: anywhere; }
iframe.message { display: block; width: 100%; height: 80vh; border: 1px solid var(--line); border-radius: 6px;
  background: #fff; }
ul.plain { padding-left: 1.25rem; }
.filters { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 1rem; margin: 0 0 0.5rem; }
.filters p { margin: 0; font-weight: 600; }
.filters ul { margin: 0; }
.pager p { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; margin: 0.5rem 0; }
@media (max-width: 40rem) {
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.stack, table.stack tbody, table.stack tr { display: block; }
  table.stack caption { display: block; }
  table.stack tr { border-top: 1px solid var(--line); padding: 0.35rem 0; }
  table.stack td { display: grid; grid-template-columns: 6.5rem minmax(0, 1fr); gap: 0.5rem; border: 0;
    padding: 0.15rem 0.75rem; text-align: left; white-space: normal; }
  table.stack td::before { content: attr(data-label); font-weight: 600; color: var(--muted); }
  table.stack td.hash { min-width: 0; }
  table.stack td.num > div { text-align: left; }
  table.stack td:has(> div:empty) { display: none; }
  table.compact { font-size: 0.8rem; }
  table.compact th, table.compact td { padding: 0.3rem 0.4rem; }
  table.compact .badge { padding: 0 0.35rem; }
}
@media (max-width: 30rem) {
  main { padding: 0.75rem; }
  th, td { padding: 0.35rem 0.5rem; }
}
`;
