/**
 * The registry as the wire sees it (docs/interface.md "License key registry"): the LicenseKeyRecord shape with derived
 * counts, and the key order (code points) that search results follow.
 */

import { type Day, formatDay } from '../../data/dates.ts';
import { BULK_BASE, bulkKeyText, recordOf } from '../../data/license-bulk.ts';
import type { LicenseRegistry, LicenseStatus } from '../../data/model.ts';
import { compareCodePoints } from '../../data/strings.ts';

export const LICENSE_FLAGS = [
  'activated',
  'allowed',
  'blocked',
  'expired',
] as const satisfies readonly (keyof LicenseStatus)[];

/** Distinct clients reporting record k; records added after generation have none. */
export const clientCountOf = (reg: LicenseRegistry, k: number): number => reg.clientCount[k] ?? 0;

export function lastSeenOf(reg: LicenseRegistry, k: number): Day | null {
  const d = reg.lastSeenDay[k] ?? -1;
  return d < 0 ? null : d;
}

/** `clientCount − quota`; 0 when the key has no quota. */
export function overQuotaOf(reg: LicenseRegistry, k: number): number {
  const quota = recordOf(reg, k).quota;
  return quota === null ? 0 : clientCountOf(reg, k) - quota;
}

export function wireRecord(reg: LicenseRegistry, k: number) {
  const r = recordOf(reg, k);
  const lastSeen = lastSeenOf(reg, k);
  return {
    licenseKey: r.licenseKey,
    licenseType: r.licenseType,
    licenseStatus: { ...r.licenseStatus },
    expiryDate: r.expiryDate === null ? null : formatDay(r.expiryDate),
    addedDate: formatDay(r.addedDate),
    autoCollected: r.autoCollected,
    quota: r.quota,
    clientCount: clientCountOf(reg, k),
    overQuotaCount: overQuotaOf(reg, k),
    lastSeenDate: lastSeen === null ? null : formatDay(lastSeen),
  };
}

/**
 * Record ids in key order, cached per registry. Keys never change once added, so the cache only has to take in
 * appended records: they are sorted on their own and merged, instead of re-sorting the whole registry per insert.
 * Bulk keys are in key order already; they are spliced in by binary search, never compared one by one.
 */
const orderCache = new WeakMap<LicenseRegistry, { stored: Int32Array; all: Int32Array }>();

export function keyOrder(reg: LicenseRegistry): Int32Array {
  const cached = orderCache.get(reg);
  if (cached?.stored.length === reg.records.length) return cached.all;
  const stored = storedOrder(reg, cached?.stored);
  const all = withBulk(reg, stored);
  orderCache.set(reg, { stored, all });
  return all;
}

function storedOrder(reg: LicenseRegistry, cached: Int32Array | undefined): Int32Array {
  const recs = reg.records;
  const old = cached && cached.length < recs.length ? cached : new Int32Array(0);
  const added = Array.from({ length: recs.length - old.length }, (_, j) => old.length + j);
  const cmp = (a: number, b: number) => compareCodePoints(recs[a]!.licenseKey, recs[b]!.licenseKey);
  added.sort(cmp);
  const order = new Int32Array(recs.length);
  let i = 0;
  let j = 0;
  for (let o = 0; o < order.length; o++) {
    const takeOld = j >= added.length || (i < old.length && cmp(old[i]!, added[j]!) < 0);
    order[o] = takeOld ? old[i++]! : added[j++]!;
  }
  return order;
}

/** `stored` (ids of `records` in key order) merged with the bulk ids: each stored key goes before the first bulk
 * key above it, found by binary search over the bulk numbers. */
function withBulk(reg: LicenseRegistry, stored: Int32Array): Int32Array {
  const count = reg.bulk.count;
  if (count === 0) return stored;
  const all = new Int32Array(stored.length + count);
  let o = 0;
  let j = 0; // next bulk number to place
  const lastBulk = bulkKeyText(count - 1);
  for (const k of stored) {
    const key = reg.records[k]!.licenseKey;
    // Most stored keys sort before or after every bulk key: no search for those.
    const after = compareCodePoints(lastBulk, key) < 0;
    let lo = after ? count : j;
    let hi = after || j === count || compareCodePoints(bulkKeyText(j), key) >= 0 ? lo : count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareCodePoints(bulkKeyText(mid), key) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (; j < lo; j++) all[o++] = BULK_BASE + j;
    all[o++] = k;
  }
  for (; j < count; j++) all[o++] = BULK_BASE + j;
  return all;
}
