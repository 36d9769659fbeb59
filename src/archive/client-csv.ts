/**
 * The client export's CSV (exportClientPropertyList, docs/interface.md "Client export CSV": RFC 4180 quoting, CRLF line
 * ends) turned into NDJSON: one object per client with the members and values the client property list
 * (clientPropertyList) sends. The header names the members; each column's kind says how its text becomes a JSON value,
 * since the CSV carries text only (`8192` is a number for `ram`, while `3.1` stays a string for `prodVersion`). A
 * `<NULL>` cell is the string `"<NULL>"` in every column, as in clientPropertyList. Text is never interpreted beyond
 * that: HTML or JSON-looking values in a string column stay strings.
 *
 * Built for a million rows in flat memory: rows are cut out of the decoded text with `indexOf`, each row's line is
 * concatenated from its cells' JSON without row objects or arrays, and written into the output buffer at once, so
 * what survives a row is bytes outside the JS heap rather than a tree of small strings for the collector to copy.
 *
 * The rows come from the shared strict reader (../core/strict-csv.ts: lenient where the interface leaves room, strict
 * about quoting, cell counts, UTF-8 and row length); this module adds what is strict about this CSV — a value that does
 * not fit its column's kind, a header that is not `clientId` plus the requested properties — each a ClientCsvError
 * naming the line.
 */

import { NULL_VALUE } from '../client/index.ts';
import { MAX_ROW_CHARS, StrictCsvReader } from '../core/strict-csv.ts';

export { MAX_ROW_CHARS };

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

const NULL_JSON = JSON.stringify(NULL_VALUE);
/** RFC 8259 number grammar: such a cell is copied as is, so the number is exactly the one the service wrote. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export interface ClientCsvOptions {
  /** The properties requested, in any order: the header must be `clientId` and then each of them once. */
  properties: readonly string[];
  /** The kind of a property's values; `clientId` is always a string. */
  kindOf(property: string): ColumnKind;
}

/** Feed it the CSV's bytes chunk by chunk; `push` and `end` return the NDJSON of the rows completed by then. */
export class ClientCsvToNdjson extends StrictCsvReader {
  readonly #options: ClientCsvOptions;
  /** Per column, once the header is read: its name, `{"clientId":` or `,"name":`, and its kind. */
  #names: string[] = [];
  #prefixes: string[] = [];
  #kinds: ColumnKind[] = [];
  #rows = 0;
  /** The NDJSON of the chunk being read, and its length. */
  #out: Buffer = Buffer.alloc(0);
  #size = 0;

  constructor(options: ClientCsvOptions) {
    super();
    this.#options = options;
  }

  /** Data rows converted so far: one per client. */
  get rows(): number {
    return this.#rows;
  }

  push(bytes: Uint8Array): Buffer {
    // The NDJSON of a chunk is a little longer than its CSV (member names are added); grown when it is not enough.
    this.#start(Math.max(1024, bytes.length * 2));
    this.feed(bytes);
    return this.#out.subarray(0, this.#size);
  }

  /** The rest, once the CSV has ended; throws if it ends inside a quoted cell or has no header. */
  end(): Buffer {
    this.#start(1024);
    this.finish();
    return this.#out.subarray(0, this.#size);
  }

  #start(bytes: number): void {
    this.#out = Buffer.allocUnsafeSlow(bytes);
    this.#size = 0;
  }

  protected override error(message: string, line: number): Error {
    return new ClientCsvError(message, line);
  }

  /** Each row's line is concatenated from its cells' JSON and written into the output buffer at once. */
  protected override row(cells: readonly string[], line: number): void {
    const prefixes = this.#prefixes;
    let text = '';
    for (let k = 0; k < prefixes.length; k++) text += prefixes[k]! + this.#json(cells[k]!, k, line);
    text += '}\n';
    if (this.#size + text.length * 3 > this.#out.length) this.#out = grow(this.#out, this.#size, text.length * 3);
    this.#size += this.#out.write(text, this.#size, 'utf8');
    this.#rows++;
  }

  /** The JSON value of column `k`'s cell. */
  #json(cell: string, k: number, line: number): string {
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
    throw new ClientCsvError(`${this.#names[k]}: ${JSON.stringify(cell)} is not a ${kind} value`, line);
  }

  protected override header(names: string[], line: number): void {
    checkColumns(names, this.#options.properties, line);
    this.#names = names;
    this.#prefixes = names.map((n, k) => `${k === 0 ? '{' : ','}${JSON.stringify(n)}:`);
    this.#kinds = names.map((n, k) => (k === 0 ? 'string' : this.#options.kindOf(n)));
  }
}

/** A buffer holding the first `size` bytes of `out`, with room for `more`. */
function grow(out: Buffer, size: number, more: number): Buffer {
  const bigger = Buffer.allocUnsafeSlow(Math.max(out.length * 2, size + more));
  out.copy(bigger, 0, 0, size);
  return bigger;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
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
