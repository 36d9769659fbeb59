/**
 * RFC 4180 records read back from a stream (a registry snapshot written with csv-cells.ts): one array of cells per
 * record, the header first, as the bytes arrive, so memory holds one chunk and its records whatever the file's size.
 * The parsing is the shared strict reader's (src/core/strict-csv.ts); cells are returned as written (quotes removed,
 * `""` as `"`); undoing the formula neutralization is the caller's choice.
 */
import { StrictCsvReader } from '../../core/strict-csv.ts';

export class CsvRecordError extends Error {
  override name = 'CsvRecordError';
}

/** Collects what the strict reader hands on, for the generator below to yield between chunks. */
class RecordCollector extends StrictCsvReader {
  readonly records: string[][] = [];
  protected error(message: string, line: number): Error {
    return new CsvRecordError(`line ${line}: ${message}`);
  }
  protected header(names: string[]): void {
    this.records.push([...names]);
  }
  protected row(cells: readonly string[]): void {
    this.records.push([...cells]);
  }
  push(bytes: Uint8Array): void {
    this.feed(bytes);
  }
  end(): void {
    this.finish();
  }
}

/** Bytes, not text: a chunk may end inside a character, which the reader's streaming decoder carries over. */
export async function* csvRecords(input: AsyncIterable<Uint8Array>): AsyncGenerator<string[], void, undefined> {
  const reader = new RecordCollector();
  for await (const chunk of input) {
    reader.push(chunk);
    yield* reader.records.splice(0);
  }
  reader.end();
  yield* reader.records.splice(0);
}
