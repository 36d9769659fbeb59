/**
 * The one strict, streaming RFC 4180 reader of Pulse, shared by the client export's CSV (src/archive/client-csv.ts) and
 * the license sync's input (src/licenses/sync/sync-csv.ts). A subclass says what a header and a row mean; this class
 * cuts rows out of the decoded text with `indexOf` (a row without quotes, the usual one, costs a few `indexOf` calls)
 * and hands each complete row on once, with the line it starts on.
 *
 * Lenient where RFC 4180 practice varies (LF line ends, a leading UTF-8 BOM, no line end after the last row); strict
 * about everything that would change the data — quoting errors, a row with the wrong number of cells, invalid UTF-8,
 * a row longer than MAX_ROW_CHARS — each an error (the subclass's `error`) naming the line.
 */

/**
 * A row still incomplete at this length is malformed (an unterminated quote would otherwise make the rest of the
 * file one row, held in memory and scanned again with every chunk).
 */
export const MAX_ROW_CHARS = 1024 * 1024;

const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;

export abstract class StrictCsvReader {
  /** Decodes across chunk boundaries; drops a leading BOM. */
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  /** Text of a row not yet complete: its line end or closing quote has not arrived. */
  #carry = '';
  /** Line number of the row being parsed. */
  #line = 1;
  /** Cells per row, once the header is read (0 before). */
  #columns = 0;
  /** The cells of the row being parsed, reused from row to row. */
  readonly #cells: string[] = [];
  /** Index after the row parsed last. */
  #rowEnd = 0;
  /** Where the next `"` and the next CR are in the text being parsed: each found once, not searched per row. */
  #nextQuote = -1;
  #nextCr = -1;

  /** The error for a malformed file at `line`. */
  protected abstract error(message: string, line: number): Error;
  /** The header row's names; throw (with `error`) to refuse them. */
  protected abstract header(names: string[], line: number): void;
  /** A complete data row; `cells` is reused once this returns. */
  protected abstract row(cells: readonly string[], line: number): void;

  /** Line number of the next row to be read. */
  protected get line(): number {
    return this.#line;
  }

  /** Reads the complete rows `bytes` finish. */
  protected feed(bytes: Uint8Array): void {
    this.#parse(this.#carry + this.#decode(bytes, true), false);
  }

