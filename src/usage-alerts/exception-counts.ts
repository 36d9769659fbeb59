/**
 * A product's exception counts per UTC day, from its exception files: one listing (`exceptionsListFiles`), then each
 * file the days need downloaded once (`exceptionsDownloadUrl` and its GET; exception-file.ts), however many
 * exception rules of the product read them. A day is counted from its daily file; a day the daily files no longer
 * reach (they cover the last 90 days) from the monthly file that covers it, by its lines' UTC day. The open day is
 * never counted: its file is still growing.
 *
 * A day with no daily file between two days that have one had no exception at all: the service lists a file only
 * for a day that has lines, and the files on both sides show the product's export ran. That day is 0, and costs no
 * download. A day no file covers and no files surround (before the product's first file, a gap past every
 * retention) has no figure: counting it 0 could fire a drop that never happened, so its period is not judged
 * (conditions.ts `Point.missing`), as a segment value outside the limit is not.
 */
import type { ReportingClient } from '../client/index.ts';
import { addDays, type IsoDate } from '../core/calendar.ts';
import { countExceptionFile, type DayTypeCounts } from './exception-file.ts';

/** What the run keeps of a product's exception files: the answer of its `exceptionsListFiles` planned call. */
export interface ExceptionDays {
  /** Per UTC day, occurrences per exception type. */
  counts: Record<IsoDate, Record<string, number>>;
  /** Days without a figure, and why. */
  missing: Record<IsoDate, string>;
}

type FileClient = Pick<ReportingClient, 'exceptionsListFiles' | 'exceptionsDownloadUrl' | 'download'>;

/** The days `startDate`…`stopDate` counted; `calls`: the listing and one download address per file. */
export async function countExceptions(
  client: FileClient,
  productId: string,
  startDate: IsoDate,
  stopDate: IsoDate,
): Promise<{ answer: ExceptionDays; calls: number }> {
  const listing = await client.exceptionsListFiles(productId);
  const answer: ExceptionDays = { counts: {}, missing: {} };
  const wanted = new Map<string, Set<IsoDate>>();
  for (let day = startDate; day <= stopDate; day = addDays(day, 1)) {
    const source = sourceOf(day, listing);
    if (source.kind === 'file') {
      const days = wanted.get(source.fileName) ?? new Set();
      wanted.set(source.fileName, days.add(day));
    } else if (source.kind === 'quiet') answer.counts[day] = {};
    else answer.missing[day] = source.reason;
  }
  // One file after the other: a product's files are few per run, and the run's own concurrency is across products.
  for (const [fileName, days] of wanted) {
    const counted: DayTypeCounts = await countExceptionFile(client, productId, fileName, days);
    for (const [day, byType] of counted) answer.counts[day] = Object.fromEntries(byType);
  }
  return { answer, calls: 1 + wanted.size };
}

type Listing = Awaited<ReturnType<FileClient['exceptionsListFiles']>>;
type DaySource = { kind: 'file'; fileName: string } | { kind: 'quiet' } | { kind: 'none'; reason: string };

/** Where a day's count comes from: its daily file, no file between files (0), a monthly file, or nowhere. */
export function sourceOf(day: IsoDate, listing: Listing): DaySource {
  if (listing.openDailyFiles.some((f) => f.fileDate <= day))
    return { kind: 'none', reason: `${day} is the open day: its exception file is still growing` };
  const daily = listing.dailyFiles.find((f) => f.fileDate === day);
  if (daily) return { kind: 'file', fileName: daily.fileName };
  const dates = [...listing.dailyFiles.map((f) => f.fileDate), ...listing.openDailyFiles.map((f) => f.fileDate)];
  if (dates.some((d) => d < day) && dates.some((d) => d > day)) return { kind: 'quiet' };
  const monthly = listing.monthlyFiles.find((f) => f.fileStartDate <= day && day <= f.fileStopDate);
  if (monthly) return { kind: 'file', fileName: monthly.fileName };
  return { kind: 'none', reason: `no exception file covers ${day}` };
}
