/**
 * File families: latest lines (`customEventsLastLines`, `exceptionsLastLines`), file listings (`customEventsListFiles`,
 * `exceptionsListFiles`, `rawEventsListFiles`) and download addresses (`customEventsDownloadUrl`,
 * `exceptionsDownloadUrl`, `rawEventsDownloadUrl`); docs/interface.md "Latest lines", "File listings and names",
 * "Download addresses". The raw-export feature check is the route table's (403 before the handler).
 */
import { formatDay, msOfDay } from '../../data/dates.ts';
import { notFound } from '../../http/errors.ts';
import type { Handler, HandlerContext } from '../../http/handler.ts';
import { fail, reqInt, reqString } from '../../http/validate.ts';
import { type FileRef, findListed, listing, storageKey } from './catalog.ts';
import { lastLines } from './day-lines.ts';
import { FAMILIES, type Family } from './families.ts';
import { fileSizes, kb } from './file-bytes.ts';

const MAX_LINE_COUNT = 1000;

/** The clock's time, kept inside ctx.today so one request never straddles midnight. */
function nowWithin(today: number, nowMs: number): number {
  return Math.min(Math.max(nowMs, msOfDay(today)), msOfDay(today + 1) - 1);
}

const requestNow = (ctx: HandlerContext) => nowWithin(ctx.today, ctx.state.clock.now());

/** `lineCount`: an integer 1–1000, also accepted as a numeric string. */
function readLineCount(body: Record<string, unknown>): number {
  const v = body.lineCount;
  if (typeof v === 'string') {
    if (!/^\s*[+-]?\d+\s*$/.test(v)) fail('lineCount', 'must be an integer');
    return reqInt({ lineCount: Number(v) }, 'lineCount', '', { min: 1, max: MAX_LINE_COUNT });
  }
  return reqInt(body, 'lineCount', '', { min: 1, max: MAX_LINE_COUNT });
}

const lastLinesHandler =
  (fam: Family): Handler =>
  (ctx) => {
    const count = readLineCount(ctx.body);
    const rows = lastLines(ctx.pd, fam, count, ctx.today, requestNow(ctx));
    return {
      fieldNames: fam.fieldNames,
      result: rows.map((cells) => Object.fromEntries(fam.keys.map((k, j) => [k, cells[j] ?? '']))),
    };
  };

function isAvailable(ctx: HandlerContext, file: FileRef): boolean {
  return file.kind !== 'open' || !ctx.state.faults.openFilesUnavailable(storageKey(ctx.pd, file.fam, file.fileName));
}

const listFilesHandler =
  (fam: Family): Handler =>
  (ctx) => {
    const now = requestNow(ctx);
    const l = listing(ctx.pd, fam, ctx.today, now);
    const sizes = (f: FileRef) => {
      const s = fileSizes(ctx.pd, f, now);
      return { uncompressedSizeKB: kb(s.csvBytes), compressedSizeKB: kb(s.zipBytes) };
    };
    const daily = l.daily.map((f) => ({ fileName: f.fileName, fileDate: formatDay(f.start), ...sizes(f) }));
    if (fam.dailyOnly)
      return {
        fileList: daily.map(({ fileName, fileDate, compressedSizeKB }) => ({ fileName, fileDate, compressedSizeKB })),
      };
    return {
      openDailyFiles: l.open
        ? [
            {
              fileName: l.open.fileName,
              fileDate: formatDay(l.open.start),
              uncompressedSizeKB: sizes(l.open).uncompressedSizeKB,
              isAvailable: isAvailable(ctx, l.open),
            },
          ]
        : [],
      dailyFiles: daily,
      monthlyFiles: l.monthly.map((f) => ({
        fileName: f.fileName,
        fileStartDate: formatDay(f.start),
        fileStopDate: formatDay(f.stop),
        ...sizes(f),
      })),
    };
  };

const downloadUrlHandler =
  (fam: Family): Handler =>
  (ctx) => {
    const fileName = reqString(ctx.body, 'fileName');
    const file = findListed(ctx.pd, fam, fileName, ctx.today, requestNow(ctx));
    if (!file) throw notFound(`no file ${JSON.stringify(fileName.slice(0, 200))} in this product's listing`);
    if (!isAvailable(ctx, file)) throw notFound(`${fileName} is not available yet; try again shortly`);
    return { downloadUrl: ctx.state.signDownload(storageKey(ctx.pd, fam, fileName)) };
  };

export const fileHandlers: Record<string, Handler> = {
  customEventsLastLines: lastLinesHandler(FAMILIES.customEvents),
  customEventsListFiles: listFilesHandler(FAMILIES.customEvents),
  customEventsDownloadUrl: downloadUrlHandler(FAMILIES.customEvents),
  exceptionsLastLines: lastLinesHandler(FAMILIES.exceptions),
  exceptionsListFiles: listFilesHandler(FAMILIES.exceptions),
  exceptionsDownloadUrl: downloadUrlHandler(FAMILIES.exceptions),
  rawEventsListFiles: listFilesHandler(FAMILIES.rawEvents),
  rawEventsDownloadUrl: downloadUrlHandler(FAMILIES.rawEvents),
};
