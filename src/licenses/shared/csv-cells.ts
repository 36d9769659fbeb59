/**
 * CSV cells that are safe to open in a spreadsheet, for every CSV the license jobs write (the registry snapshot,
 * the alerts' attachment, the sync's result file). Two rules, in this order:
 *
 * 1. Formula injection (OWASP "CSV injection"): a cell starting with `=`, `+`, `-`, `@`, a tab or a CR is read by
 *    Excel, LibreOffice and Google Sheets as a formula (`=HYPERLINK(…)` leaks data when clicked). Such a cell gets a
 *    leading `'`, which spreadsheets show as text. A cell that already starts with `'` gets one more, so the rule can
 *    be undone exactly (`neutralizedCellValue`): a program reading the file back gets the original text.
 * 2. RFC 4180 quoting: a cell holding `"`, `,`, CR or LF is wrapped in quotes with each `"` doubled (with
 *    `quoteAll`, every cell is: the sync's result file, whose free-text column should never look like anything
 *    else). Rows end with CRLF.
 */

/** Characters that make a spreadsheet read a cell as a formula, plus `'` itself (see rule 1). */
const FORMULA_START = /^[=+\-@\t\r']/;
const NEEDS_QUOTES = /[",\r\n]/;

/** The cell's text with rule 1 applied (no quoting). */
export const neutralizeCell = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);

/** The original text of a cell written by `neutralizeCell` (one leading `'` removed). */
export const neutralizedCellValue = (cell: string): string => (cell.startsWith("'") ? cell.slice(1) : cell);

export interface CsvOptions {
  /** Quote every cell, not only those RFC 4180 requires. */
  quoteAll?: boolean;
}

type CellValue = string | number | boolean | null | undefined;

/** One cell: neutralized, then quoted when RFC 4180 requires it (or always, with `quoteAll`). null is empty. */
export function csvCell(value: CellValue, opts: CsvOptions = {}): string {
  // Numbers and booleans are Pulse's own (counts, line numbers): never neutralized (a negative number is no formula).
  const text =
    value === null || value === undefined ? '' : typeof value === 'string' ? neutralizeCell(value) : String(value);
  return opts.quoteAll || NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One row, CRLF-terminated. */
export const csvRow = (cells: readonly CellValue[], opts: CsvOptions = {}): string =>
  `${cells.map((c) => csvCell(c, opts)).join(',')}\r\n`;
