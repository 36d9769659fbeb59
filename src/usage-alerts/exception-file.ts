/**
 * One exception file counted: downloaded from a fresh signed address, checked as a ZIP while it streams
 * (src/core/zip/), its one CSV entry read by the strict reader (src/core/strict-csv.ts), and its lines counted per UTC
 * day (the first ten characters of `timestamp`, which the interface writes as UTC without an offset) and per
 * `exception.type`. Only the days asked for are kept; nothing else of the file is held. The counts are handed back
 * only after the ZIP's CRC checked out, so a corrupt download counts nothing.
 */
import type { ReportingClient } from '../client/index.ts';
import type { IsoDate } from '../core/calendar.ts';
import { StrictCsvReader } from '../core/strict-csv.ts';
import { ZipVerifier } from '../core/zip/zip-verifier.ts';

/** Per UTC day, occurrences per exception type. */
export type DayTypeCounts = Map<IsoDate, Map<string, number>>;

export class ExceptionFileError extends Error {
  override name = 'ExceptionFileError';
}

export type ExceptionFileSource = Pick<ReportingClient, 'exceptionsDownloadUrl' | 'download'>;

const READ_BUFFER = 64 * 1024;
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T/;

/** The lines of `fileName` on each of `days`, by exception type (every asked day present, 0 lines included). */
export async function countExceptionFile(
  client: ExceptionFileSource,
  productId: string,
  fileName: string,
  days: ReadonlySet<IsoDate>,
): Promise<DayTypeCounts> {
  const counter = new ExceptionLineCounter(fileName, days);
  let entry: string | undefined;
  const zip = new ZipVerifier({
    onData: (name, bytes) => {
      entry ??= name;
      if (name !== entry) throw new ExceptionFileError(`${fileName}: more than one entry (${entry}, ${name})`);
      counter.take(bytes);
    },
  });
  const { downloadUrl } = await client.exceptionsDownloadUrl(productId, { fileName });
  const download = await client.download(downloadUrl);
  try {
    const buffer = new Uint8Array(READ_BUFFER);
    for (let n = await download.readInto(buffer); n > 0; n = await download.readInto(buffer))
      await zip.write(buffer.subarray(0, n));
    await zip.end();
  } finally {
    download.cancel();
  }
  if (entry === undefined) throw new ExceptionFileError(`${fileName}: the ZIP holds no data`);
  return counter.done();
}

class ExceptionLineCounter extends StrictCsvReader {
  readonly #file: string;
  readonly #counts: DayTypeCounts = new Map();
  #timestamp = -1;
  #type = -1;

  constructor(file: string, days: ReadonlySet<IsoDate>) {
    super();
    this.#file = file;
    for (const day of days) this.#counts.set(day, new Map());
  }

  take(bytes: Uint8Array): void {
    this.feed(bytes);
  }

  done(): DayTypeCounts {
    this.finish();
    return this.#counts;
  }

  protected override error(message: string, line: number): Error {
    return new ExceptionFileError(`${this.#file}, line ${line}: ${message}`);
  }

  protected override header(names: string[], line: number): void {
    this.#timestamp = names.indexOf('timestamp');
    this.#type = names.indexOf('exception.type');
    if (this.#timestamp < 0 || this.#type < 0)
      throw this.error('the header has no "timestamp" or no "exception.type" column', line);
  }

  protected override row(cells: readonly string[], line: number): void {
    const timestamp = cells[this.#timestamp]!;
    if (!UTC_TIMESTAMP.test(timestamp)) throw this.error(`not a timestamp: ${JSON.stringify(timestamp)}`, line);
    const byType = this.#counts.get(timestamp.slice(0, 10));
    if (!byType) return;
    const type = cells[this.#type]!;
    byType.set(type, (byType.get(type) ?? 0) + 1);
  }
}
