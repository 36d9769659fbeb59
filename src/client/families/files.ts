/**
 * File families: latest lines (`customEventsLastLines`, `exceptionsLastLines`), file listings (`customEventsListFiles`,
 * `exceptionsListFiles`, `rawEventsListFiles`) and signed download addresses (`customEventsDownloadUrl`,
 * `exceptionsDownloadUrl`, `rawEventsDownloadUrl`). Line columns come from `fieldNames` (docs/interface.md
 * "Latest lines"); listings are sorted here by date, whatever order the service sends (docs/interface.md
 * "File listings and names"). Fetch a fresh address for every download attempt.
 */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { DateString } from './common.ts';
import type { DownloadUrlRequest, LastLinesRequest } from './request-bodies.ts';

export type { DownloadUrlRequest, LastLinesRequest };

const LastLinesResponse = z.looseObject({
  /** Column key → display label, in column order. */
  fieldNames: z.record(z.string(), z.string()),
  /** Oldest first; every value is a string (`""` = no value, flags `Y`/`N`). */
  result: z.array(z.record(z.string(), z.string())),
});
export type LastLinesResponse = z.output<typeof LastLinesResponse>;

const SizeKB = z.number().nonnegative();
const OpenDailyFile = z.looseObject({
  fileName: z.string(),
  fileDate: DateString,
  uncompressedSizeKB: SizeKB,
  /** False while a snapshot is being built: the download address is refused then. */
  isAvailable: z.boolean(),
});
const DailyFile = z.looseObject({
  fileName: z.string(),
  fileDate: DateString,
  uncompressedSizeKB: SizeKB,
  compressedSizeKB: SizeKB,
});
const MonthlyFile = z.looseObject({
  fileName: z.string(),
  fileStartDate: DateString,
  fileStopDate: DateString,
  uncompressedSizeKB: SizeKB,
  compressedSizeKB: SizeKB,
});
const FileListing = z.looseObject({
  openDailyFiles: z.array(OpenDailyFile),
  dailyFiles: z.array(DailyFile),
  monthlyFiles: z.array(MonthlyFile),
});
export type FileListing = z.output<typeof FileListing>;

const RawEventsFileListing = z.looseObject({
  fileList: z.array(z.looseObject({ fileName: z.string(), fileDate: DateString, compressedSizeKB: SizeKB })),
});
export type RawEventsFileListing = z.output<typeof RawEventsFileListing>;

const DownloadUrlResponse = z.looseObject({ downloadUrl: z.url({ protocol: /^https?$/ }) });
export type DownloadUrlResponse = z.output<typeof DownloadUrlResponse>;

export const fileSchemas = {
  customEventsLastLines: LastLinesResponse,
  customEventsListFiles: FileListing,
  customEventsDownloadUrl: DownloadUrlResponse,
  exceptionsLastLines: LastLinesResponse,
  exceptionsListFiles: FileListing,
  exceptionsDownloadUrl: DownloadUrlResponse,
  rawEventsListFiles: RawEventsFileListing,
  rawEventsDownloadUrl: DownloadUrlResponse,
} satisfies SchemaMap;

export interface LineColumn {
  key: string;
  label: string;
}

/** The columns of a latest-lines answer in the service's order (keys are never integer-like, so JSON keeps it). */
export function lineColumns(res: LastLinesResponse): LineColumn[] {
  return Object.entries(res.fieldNames).map(([key, label]) => ({ key, label }));
}

/** Stable sort by a `YYYY-MM-DD` member: the date strings sort like the dates. */
function byDate<T>(items: T[], date: (item: T) => string): T[] {
  return items.sort((a, b) => (date(a) < date(b) ? -1 : date(a) > date(b) ? 1 : 0));
}

function sortListing(l: FileListing): FileListing {
  byDate(l.openDailyFiles, (f) => f.fileDate);
  byDate(l.dailyFiles, (f) => f.fileDate);
  byDate(l.monthlyFiles, (f) => f.fileStartDate);
  return l;
}

export interface FileMethods {
  /** The newest custom-event lines, oldest first. */
  customEventsLastLines(productId: string, body: LastLinesRequest, opts?: CallOptions): Promise<LastLinesResponse>;
  /** Custom-event files (open, daily, monthly), each list ascending by date. */
  customEventsListFiles(productId: string, opts?: CallOptions): Promise<FileListing>;
  /** A signed, short-lived address of a custom-event file; pass it to `download`. */
  customEventsDownloadUrl(
    productId: string,
    body: DownloadUrlRequest,
    opts?: CallOptions,
  ): Promise<DownloadUrlResponse>;
  /** The newest exception lines, oldest first. */
  exceptionsLastLines(productId: string, body: LastLinesRequest, opts?: CallOptions): Promise<LastLinesResponse>;
  /** Exception files (open, daily, monthly), each list ascending by date. */
  exceptionsListFiles(productId: string, opts?: CallOptions): Promise<FileListing>;
  /** A signed, short-lived address of an exception file; pass it to `download`. */
  exceptionsDownloadUrl(productId: string, body: DownloadUrlRequest, opts?: CallOptions): Promise<DownloadUrlResponse>;
  /** Raw event export files, ascending by date (needs the raw data export feature). */
  rawEventsListFiles(productId: string, opts?: CallOptions): Promise<RawEventsFileListing>;
  /** A signed, short-lived address of a raw event export file; pass it to `download`. */
  rawEventsDownloadUrl(productId: string, body: DownloadUrlRequest, opts?: CallOptions): Promise<DownloadUrlResponse>;
}

export const fileMethods = (call: Caller): FileMethods => {
  const lastLines =
    (id: 'customEventsLastLines' | 'exceptionsLastLines') =>
    (productId: string, body: LastLinesRequest, opts?: CallOptions) =>
      call.json<LastLinesResponse>(id, productId, body, opts);
  const listFiles =
    (id: 'customEventsListFiles' | 'exceptionsListFiles') => async (productId: string, opts?: CallOptions) =>
      sortListing(await call.json<FileListing>(id, productId, undefined, opts));
  const downloadUrl =
    (id: 'customEventsDownloadUrl' | 'exceptionsDownloadUrl' | 'rawEventsDownloadUrl') =>
    (productId: string, body: DownloadUrlRequest, opts?: CallOptions) =>
      call.json<DownloadUrlResponse>(id, productId, body, opts);
  return {
    customEventsLastLines: lastLines('customEventsLastLines'),
    customEventsListFiles: listFiles('customEventsListFiles'),
    customEventsDownloadUrl: downloadUrl('customEventsDownloadUrl'),
    exceptionsLastLines: lastLines('exceptionsLastLines'),
    exceptionsListFiles: listFiles('exceptionsListFiles'),
    exceptionsDownloadUrl: downloadUrl('exceptionsDownloadUrl'),
    async rawEventsListFiles(productId, opts) {
      const l = await call.json<RawEventsFileListing>('rawEventsListFiles', productId, undefined, opts);
      byDate(l.fileList, (f) => f.fileDate);
      return l;
    },
    rawEventsDownloadUrl: downloadUrl('rawEventsDownloadUrl'),
  };
};
