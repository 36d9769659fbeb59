/**
 * RFC 4180 records read back from a stream of text (a registry snapshot written with csv-cells.ts): one array of
 * cells per record, as the text arrives, so memory holds one chunk and one record whatever the file's size. Cells
 * are returned as written (quotes removed, `""` as `"`); undoing the formula neutralization is the caller's choice.
 */

export class CsvRecordError extends Error {
  override name = 'CsvRecordError';
}

/** A record still open after this many characters is malformed (an unterminated quote would swallow the file). */
const MAX_RECORD_CHARS = 1024 * 1024;

export async function* csvRecords(text: AsyncIterable<string>): AsyncGenerator<string[], void, undefined> {
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  /** Inside a quoted cell, a `"` was just read: either the closing quote or the first of `""`. */
  let quoteSeen = false;
  let size = 0;
  let record = 1;
  for await (const chunk of text) {
    const out: string[][] = [];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (++size > MAX_RECORD_CHARS) throw new CsvRecordError(`record ${record}: longer than ${MAX_RECORD_CHARS}`);
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === '"') {
            cell += '"';
            continue;
          }
          quoted = false; // the closing quote; `c` is read below as what follows the cell
        } else {
          if (c === '"') quoteSeen = true;
          else cell += c;
          continue;
        }
      }
      if (c === ',') {
        cells.push(cell);
        cell = '';
      } else if (c === '\n') {
        if (cell.endsWith('\r')) cell = cell.slice(0, -1);
        cells.push(cell);
        out.push(cells);
        cells = [];
        cell = '';
        size = 0;
        record++;
      } else if (c === '"' && cell === '') quoted = true;
      else if (c === '"') throw new CsvRecordError(`record ${record}: a quote inside an unquoted cell`);
      else cell += c;
    }
    yield* out;
  }
  if (quoted && !quoteSeen) throw new CsvRecordError(`record ${record}: unterminated quoted cell`);
  if (cell !== '' || cells.length > 0) yield [...cells, cell.endsWith('\r') ? cell.slice(0, -1) : cell];
}
