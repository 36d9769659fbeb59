/**
 * CSV cells Pulse writes for people to open in a spreadsheet (the license sync's result file; the registry snapshot
 * may share it). Registry text (keys, types, service messages) is not Pulse's: a cell starting with `=`, `+`, `-`,
 * `@`, a tab or a CR is taken as a formula by Excel, LibreOffice and Google Sheets, so such a cell gets a leading `'`
 * (OWASP "CSV injection"). Every cell is quoted (RFC 4180: `"` doubled), so commas and line breaks stay in it.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

/** `text` as one quoted cell, neutralised if a spreadsheet would read it as a formula. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '""';
  // Numbers are Pulse's own (line numbers, counts): written as they are, never neutralised.
  if (typeof value === 'number') return `"${value}"`;
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

/** One CSV line (CRLF-terminated, as RFC 4180 says) of `cells`. */
export function csvLine(cells: (string | number | null)[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? '' : ',') + csvCell(cells[i]!);
  return `${line}\r\n`;
}
