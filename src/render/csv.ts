/**
 * CSV for people who open it in a spreadsheet: RFC 4180 quoting (a cell with a comma, quote, CR or LF is quoted,
 * quotes doubled; CRLF line ends) and formula-injection neutralization — a text cell starting with `=`, `+`, `-`,
 * `@`, tab or CR would be run as a formula by Excel or Sheets, so it gets a leading `'`. Numbers are written as
 * numbers (a negative number is data, not a formula).
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (cells: (string | number | null)[]): string => `${cells.map(csvCell).join(',')}\r\n`;
