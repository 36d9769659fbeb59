/**
 * Which export files exist at a given moment (docs/interface.md "File listings and names"): finished daily files of the
 * last 90 days, monthly files of the last 12 months, and today's open file, each only when it holds data. Downloads
 * look names up here too, so a name is downloadable exactly when it is listed.
 */
import { addMonths, type Day, formatDay, monthStart } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { dayLineCount, dayPicks, linesUpTo } from './day-lines.ts';
import type { Family } from './families.ts';

export const RETENTION_DAYS = 90;
export const MONTHLY_RETENTION = 12;

export type FileKind = 'daily' | 'open' | 'monthly';

export interface FileRef {
  fam: Family;
  kind: FileKind;
  fileName: string;
  /** First and last day the file covers (equal for daily and open files). */
  start: Day;
  stop: Day;
}

export interface Listing {
  open: FileRef | undefined;
  daily: FileRef[];
  monthly: FileRef[];
}

export function storageKey(pd: ProductData, fam: Family, fileName: string): string {
  return `${pd.product.productId}/${fam.id}/${fileName}`;
}

function ref(pd: ProductData, fam: Family, kind: FileKind, start: Day, stop: Day): FileRef {
  const range = kind === 'monthly' ? `${formatDay(start)}_to_${formatDay(stop)}` : formatDay(start);
  return { fam, kind, fileName: `${pd.product.productId}_${fam.nameTag}${range}.zip`, start, stop };
}

function hasData(pd: ProductData, fam: Family, from: Day, to: Day): boolean {
  for (let d = Math.max(from, pd.firstDay); d <= to; d++) if (dayLineCount(pd, fam, d) > 0) return true;
  return false;
}

/** Lines of today's file at `nowMs`. */
export function openLineCount(pd: ProductData, fam: Family, today: Day, nowMs: number): number {
  return dayLineCount(pd, fam, today) === 0 ? 0 : linesUpTo(dayPicks(pd, fam, today).ms, nowMs);
}

export function listing(pd: ProductData, fam: Family, today: Day, nowMs: number): Listing {
  const daily: FileRef[] = [];
  for (let d = today - RETENTION_DAYS; d < today; d++)
    if (dayLineCount(pd, fam, d) > 0) daily.push(ref(pd, fam, 'daily', d, d));
  if (fam.dailyOnly) return { open: undefined, daily, monthly: [] };

  const monthly: FileRef[] = [];
  const current = monthStart(today);
  for (let m = addMonths(current, 1 - MONTHLY_RETENTION); m <= current; m = addMonths(m, 1)) {
    // Past months cover the whole month; the current one runs from the 1st to yesterday.
    const stop = Math.min(addMonths(m, 1) - 1, today - 1);
    if (stop >= m && hasData(pd, fam, m, stop)) monthly.push(ref(pd, fam, 'monthly', m, stop));
  }
  const open = openLineCount(pd, fam, today, nowMs) > 0 ? ref(pd, fam, 'open', today, today) : undefined;
  return { open, daily, monthly };
}

/** The listed file of that name, or undefined (unknown, foreign, malformed or expired names alike). */
export function findListed(
  pd: ProductData,
  fam: Family,
  fileName: string,
  today: Day,
  nowMs: number,
): FileRef | undefined {
  const prefix = `${pd.product.productId}_${fam.nameTag}`;
  // Cheap shape check first, so arbitrary input never triggers a listing.
  if (
    !fileName.startsWith(prefix) ||
    !/^\d{4}-\d{2}-\d{2}(_to_\d{4}-\d{2}-\d{2})?\.zip$/.test(fileName.slice(prefix.length))
  )
    return undefined;
  const l = listing(pd, fam, today, nowMs);
  if (l.open?.fileName === fileName) return l.open;
  return l.daily.find((f) => f.fileName === fileName) ?? l.monthly.find((f) => f.fileName === fileName);
}
