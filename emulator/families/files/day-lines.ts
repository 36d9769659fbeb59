/**
 * The lines of one day of one family, derived from a hash of (product seed, family, day) so any day can be rebuilt
 * at any time without storing lines: a bounded number of samples, each a client active that day, at a time of day
 * from the hash, sorted by time. Today's file is the prefix of today's lines up to the clock's current time. On the
 * days of a planted spike (the exception spike of episodes.ts) the day also has the spike's extra lines.
 */
import { isActive } from '../../data/activity.ts';
import { type Day, formatDay, msOfDay } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { hash3 } from '../../data/rng.ts';
import { clientCells } from './client-cells.ts';
import type { Family, Spike } from './families.ts';

/** A day's lines before they are turned into cells: time, client number and line hash, ascending by time. */
export interface DayPicks {
  day: Day;
  /** `YYYY-MM-DDT`, the timestamp prefix of every line of the day. */
  dayPrefix: string;
  count: number;
  ms: Float64Array;
  client: Int32Array;
  hash: Uint32Array;
}

const SECONDS_PER_DAY = 86_400;
/** Samples tried per wanted line; days with few active clients end up with fewer lines. */
const TRIES_PER_LINE = 4;

function wantedLines(pd: ProductData, fam: Family, day: Day): number {
  const h = hash3(pd.seed ^ fam.salt, day, 0x7fffffff);
  if (h % 100 < fam.quietDayPercent) return 0;
  const base = Math.min(fam.maxPerDay, Math.max(fam.minPerDay, Math.round(pd.n / fam.clientsPerLine)));
  const weekend = (((day + 3) % 7) + 7) % 7 >= 5 ? 0.5 : 1;
  return Math.round(base * weekend * (0.6 + ((h >>> 8) % 800) / 1000));
}

/** Days before a spike whose median count of the spiking kind is its usual daily count. */
const SPIKE_BASELINE_DAYS = 28;
/** Samples tried per wanted spike line: more than for ordinary lines, so a spike day gets all of its lines. */
const SPIKE_TRIES_PER_LINE = 40;
const SPIKE_SALT = 0x5350494b;
const spikeMemo = new WeakMap<ProductData, Map<string, number>>();

/**
 * Extra lines on each day of a spike: (factor − 1) × the kind's usual daily count (the median over the four weeks
 * before the spike, at least 1), so a spike day has about `factor` times the usual. Memoised per product and family.
 */
function spikeExtra(pd: ProductData, fam: Family, spike: Spike): number {
  let byFamily = spikeMemo.get(pd);
  if (!byFamily) {
    byFamily = new Map();
    spikeMemo.set(pd, byFamily);
  }
  const known = byFamily.get(fam.id);
  if (known !== undefined) return known;
  const counts: number[] = [];
  for (let d = spike.startDay - SPIKE_BASELINE_DAYS; d < spike.startDay; d++) {
    const picks = dayPicks(pd, fam, d); // days before the spike: no recursion
    let c = 0;
    for (let k = 0; k < picks.count; k++) if (picks.hash[k]! % spike.kinds === spike.kind) c++;
    counts.push(c);
  }
  counts.sort((a, b) => a - b);
  const usual = Math.max(1, (counts[(counts.length - 1) >> 1]! + counts[counts.length >> 1]!) / 2);
  const extra = Math.round((spike.factor - 1) * usual);
  byFamily.set(fam.id, extra);
  return extra;
}

/** h moved to the nearest value ≤ 2³² − 1 with h % kinds === kind, keeping its high bits (time, message). */
function ofKind(h: number, kind: number, kinds: number): number {
  const v = h - (h % kinds) + kind;
  return v > 0xffffffff ? v - kinds : v;
}

