/**
 * The generated license key registry. Besides random keys it plants the cases the license alerts must find:
 * expired keys, keys expiring in exactly 1, 7, 14, 30 and 60 days, over-quota keys and blocked keys still in use.
 */
import { StringColumnBuilder } from './columns.ts';
import type { Day } from './dates.ts';
import type { LicenseKeyRecord, LicenseRegistry } from './model.ts';
import type { Rng } from './rng.ts';

const KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function keyText(rng: Rng): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let s = '';
    for (let c = 0; c < 5; c++) s += KEY_ALPHABET[rng.u32() % KEY_ALPHABET.length];
    groups.push(s);
  }
  return groups.join('-');
}

/** Planted keys, in this order, at the start of the generated registry. */
export const PLANTED = ['expired', 'in1', 'in7', 'in14', 'in30', 'in60', 'overQuota', 'blockedActive'] as const;
const PLANTED_EXPIRY: Record<(typeof PLANTED)[number], number | null> = {
  expired: -3,
  in1: 1,
  in7: 7,
  in14: 14,
  in30: 30,
  in60: 60,
  overQuota: 200,
  blockedActive: 300,
};

export interface GeneratedRegistry {
  registry: LicenseRegistry;
  /** Per client: index of its key in registry.records, or -1. */
  clientKey: Int32Array;
  /** Per client: license type recorded at install. */
  clientType: StringColumnBuilder;
}

export function generateRegistry(
  rng: Rng,
  n: number,
  today: Day,
  installDay: Int32Array,
  lastSeenDay: Int32Array,
): GeneratedRegistry {
  const k = Math.max(PLANTED.length + 12, Math.floor(n / 4));
  const records: LicenseKeyRecord[] = [];
  const index = new Map<string, number>();
  while (records.length < k) {
    const key = keyText(rng);
    if (index.has(key)) continue;
    const type = rng.weighted(['purchased', 'trial', 'subscription', 'freeware'], [60, 22, 13, 5]);
    const planted = PLANTED[records.length];
    let expiry: number | null;
    if (planted) expiry = today + (PLANTED_EXPIRY[planted] ?? 0);
    else if (type === 'trial') expiry = today + rng.int(-200, 30);
    else if (type === 'freeware' || rng.chance(0.45)) expiry = null;
    else expiry = today + rng.int(-300, 400);
    const blocked = planted === 'blockedActive' || (!planted && rng.chance(0.02));
    index.set(key, records.length);
    records.push({
      licenseKey: key,
      licenseType: planted ? 'purchased' : type,
      licenseStatus: { activated: false, allowed: !blocked, blocked, expired: expiry !== null && expiry < today },
      expiryDate: expiry,
      addedDate: today,
      autoCollected: rng.chance(0.8),
      quota: planted === 'overQuota' ? 1 : type === 'purchased' && rng.chance(0.7) ? rng.int(1, 10) : null,
    });
  }

  const clientKey = new Int32Array(n).fill(-1);
  const clientType = new StringColumnBuilder(n);
  const clientCount = new Uint32Array(k);
  const lastSeen = new Int32Array(k).fill(-1);
  const assign = (i: number, key: number) => {
    clientKey[i] = key;
    clientCount[key]! += 1;
    lastSeen[key] = Math.max(lastSeen[key]!, lastSeenDay[i]!);
    const rec = records[key]!;
    rec.addedDate = Math.min(rec.addedDate, installDay[i]!);
    rec.licenseStatus.activated = true;
    clientType.set(i, rec.licenseType);
  };
  // Planted keys get clients that make them meaningful: three for the over-quota key, a recent one for the rest.
  const recent: number[] = [];
  for (let i = 0; i < n && recent.length < PLANTED.length + 2; i++) if (lastSeenDay[i]! >= today - 2) recent.push(i);
  PLANTED.forEach((_p, key) => {
    const i = recent[key];
    if (i !== undefined) assign(i, key);
  });
  const overQuota = PLANTED.indexOf('overQuota');
  for (const i of recent.slice(PLANTED.length)) assign(i, overQuota);
  for (let i = 0; i < n; i++) {
    if (clientKey[i] !== -1) continue;
    if (rng.chance(0.85)) assign(i, PLANTED.length + (rng.u32() % (k - PLANTED.length)));
    else clientType.set(i, rng.chance(0.5) ? 'freeware' : null);
  }
  for (let key = 0; key < k; key++) {
    if (clientCount[key] === 0) records[key]!.addedDate = today - (rng.u32() % 400);
  }
  const bulk = { count: 0, seed: 0, today, overrides: new Map() }; // sized by generateAll
  return {
    registry: { records, index, clientCount, lastSeenDay: lastSeen, bulk, changed: new Set() },
    clientKey,
    clientType,
  };
}
