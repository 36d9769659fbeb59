/**
 * The client export's CSV ([31], api-shapes §12: RFC 4180 quoting, CRLF line ends) turned into NDJSON: one object
 * per client with the members and values the client property list [30] sends. The header names the members; each
 * column's kind says how its text becomes a JSON value, since the CSV carries text only (`8192` is a number for
 * `ram`, while `3.1` stays a string for `prodVersion`). A `<NULL>` cell is the string `"<NULL>"` in every column, as
 * in [30]. Text is never interpreted beyond that: HTML or JSON-looking values in a string column stay strings.
 *
 * Built for a million rows in flat memory: rows are cut out of the decoded text with `indexOf`, each row's line is
 * concatenated from its cells' JSON without row objects or arrays, and written into the output buffer at once, so
 * what survives a row is bytes outside the JS heap rather than a tree of small strings for the collector to copy.
 *
 * Lenient where the spec leaves room (open point 17: LF line ends, a leading BOM, no line end after the last row);
 * strict about everything that would change the data — quoting errors, a row with the wrong number of cells, a
 * value that does not fit its column's kind, invalid UTF-8, a header that is not `clientId` plus the requested
 * properties, a row longer than MAX_ROW_CHARS — each a ClientCsvError naming the line.
 */

import { NULL_VALUE } from '../../client/index.ts';

/** How a column's text becomes a JSON value: a string, a JSON number, `true`/`false`, or a list (JSON text). */
export type ColumnKind = 'string' | 'number' | 'boolean' | 'list';

export class ClientCsvError extends Error {
  override name = 'ClientCsvError';
  readonly line: number;

  constructor(message: string, line: number) {
    super(`client export CSV, line ${line}: ${message}`);
    this.line = line;
  }
}

/**
 * A row still incomplete at this length is malformed (an unterminated quote would otherwise make the rest of the
 * export one row, held in memory and scanned again with every chunk).
 */
export const MAX_ROW_CHARS = 1024 * 1024;

const NULL_JSON = JSON.stringify(NULL_VALUE);
/** RFC 8259 number grammar: such a cell is copied as is, so the number is exactly the one the service wrote. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;

export interface ClientCsvOptions {
  /** The properties requested, in any order: the header must be `clientId` and then each of them once. */
  properties: readonly string[];
  /** The kind of a property's values; `clientId` is always a string. */
  kindOf(property: string): ColumnKind;
}

/** Feed it the CSV's bytes chunk by chunk; `push` and `end` return the NDJSON of the rows completed by then. */
export class ClientCsvToNdjson {
  readonly #options: ClientCsvOptions;
  /** Decodes across chunk boundaries; drops a leading BOM. */
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  /** Text of a row not yet complete: its line end or closing quote has not arrived. */
  #carry = '';
  /** Line number of the row being parsed. */
  #line = 1;
  /** Per column, once the header is read: its name, `{"clientId":` or `,"name":`, and its kind. */
  #names: string[] = [];
  #prefixes: string[] = [];
  #kinds: ColumnKind[] = [];
  #rows = 0;
  /** Index after the row `#row` parsed last. */
  #rowEnd = 0;
  /** Where the next `"` and the next CR are in the text being parsed: each found once, not searched per row. */
  #nextQuote = -1;
  #nextCr = -1;

  constructor(options: ClientCsvOptions) {
    this.#options = options;
  }

  /** Data rows converted so far: one per client. */
  get rows(): number {
    return this.#rows;
  }

  push(bytes: Uint8Array): Buffer {
    return this.#parse(this.#carry + this.#decode(bytes, true), false);
  }