export function dayPicks(pd: ProductData, fam: Family, day: Day): DayPicks {
  const inData = day >= pd.firstDay && day <= pd.today;
  const wanted = inData ? wantedLines(pd, fam, day) : 0;
  const spike = inData ? fam.spike?.(pd, day) : undefined;
  const extra = spike ? spikeExtra(pd, fam, spike) : 0;
  const sec = new Int32Array(wanted + extra);
  const client = new Int32Array(wanted + extra);
  const hash = new Uint32Array(wanted + extra);
  let count = 0;
  for (let t = 0; t < wanted * TRIES_PER_LINE && count < wanted; t++) {
    const i = hash3(pd.seed ^ fam.salt, day, t) % pd.n;
    if (!isActive(pd, i, day)) continue;
    const h = hash3(t, day, pd.seed ^ fam.salt ^ i);
    if (fam.payload(pd, i, day, h) === undefined) continue;
    sec[count] = h % SECONDS_PER_DAY;
    client[count] = i;
    hash[count] = h;
    count++;
  }
  // The spike's lines come from a stream of their own, so the day's ordinary lines stay what they were.
  const goal = count + extra;
  for (let t = 0; spike && t < extra * SPIKE_TRIES_PER_LINE && count < goal; t++) {
    const i = hash3(pd.seed ^ fam.salt ^ SPIKE_SALT, day, t) % pd.n;
    if (!isActive(pd, i, day)) continue;
    const h = ofKind(hash3(t, day, pd.seed ^ fam.salt ^ SPIKE_SALT ^ i), spike.kind, spike.kinds);
    if (fam.payload(pd, i, day, h) === undefined) continue;
    sec[count] = h % SECONDS_PER_DAY;
    client[count] = i;
    hash[count] = h;
    count++;
  }
  // Stable sort by time: equal seconds keep sampling order, so the order is deterministic.
  const order = Array.from({ length: count }, (_, k) => k).sort((a, b) => sec[a]! - sec[b]!);
  const start = msOfDay(day);
  const picks: DayPicks = {
    day,
    dayPrefix: `${formatDay(day)}T`,
    count,
    ms: new Float64Array(count),
    client: new Int32Array(count),
    hash: new Uint32Array(count),
  };
  order.forEach((k, j) => {
    picks.ms[j] = start + sec[k]! * 1000;
    picks.client[j] = client[k]!;
    picks.hash[j] = hash[k]!;
  });
  return picks;
}

/** How many of the day's lines exist at `nowMs` (all of them for a finished day). */
export function linesUpTo(ms: Float64Array, nowMs: number): number {
  let lo = 0;
  let hi = ms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ms[mid]! <= nowMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const two = (v: number) => (v < 10 ? `0${v}` : String(v));

/** `YYYY-MM-DDTHH:MM:SS` (UTC, no offset) without a Date per line. */
function timestamp(picks: DayPicks, k: number): string {
  const sec = (picks.ms[k]! - msOfDay(picks.day)) / 1000;
  return `${picks.dayPrefix}${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}:${two(sec % 60)}`;
}

/** Cells of line k in the family's column order. */
export function lineCells(pd: ProductData, fam: Family, picks: DayPicks, k: number): string[] {
  const i = picks.client[k]!;
  const payload = fam.payload(pd, i, picks.day, picks.hash[k]!) ?? ['', '', ''];
  return [timestamp(picks, k), ...clientCells(pd, i, picks.day), ...payload];
}

const countMemo = new WeakMap<ProductData, Map<string, Int32Array>>();

/** Lines of a whole day, memoised per product and family (listings ask for hundreds of days at a time). */
export function dayLineCount(pd: ProductData, fam: Family, day: Day): number {
  if (day < pd.firstDay || day > pd.today) return 0;
  let byFamily = countMemo.get(pd);
  if (!byFamily) {
    byFamily = new Map();
    countMemo.set(pd, byFamily);
  }
  let counts = byFamily.get(fam.id);
  if (!counts) {
    counts = new Int32Array(pd.today - pd.firstDay + 1).fill(-1);
    byFamily.set(fam.id, counts);
  }
  const at = day - pd.firstDay;
  if (counts[at]! < 0) counts[at] = dayPicks(pd, fam, day).count;
  return counts[at]!;
}

/** Newest `lineCount` lines up to `nowMs`, oldest first, walking back from `today`. */
export function lastLines(pd: ProductData, fam: Family, lineCount: number, today: Day, nowMs: number): string[][] {
  const newestFirst: string[][] = [];
  for (let day = Math.min(today, pd.today); day >= pd.firstDay && newestFirst.length < lineCount; day--) {
    if (dayLineCount(pd, fam, day) === 0) continue;
    const picks = dayPicks(pd, fam, day);
    for (let k = linesUpTo(picks.ms, nowMs) - 1; k >= 0 && newestFirst.length < lineCount; k--)
      newestFirst.push(lineCells(pd, fam, picks, k));
  }
  return newestFirst.reverse();
}