  /** The rest, once the file has ended; throws if it ends inside a quoted cell or has no header. */
  protected finish(): void {
    let text = this.#carry + this.#decode(new Uint8Array(0), false);
    // The last row may come without a line end.
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    this.#parse(text, true);
    if (this.#columns === 0) throw this.error('no header row', this.#line);
  }

  #decode(bytes: Uint8Array, stream: boolean): string {
    try {
      return this.#decoder.decode(bytes, { stream });
    } catch {
      throw this.error('not valid UTF-8', this.#line);
    }
  }

  /** Hands on every complete row of `text` and keeps the incomplete rest for the next chunk. */
  #parse(text: string, final: boolean): void {
    let pos = this.#columns === 0 ? this.#header(text) : 0;
    if (pos < 0) {
      this.#keep(text, 0);
      return;
    }
    this.#nextQuote = text.indexOf('"', pos);
    this.#nextCr = text.indexOf('\r', pos);
    while (pos < text.length) {
      const line = this.#line;
      if (!this.#row(text, pos)) break;
      pos = this.#rowEnd;
      this.row(this.#cells, line);
    }
    if (final && pos < text.length) throw this.error('unterminated quoted cell', this.#line);
    this.#keep(text, pos);
  }

  /** Keeps the text from `pos` on (an incomplete row) for the next chunk. */
  #keep(text: string, pos: number): void {
    if (text.length - pos > MAX_ROW_CHARS)
      throw this.error(`a row longer than ${MAX_ROW_CHARS} characters`, this.#line);
    this.#carry = pos === 0 ? text : text.slice(pos);
  }

  /** Reads the row at `pos` into `#cells`; false if the row is not complete in `text` yet. */
  #row(text: string, pos: number): boolean {
    const lf = text.indexOf('\n', pos);
    if (lf < 0) return false;
    if (this.#nextQuote >= 0 && this.#nextQuote < pos) this.#nextQuote = text.indexOf('"', pos);
    if (this.#nextQuote < 0 || this.#nextQuote > lf) {
      this.#plainRow(text, pos, lf);
      return true;
    }
    return this.#quotedRow(text, pos);
  }

  /** A row without quotes (the usual one): its cells lie between commas. */
  #plainRow(text: string, pos: number, lf: number): void {
    const end = lf > pos && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
    if (this.#nextCr >= 0 && this.#nextCr < pos) this.#nextCr = text.indexOf('\r', pos);
    if (this.#nextCr >= 0 && this.#nextCr < end) throw this.error('CR inside an unquoted cell', this.#line);
    const cells = this.#cells;
    const last = this.#columns - 1;
    let at = pos;
    for (let k = 0; k < last; k++) {
      const comma = text.indexOf(',', at);
      if (comma < 0 || comma > end) throw this.#cellCount();
      cells[k] = text.slice(at, comma);
      at = comma + 1;
    }
    const comma = text.indexOf(',', at);
    if (comma >= 0 && comma < end) throw this.#cellCount();
    cells[last] = text.slice(at, end);
    this.#rowEnd = lf + 1;
    this.#line++;
  }

  /** A row with a quote: cell by cell, each plain or quoted (`""` inside a quoted cell is `"`; it may span lines). */
  #quotedRow(text: string, pos: number): boolean {
    const cells = this.#cells;
    const last = this.#columns - 1;
    let at = pos;
    for (let k = 0; ; k++) {
      let cell: string;
      let after: number;
      if (text.charCodeAt(at) === QUOTE) {
        const closed = quotedCell(text, at + 1);
        if (closed === undefined) return false;
        cell = closed.cell;
        after = closed.after;
        const c = text.charCodeAt(after);
        if (c !== COMMA && c !== CR && c !== LF) throw this.error('a character after a closing quote', this.#line);
      } else {
        after = at;
        for (let c = text.charCodeAt(after); c !== COMMA && c !== CR && c !== LF; c = text.charCodeAt(after)) {
          if (c === QUOTE) throw this.error('a quote inside an unquoted cell', this.#line);
          if (++after >= text.length) return false;
        }
        cell = text.slice(at, after);
      }
      const sep = text.charCodeAt(after);
      if (sep === COMMA) {
        if (k === last) throw this.#cellCount();
        cells[k] = cell;
        at = after + 1;
        continue;
      }
      if (sep === CR) {
        if (after + 1 >= text.length) return false;
        if (text.charCodeAt(after + 1) !== LF) throw this.error('CR inside an unquoted cell', this.#line);
      }
      if (k !== last) throw this.#cellCount();
      cells[k] = cell;
      this.#rowEnd = after + (sep === CR ? 2 : 1);
      this.#line += countLineEnds(text, pos, this.#rowEnd);
      return true;
    }
  }

  #cellCount(): Error {
    return this.error(`a row must have ${this.#columns} cells, as the header has`, this.#line);
  }

  /** Reads the header row at the start of `text`; returns the index after it, or -1 if it is incomplete. */
  #header(text: string): number {
    const lf = text.indexOf('\n');
    if (lf < 0) return -1;
    const names = this.#headerNames(text.slice(0, lf > 0 && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf));
    this.header(names, this.#line);
    this.#columns = names.length;
    this.#cells.length = names.length;
    this.#line++;
    return lf + 1;
  }

  /** The cells of the header row (without its line end); names are plain, but a quoted one is read as RFC 4180 says. */
  #headerNames(row: string): string[] {
    const names: string[] = [];
    let at = 0;
    for (;;) {
      if (row.charCodeAt(at) === QUOTE) {
        const closed = quotedCell(`${row},`, at + 1);
        if (closed === undefined || closed.after > row.length)
          throw this.error('unterminated quoted cell in the header', this.#line);
        names.push(closed.cell);
        at = closed.after;
      } else {
        const comma = row.indexOf(',', at);
        const stop = comma < 0 ? row.length : comma;
        names.push(row.slice(at, stop));
        at = stop;
      }
      if (at >= row.length) return names;
      if (row.charCodeAt(at) !== COMMA) throw this.error('a character after a closing quote', this.#line);
      at++;
    }
  }
}

/**
 * The quoted cell whose text starts at `from` (after its opening quote) and the index after its closing quote, or
 * undefined when `text` does not yet show where it ends.
 */
function quotedCell(text: string, from: number): { cell: string; after: number } | undefined {
  let cell = '';
  let at = from;
  for (;;) {
    const q = text.indexOf('"', at);
    if (q < 0 || q + 1 >= text.length) return undefined;
    if (text.charCodeAt(q + 1) !== QUOTE) return { cell: cell + text.slice(at, q), after: q + 1 };
    cell += text.slice(at, q + 1);
    at = q + 2;
  }
}

function countLineEnds(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
