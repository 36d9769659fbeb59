/**
 * The bulk of a big license registry (the `registryKeys` option, for the bench): keys beyond the generated ones that
 * no client reports. They are derived from their number on demand, like activity.ts derives sessions, so a registry of
 * millions of keys costs no start-up time and no memory; only keys an upsert changed are stored (`overrides`).
 *
 * Record ids: below BULK_BASE an id indexes `registry.records`; BULK_BASE + j is bulk key j. Bulk key texts are
 * `BULK-` and seven digits of j in an alphabet sorted by code point, so their key order is their number order and
 * the search never sorts them.
 */
import type { Day } from './dates.ts';
import type { LicenseKeyRecord, LicenseRegistry } from './model.ts';
import { hash3 } from './rng.ts';

export const BULK_BASE = 0x4000_0000;
const DIGITS = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'; // ascending code points
const WIDTH = 7;
const PREFIX = 'BULK-';
/** The most bulk keys the key format holds (32^7); options.ts allows far fewer. */
export const MAX_BULK_KEYS = 32 ** WIDTH;

export function bulkKeyText(j: number): string {
  let s = '';
  for (let p = 0, x = j; p < WIDTH; p++, x = Math.floor(x / 32)) s = DIGITS[x % 32]! + s;
  return PREFIX + s;
}

/** Bulk number of `key`, or undefined when `key` is not one of the `count` bulk keys. */
function bulkNumberOf(key: string, count: number): number | undefined {
  if (key.length !== PREFIX.length + WIDTH || !key.startsWith(PREFIX)) return undefined;
  let j = 0;
  for (let p = PREFIX.length; p < key.length; p++) {
    const d = DIGITS.indexOf(key[p]!);
    if (d < 0) return undefined;
    j = j * 32 + d;
  }
  return j < count ? j : undefined;
}

/** Bulk key j as generated: fields drawn from a hash of (seed, j), in the proportions of the generated keys. */
function derivedRecord(seed: number, today: Day, j: number): LicenseKeyRecord {
  const h1 = hash3(seed, j, 1);
  const h2 = hash3(seed, j, 2);
  const h3 = hash3(seed, j, 3);
  const t = h1 % 100;
  const licenseType = t < 60 ? 'purchased' : t < 82 ? 'trial' : t < 95 ? 'subscription' : 'freeware';
  let expiryDate: Day | null;
  if (licenseType === 'trial') expiryDate = today - 200 + (h2 % 231);
  else if (licenseType === 'freeware' || (h2 >>> 8) % 100 < 45) expiryDate = null;
  else expiryDate = today - 300 + ((h2 >>> 16) % 701);
  const blocked = h3 % 100 < 2;
  return {
    licenseKey: bulkKeyText(j),
    licenseType,
    licenseStatus: { activated: false, allowed: !blocked, blocked, expired: expiryDate !== null && expiryDate < today },
    expiryDate,
    addedDate: today - ((h3 >>> 8) % 400),
    autoCollected: false,
    quota: licenseType === 'purchased' && (h3 >>> 16) % 10 < 7 ? 1 + ((h3 >>> 20) % 10) : null,
  };
}

export const registrySize = (reg: LicenseRegistry): number => reg.records.length + reg.bulk.count;

/** The record with id k (see the top); a bulk record not yet changed is built afresh on each call. */
export function recordOf(reg: LicenseRegistry, k: number): LicenseKeyRecord {
  if (k < BULK_BASE) return reg.records[k]!;
  const { seed, today, overrides } = reg.bulk;
  return overrides.get(k) ?? derivedRecord(seed, today, k - BULK_BASE);
}

/** Id of `key`, or undefined when the registry does not hold it. */
export function findKey(reg: LicenseRegistry, key: string): number | undefined {
  const k = reg.index.get(key);
  if (k !== undefined) return k;
  const j = bulkNumberOf(key, reg.bulk.count);
  return j === undefined ? undefined : BULK_BASE + j;
}

/** The record with id k, stored so that changes to it last (bulk keys get an override on first change). */
export function storedRecord(reg: LicenseRegistry, k: number): LicenseKeyRecord {
  if (k < BULK_BASE) return reg.records[k]!;
  let rec = reg.bulk.overrides.get(k);
  if (!rec) {
    rec = recordOf(reg, k);
    reg.bulk.overrides.set(k, rec);
  }
  return rec;
}