  /** The rest, once the CSV has ended; throws if it ends inside a quoted cell or has no header. */
  end(): Buffer {
    let text = this.#carry + this.#decode(new Uint8Array(0), false);
    // The last row may come without a line end.
    if (text !== '' && !text.endsWith('\n')) text += '\n';
    const out = this.#parse(text, true);
    if (this.#prefixes.length === 0) throw new ClientCsvError('no header row', this.#line);
    return out;
  }

  #decode(bytes: Uint8Array, stream: boolean): string {
    try {
      return this.#decoder.decode(bytes, { stream });
    } catch {
      throw new ClientCsvError('not valid UTF-8', this.#line);
    }
  }

  /** Converts every complete row of `text` and keeps the incomplete rest for the next chunk. */
  #parse(text: string, final: boolean): Buffer {
    let pos = this.#prefixes.length === 0 ? this.#header(text) : 0;
    if (pos < 0) return this.#keep(text, 0, Buffer.alloc(0));
    // The NDJSON of a chunk is a little longer than its CSV (member names are added); grown when it is not enough.
    let out: Buffer = Buffer.allocUnsafeSlow(Math.max(1024, text.length * 2));
    let size = 0;
    this.#nextQuote = text.indexOf('"', pos);
    this.#nextCr = text.indexOf('\r', pos);
    while (pos < text.length) {
      const line = this.#row(text, pos);
      if (line === undefined) break;
      if (size + line.length * 3 > out.length) out = grow(out, size, line.length * 3);
      size += out.write(line, size, 'utf8');
      pos = this.#rowEnd;
      this.#rows++;
    }
    if (final && pos < text.length) throw new ClientCsvError('unterminated quoted cell', this.#line);
    return this.#keep(text, pos, out.subarray(0, size));
  }

  /** Keeps the text from `pos` on (an incomplete row) for the next chunk; returns `out`. */
  #keep(text: string, pos: number, out: Buffer): Buffer {
    if (text.length - pos > MAX_ROW_CHARS)
      throw new ClientCsvError(`a row longer than ${MAX_ROW_CHARS} characters`, this.#line);
    this.#carry = pos === 0 ? text : text.slice(pos);
    return out;
  }

  /** The NDJSON line of the row at `pos`, or undefined if the row is not complete in `text` yet. */
  #row(text: string, pos: number): string | undefined {
    const lf = text.indexOf('\n', pos);
    if (lf < 0) return undefined;
    if (this.#nextQuote >= 0 && this.#nextQuote < pos) this.#nextQuote = text.indexOf('"', pos);
    if (this.#nextQuote < 0 || this.#nextQuote > lf) return this.#plainRow(text, pos, lf);
    return this.#quotedRow(text, pos);
  }

  /** A row without quotes (the usual one): its cells lie between commas. */
  #plainRow(text: string, pos: number, lf: number): string {
    const end = lf > pos && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
    if (this.#nextCr >= 0 && this.#nextCr < pos) this.#nextCr = text.indexOf('\r', pos);
    if (this.#nextCr >= 0 && this.#nextCr < end) throw new ClientCsvError('CR inside an unquoted cell', this.#line);
    const last = this.#prefixes.length - 1;
    let line = '';
    let at = pos;
    for (let k = 0; k < last; k++) {
      const comma = text.indexOf(',', at);
      if (comma < 0 || comma > end) throw this.#cellCount();
      line += this.#prefixes[k]! + this.#json(text.slice(at, comma), k);
      at = comma + 1;
    }
    const comma = text.indexOf(',', at);
    if (comma >= 0 && comma < end) throw this.#cellCount();
    line = `${line}${this.#prefixes[last]!}${this.#json(text.slice(at, end), last)}}\n`;
    this.#rowEnd = lf + 1;
    this.#line++;
    return line;
  }

  /** A row with a quote: cell by cell, each plain or quoted (`""` inside a quoted cell is `"`; it may span lines). */
  #quotedRow(text: string, pos: number): string | undefined {
    const last = this.#prefixes.length - 1;
    let line = '';
    let at = pos;
    for (let k = 0; ; k++) {
      let cell: string;
      let after: number;
      if (text.charCodeAt(at) === QUOTE) {
        const closed = quotedCell(text, at + 1);
        if (closed === undefined) return undefined;
        cell = closed.cell;
        after = closed.after;
        const c = text.charCodeAt(after);
        if (c !== COMMA && c !== CR && c !== LF)
          throw new ClientCsvError('a character after a closing quote', this.#line);
      } else {
        after = at;
        for (let c = text.charCodeAt(after); c !== COMMA && c !== CR && c !== LF; c = text.charCodeAt(after)) {
          if (c === QUOTE) throw new ClientCsvError('a quote inside an unquoted cell', this.#line);
          if (++after >= text.length) return undefined;
        }
        cell = text.slice(at, after);
      }
      const sep = text.charCodeAt(after);
      if (sep === COMMA) {
        if (k === last) throw this.#cellCount();
        line += this.#prefixes[k]! + this.#json(cell, k);
        at = after + 1;
        continue;
      }
      if (sep === CR) {
        if (after + 1 >= text.length) return undefined;
        if (text.charCodeAt(after + 1) !== LF) throw new ClientCsvError('CR inside an unquoted cell', this.#line);
      }
      if (k !== last) throw this.#cellCount();
      line = `${line}${this.#prefixes[k]!}${this.#json(cell, k)}}\n`;
      this.#rowEnd = after + (sep === CR ? 2 : 1);
      this.#line += countLineEnds(text, pos, this.#rowEnd);
      return line;
    }
  }

  /** The JSON value of column `k`'s cell. */
  #json(cell: string, k: number): string {
    if (cell === NULL_VALUE) return NULL_JSON;
    const kind = this.#kinds[k]!;
    if (kind === 'string') return JSON.stringify(cell);
    if (kind === 'number' && JSON_NUMBER.test(cell)) return cell;
    if (kind === 'boolean' && (cell === 'true' || cell === 'false')) return cell;
    if (kind === 'list') {
      const list = parseJson(cell);
      // Serialised again rather than copied: JSON text may hold line breaks, which would split the NDJSON line.
      if (Array.isArray(list)) return JSON.stringify(list);
    }
    throw new ClientCsvError(`${this.#names[k]}: ${JSON.stringify(cell)} is not a ${kind} value`, this.#line);
  }

  #cellCount(): ClientCsvError {
    return new ClientCsvError(`a row must have ${this.#prefixes.length} cells, as the header has`, this.#line);
  }

  /** Reads the header row at the start of `text`; returns the index after it, or -1 if it is incomplete. */
  #header(text: string): number {
    const lf = text.indexOf('\n');
    if (lf < 0) return -1;
    const names = headerNames(text.slice(0, lf > 0 && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf), this.#line);
    checkColumns(names, this.#options.properties, this.#line);
    this.#names = names;
    this.#prefixes = names.map((n, k) => `${k === 0 ? '{' : ','}${JSON.stringify(n)}:`);
    this.#kinds = names.map((n, k) => (k === 0 ? 'string' : this.#options.kindOf(n)));
    this.#line++;
    return lf + 1;
  }
}

/** A buffer holding the first `size` bytes of `out`, with room for `more`. */
function grow(out: Buffer, size: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafeSlow(Math.max(out.length * 2, size + more));
  out.copy(bigger, 0, 0, size);
  return bigger;
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The cells of the header row (without its line end); names are plain, but a quoted one is read as RFC 4180 says. */
function headerNames(row: string, line: number): string[] {
  const names: string[] = [];
  let at = 0;
  for (;;) {
    if (row.charCodeAt(at) === QUOTE) {
      const closed = quotedCell(`${row},`, at + 1);
      if (closed === undefined || closed.after > row.length)
        throw new ClientCsvError('unterminated quoted cell in the header', line);
      names.push(closed.cell);
      at = closed.after;
    } else {
      const comma = row.indexOf(',', at);
      const stop = comma < 0 ? row.length : comma;
      names.push(row.slice(at, stop));
      at = stop;
    }
    if (at >= row.length) return names;
    if (row.charCodeAt(at) !== COMMA) throw new ClientCsvError('a character after a closing quote', line);
    at++;
  }
}

/** The header must be `clientId` and then each requested property once (the service may order them differently). */
function checkColumns(names: string[], properties: readonly string[], line: number): void {
  const wanted = new Set(properties.filter((p) => p !== 'clientId'));
  const seen = new Set<string>();
  const problems: string[] = [];
  if (names[0] !== 'clientId') problems.push(`the first column is ${JSON.stringify(names[0])}, not "clientId"`);
  for (const n of names.slice(1)) {
    if (seen.has(n)) problems.push(`column ${JSON.stringify(n)} appears twice`);
    else if (!wanted.has(n)) problems.push(`column ${JSON.stringify(n)} was not requested`);
    seen.add(n);
  }
  for (const p of wanted) if (!seen.has(p)) problems.push(`column ${JSON.stringify(p)} is missing`);
  if (problems.length > 0) throw new ClientCsvError(`header: ${problems.join('; ')}`, line);
}
