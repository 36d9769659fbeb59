/** Zod pieces shared by the response schemas of several families. */
import * as z from 'zod';

/** `YYYY-MM-DD` */
export const DateString = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');
/** `YYYY-MM-DDTHH:MM:SS` (UTC, no offset) */
export const Timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/, 'expected YYYY-MM-DDTHH:MM:SS');
export const Count = z.number().int().nonnegative();

/** An item of a response series: a single selector or a combination (docs/interface.md "Event selectors"). */
export const EventValue = z.union([
  z.looseObject({ category: z.string().nullable(), name: z.string(), value: z.number() }),
  z.looseObject({ combiLabel: z.string(), value: z.number() }),
]);
export type EventValue = z.output<typeof EventValue>;

/**
 * Bins keyed by label (docs/interface.md "Bins"). JSON.parse reorders integer-like keys: use `binEntries` to read them
 * in order.
 */
export const BinCounts = z.record(z.string(), z.number());

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Lower bound of a bin label (`≤ 5` → -∞, `6 - 8` → 6, `≥ 21` → 21, `0:31 - 1:00` → 31 minutes). */
export function binLowerBound(label: string): number {
  if (label.startsWith('≤')) return Number.NEGATIVE_INFINITY;
  const first = label.replace(/^≥\s*/, '').split(' - ')[0]!.trim();
  if (first.includes(':')) {
    const [h, m] = first.split(':');
    return Number(h) * 60 + Number(m);
  }
  const n = Number(first);
  return Number.isNaN(n) ? Number.POSITIVE_INFINITY : n;
}

/** Bins of an object in their intended ascending order (re-sorted by parsed lower bound). */
export function binEntries<T>(bins: Record<string, T>): [string, T][] {
  return Object.entries(bins).sort(([a], [b]) => binLowerBound(a) - binLowerBound(b));
}
