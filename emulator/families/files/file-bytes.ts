/**
 * The bytes of an export file: a one-entry ZIP of `<base>.csv` holding the family's header and one row per line
 * (docs/interface.md "File listings and names"). Bytes are deterministic (fixed mtime per file) and cached in a
 * byte-bounded LRU; sizes are memoised separately, since a listing needs the size of every file but downloads are rare.
 */
import { type Day, msOfDay } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { csvRow } from '../../files/csv.ts';
import { zipSingleFile } from '../../files/zip.ts';
import { type FileRef, openLineCount } from './catalog.ts';
import { dayLineCount, dayPicks, lineCells, linesUpTo } from './day-lines.ts';
import type { Family } from './families.ts';
import { WeightedLru } from './lru.ts';

export interface FileSizes {
  csvBytes: number;
  zipBytes: number;
}

const BYTES_BUDGET = 32 * 1024 * 1024;
const ROWS_BUDGET = 32 * 1024 * 1024;
const SIZE_MEMO_LIMIT = 4096;

/** CSV rows of one whole day, with their times, so monthly and daily files share the work of one day. */
interface DayRows {
  rows: string[];
  ms: Float64Array;
}

const bytesCache = new WeightedLru<Uint8Array>(BYTES_BUDGET);
const rowsCache = new WeightedLru<DayRows>(ROWS_BUDGET);
const sizeMemo = new WeakMap<ProductData, Map<string, FileSizes>>();
/** Distinguishes products of different emulators in the shared caches (same product ids, maybe other seeds). */
const productTag = new WeakMap<ProductData, number>();
let nextTag = 1;

function tagOf(pd: ProductData): number {
  let tag = productTag.get(pd);
  if (tag === undefined) {
    tag = nextTag++;
    productTag.set(pd, tag);
  }
  return tag;
}

function dayRows(pd: ProductData, fam: Family, day: Day): DayRows {
  const key = `${tagOf(pd)}/${fam.id}/${day}`;
  const cached = rowsCache.get(key);
  if (cached) return cached;
  const picks = dayPicks(pd, fam, day);
  const rows = new Array<string>(picks.count);
  let chars = 0;
  for (let k = 0; k < picks.count; k++) {
    rows[k] = csvRow(lineCells(pd, fam, picks, k));
    chars += rows[k]!.length;
  }
  const entry = { rows, ms: picks.ms };
  rowsCache.set(key, entry, 2 * chars + 16 * picks.count);
  return entry;
}

function cacheKey(pd: ProductData, file: FileRef, nowMs: number): string {
  // The open file grows: each snapshot (by line count) is its own entry.
  const snapshot = file.kind === 'open' ? `#${openLineCount(pd, file.fam, file.start, nowMs)}` : '';
  return `${tagOf(pd)}/${file.fam.id}/${file.fileName}${snapshot}`;
}

function build(pd: ProductData, file: FileRef, nowMs: number): { zip: Uint8Array; sizes: FileSizes } {
  const parts = [csvRow(file.fam.keys)];
  let lastMs = msOfDay(file.start);
  for (let d = file.start; d <= file.stop; d++) {
    if (dayLineCount(pd, file.fam, d) === 0) continue;
    const day = dayRows(pd, file.fam, d);
    const n = file.kind === 'open' ? linesUpTo(day.ms, nowMs) : day.rows.length;
    for (let k = 0; k < n; k++) parts.push(day.rows[k]!);
    if (n > 0) lastMs = day.ms[n - 1]!;
  }
  const csv = Buffer.from(parts.join(''), 'utf8');
  // Finished files are stamped with the end of their last day; the open file with its newest line.
  const mtime = new Date(file.kind === 'open' ? lastMs : msOfDay(file.stop + 1) - 1000);
  const zip = zipSingleFile(`${file.fileName.slice(0, -'.zip'.length)}.csv`, csv, mtime);
  return { zip, sizes: { csvBytes: csv.length, zipBytes: zip.length } };
}

function remember(pd: ProductData, key: string, sizes: FileSizes): void {
  let memo = sizeMemo.get(pd);
  if (!memo) {
    memo = new Map();
    sizeMemo.set(pd, memo);
  }
  if (memo.size >= SIZE_MEMO_LIMIT) memo.delete(memo.keys().next().value!);
  memo.set(key, sizes);
}

/** Bytes and sizes of a file, rebuilt when either has been dropped from its cache. */
function ensure(pd: ProductData, file: FileRef, nowMs: number): { zip: Uint8Array; sizes: FileSizes } {
  const key = cacheKey(pd, file, nowMs);
  const zip = bytesCache.get(key);
  const sizes = sizeMemo.get(pd)?.get(key);
  if (zip && sizes) return { zip, sizes };
  const built = build(pd, file, nowMs);
  bytesCache.set(key, built.zip, built.zip.length);
  remember(pd, key, built.sizes);
  return built;
}

/** The ZIP bytes of a listed file; the open file as a snapshot up to `nowMs`. */
export function fileBytes(pd: ProductData, file: FileRef, nowMs: number): Uint8Array {
  return ensure(pd, file, nowMs).zip;
}

export function fileSizes(pd: ProductData, file: FileRef, nowMs: number): FileSizes {
  return sizeMemo.get(pd)?.get(cacheKey(pd, file, nowMs)) ?? ensure(pd, file, nowMs).sizes;
}

/** Sizes in KB (1024 bytes) with 3 decimals (docs/interface.md "Numbers and identifiers"). */
export function kb(bytes: number): number {
  return Math.round((bytes / 1024) * 1000) / 1000;
}
