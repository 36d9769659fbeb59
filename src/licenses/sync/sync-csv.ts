/**
 * The license sync's input file (docs/licenses.md "License registry sync"): a CSV with a header row naming some of
 * SYNC_COLUMNS (`licenseKey` required, the others optional, any order), read as a stream through the shared strict
 * reader (../../core/strict-csv.ts). Every data row becomes either the update it asks for or the reasons it is invalid,
 * each naming the field:
 * - a blank cell leaves that field unchanged; `none` clears `expiryDate` or `quota` (null in the registry);
 * - flags are `true` / `false` (any case, as spreadsheets write them), dates real `YYYY-MM-DD` days, quotas whole
 *   numbers ≥ 0, keys and types 1–256 characters (as the service counts them: UTF-16 code units);
 * - a key that appears again is invalid on its later line, naming the first (which is applied if it is valid):
 *   two rows for one key would otherwise race in concurrent batches, and the file would say two things.
 * What makes the file unreadable — the header (unknown, repeated or missing columns), quoting, a row with the wrong
 * number of cells, invalid UTF-8 — is a SyncCsvError naming the line: it ends the reading there.
 */
import type { LicenseKeyUpdate } from '../../client/index.ts';
import { StrictCsvReader } from '../../core/strict-csv.ts';

export const SYNC_COLUMNS = [
  'licenseKey',
  'licenseType',
  'activated',
  'allowed',
  'blocked',
  'expired',
  'expiryDate',
  'quota',
] as const;
type Column = (typeof SYNC_COLUMNS)[number];
const FLAGS = ['activated', 'allowed', 'blocked', 'expired'] as const;

/** The cell that clears `expiryDate` or `quota`. */
export const CLEAR = 'none';
export const MAX_TEXT = 256;

/** A data row: the update it asks for (only the fields it sets), or why it is invalid. */
export type SyncRow =
  | { line: number; key: string; update: LicenseKeyUpdate }
  | { line: number; key: string; problems: string[] };

export class SyncCsvError extends Error {
  override name = 'SyncCsvError';
  readonly line: number;

  constructor(message: string, line: number) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const WHOLE = /^\d+$/;

/** A real calendar day written `YYYY-MM-DD` (2026-02-30 is not). */
export function isRealDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** Feed it the file's bytes chunk by chunk; `push` and `end` return the rows completed by then, in file order. */
export class SyncCsvReader extends StrictCsvReader {
  /** The column of each cell position. */
  #columns: Column[] = [];
  /** Line of each key's first row: a repeat is refused with it. */
  readonly #seen = new Map<string, number>();
  #rows: SyncRow[] = [];

  /** Set once the file turned out malformed: the rows before it were returned, nothing after it is read. */
  failure: SyncCsvError | undefined;

  push(bytes: Uint8Array): SyncRow[] {
    return this.#read(() => this.feed(bytes));
  }

  end(): SyncRow[] {
    return this.#read(() => this.finish());
  }

  #read(step: () => void): SyncRow[] {
    if (this.failure) return [];
    try {
      step();
    } catch (e) {
      if (!(e instanceof SyncCsvError)) throw e;
      this.failure = e;
    }
    return this.#take();
  }

  #take(): SyncRow[] {
    const rows = this.#rows;
    this.#rows = [];
    return rows;
  }

  protected override error(message: string, line: number): Error {
    return new SyncCsvError(message, line);
  }

  protected override header(names: string[], line: number): void {
    const known = new Set<string>(SYNC_COLUMNS);
    const unknown = names.filter((n) => !known.has(n));
    const repeated = names.filter((n, i) => names.indexOf(n) !== i);
    const problems: string[] = [];
    if (unknown.length > 0)
      problems.push(`unknown ${unknown.length === 1 ? 'column' : 'columns'} ${unknown.map(quote).join(', ')}`);
    if (repeated.length > 0) problems.push(`repeated ${[...new Set(repeated)].map(quote).join(', ')}`);
    if (!names.includes('licenseKey')) problems.push('no "licenseKey" column');
    if (problems.length > 0)
      throw new SyncCsvError(`header: ${problems.join('; ')} (columns: ${SYNC_COLUMNS.join(', ')})`, line);
    this.#columns = names as Column[];
  }

  protected override row(cells: readonly string[], line: number): void {
    const problems: string[] = [];
    const update: LicenseKeyUpdate = { licenseKey: '' };
    let key = '';
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[k]!;
      const column = this.#columns[k]!;
      if (column === 'licenseKey') {
        key = cell;
        update.licenseKey = cell;
        if (cell === '') problems.push('licenseKey: required');
        else if (cell.length > MAX_TEXT) problems.push(`licenseKey: longer than ${MAX_TEXT} characters`);
        continue;
      }
      if (cell === '') continue; // left unchanged
      const problem = setField(update, column, cell);
      if (problem) problems.push(`${column}: ${problem}`);
    }
    if (key !== '') {
      const first = this.#seen.get(key);
      if (first === undefined) this.#seen.set(key, line);
      else problems.push(`licenseKey: repeated, first on line ${first}`);
    }
    this.#rows.push(problems.length > 0 ? { line, key, problems } : { line, key, update });
  }
}

/** Sets `column` from a non-blank cell; the problem if the cell is not a valid value. */
function setField(update: LicenseKeyUpdate, column: Exclude<Column, 'licenseKey'>, cell: string): string | undefined {
  switch (column) {
    case 'licenseType':
      if (cell.length > MAX_TEXT) return `longer than ${MAX_TEXT} characters`;
      update.licenseType = cell;
      return undefined;
    case 'expiryDate':
      if (cell === CLEAR) update.expiryDate = null;
      else if (isRealDate(cell)) update.expiryDate = cell;
      else return `${quote(cell)} is not a date (YYYY-MM-DD) or "${CLEAR}"`;
      return undefined;
    case 'quota':
      if (cell === CLEAR) update.quota = null;
      else if (WHOLE.test(cell) && Number.isSafeInteger(Number(cell))) update.quota = Number(cell);
      else return `${quote(cell)} is not a whole number ≥ 0 or "${CLEAR}"`;
      return undefined;
    default: {
      const flag = cell.toLowerCase();
      if (flag !== 'true' && flag !== 'false') return `${quote(cell)} is not true or false`;
      update.licenseStatus = { ...update.licenseStatus, [column satisfies (typeof FLAGS)[number]]: flag === 'true' };
      return undefined;
    }
  }
}

/** A value quoted for a message, cut so that a huge cell cannot flood the result file. */
const quote = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);
