/**
 * The registry as the wire sees it (api-shapes §9): the LicenseKeyRecord shape with derived counts, and the
 * key order (code points) that search results follow.
 */
import { type Day, formatDay } from '../../data/dates.ts';
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
  const quota = reg.records[k]!.quota;
  return quota === null ? 0 : clientCountOf(reg, k) - quota;
}

export function wireRecord(reg: LicenseRegistry, k: number) {
  const r = reg.records[k]!;
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
 * Record indexes in key order, cached per registry. Keys never change once added, so the cache only has to take in
 * appended records: they are sorted on their own and merged, instead of re-sorting the whole registry per insert.
 */
const orderCache = new WeakMap<LicenseRegistry, Int32Array>();

export function keyOrder(reg: LicenseRegistry): Int32Array {
  const recs = reg.records;
  const cached = orderCache.get(reg);
  if (cached?.length === recs.length) return cached;
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
  orderCache.set(reg, order);
  return order;
}
