/**
 * The generated license key registry. Besides random keys it plants the cases the license jobs must find. Days are
 * relative to the data set's today; "recent" clients were last seen in the last 3 days.
 *
 * At the start of the registry, random key texts, found by position (`PLANTED.indexOf(name)`):
 *
 * | name            | type      | expiry        | clients                                                    |
 * |-----------------|-----------|---------------|------------------------------------------------------------|
 * | `expired`       | purchased | today − 3     | 1 recent (so also used after its expiry)                   |
 * | `in1` … `in60`  | purchased | today + 1, 7, 14, 30, 60 | 1 recent each                                   |
 * | `overQuota`     | purchased | today + 200   | 3 recent, quota 1 (overQuotaCount 2)                       |
 * | `blockedActive` | purchased | today + 300   | 1 recent; blocked, not allowed                             |
 *
 * After the random keys, fixed key texts (`PLANTED_KEYS`; find them with `plantedIndex`):
 *
 * | name           | key text                   | type                          | expiry     | clients (last seen)         |
 * |----------------|----------------------------|-------------------------------|------------|-----------------------------|
 * | `trialEnding`  | `TRIAL-ENDING-7D`          | trial                         | today + 7  | 2 recent                    |
 * | `trialExpired` | `TRIAL-EXPIRED-2D`         | trial                         | today − 2  | 1, 3–12 days ago (before expiry) |
 * | `expiredInUse` | `EXPIRED-IN-USE-10D`       | subscription                  | today − 10 | 2 recent (after expiry)     |
 * | `heavyIn30`    | `HEAVY-IN30`               | purchased, quota 10           | today + 30 | 6 in the last 7 days, 1 31–59 days ago |
 * | `dormantIn14`  | `DORMANT-IN14`             | purchased                     | today + 14 | 2, 31–59 days ago (none in the last 30) |
 * | `hostileKey`   | `HOSTILE_KEY_TEXT` below   | purchased                     | today + 7  | 1 recent                    |
 * | `hostileType`  | `HOSTILE-TYPE-IMG`         | `<img src=x onerror=alert(1)>` | today + 14 | 1 recent                   |
 * | `formulaType`  | `HOSTILE-TYPE-FORMULA`     | `=HYPERLINK("http://x")`      | today + 30 | 1 recent                    |
 *
 * All are allowed and not blocked; `expired` is set when the expiry is before today. Planted clients are picked by
 * their last-seen day without drawing from the random stream, so the random keys and their clients are the same as
 * before these keys were planted. Small products may lack clients for some; the first product (400+ clients) never.
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

/** A key text with everything an email or a CSV cell must neutralize: a formula start, markup, both quotes, `#`,
 * non-ASCII letters, a character beyond U+FFFF and spaces. */
export const HOSTILE_KEY_TEXT = `=1+1 <script>alert("key")</script> 'q' #frag Ünïcødé \u{1F600} end`;

interface Plant {
  key: string;
  type: string;
  expiry: number;
  quota?: number;
  /** Clients by last-seen day relative to today: [from, to] inclusive, how many. */
  clients: [from: number, to: number, count: number][];
}
const RECENT: [number, number, number] = [-2, 0, 1];
/** Fixed-text planted keys (see the top); the order is their order after the random keys. */
const MORE_NAMES = [
  'trialEnding',
  'trialExpired',
  'expiredInUse',
  'hostileKey',
  'hostileType',
  'formulaType',
  'heavyIn30',
  'dormantIn14',
] as const;
const MORE: Record<(typeof MORE_NAMES)[number], Plant> = {
  trialEnding: { key: 'TRIAL-ENDING-7D', type: 'trial', expiry: 7, clients: [[-2, 0, 2]] },
  trialExpired: { key: 'TRIAL-EXPIRED-2D', type: 'trial', expiry: -2, clients: [[-12, -3, 1]] },
  expiredInUse: { key: 'EXPIRED-IN-USE-10D', type: 'subscription', expiry: -10, clients: [[-2, 0, 2]] },
  hostileKey: { key: HOSTILE_KEY_TEXT, type: 'purchased', expiry: 7, clients: [RECENT] },
  hostileType: { key: 'HOSTILE-TYPE-IMG', type: '<img src=x onerror=alert(1)>', expiry: 14, clients: [RECENT] },
  formulaType: { key: 'HOSTILE-TYPE-FORMULA', type: '=HYPERLINK("http://x")', expiry: 30, clients: [RECENT] },
  heavyIn30: {
    key: 'HEAVY-IN30',
    type: 'purchased',
    expiry: 30,
    quota: 10,
    clients: [
      [-6, 0, 6],
      [-59, -31, 1],
    ],
  },
  dormantIn14: { key: 'DORMANT-IN14', type: 'purchased', expiry: 14, clients: [[-59, -31, 2]] },
};
export type PlantedName = (typeof PLANTED)[number] | (typeof MORE_NAMES)[number];
export const PLANTED_KEYS = Object.fromEntries(MORE_NAMES.map((name) => [name, MORE[name].key])) as Readonly<
  Record<(typeof MORE_NAMES)[number], string>
>;

/** Record id of a planted key, by name. */
export function plantedIndex(reg: LicenseRegistry, name: PlantedName): number {
  const at = (PLANTED as readonly string[]).indexOf(name);
  return at >= 0 ? at : reg.index.get(MORE[name as (typeof MORE_NAMES)[number]].key)!;
}

/**
 * Clients for the fixed-text planted keys: client number → record id. First fit in client order, skipping clients
 * already taken; only last-seen days are read, never the random stream.
 */
function reserveClients(first: number, today: Day, lastSeenDay: Int32Array, taken: Int32Array): Map<number, number> {
  const slots = MORE_NAMES.flatMap((name, j) =>
    MORE[name].clients.map(([from, to, count]) => ({
      key: first + j,
      from: today + from,
      to: today + to,
      left: count,
    })),
  );
  const reserved = new Map<number, number>();
  for (let i = 0; i < lastSeenDay.length && slots.some((s) => s.left > 0); i++) {
    if (taken[i] !== -1) continue;
    const slot = slots.find((s) => s.left > 0 && lastSeenDay[i]! >= s.from && lastSeenDay[i]! <= s.to);
    if (!slot) continue;
    slot.left--;
    reserved.set(i, slot.key);
  }
  return reserved;
}

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

  for (const p of MORE_NAMES.map((name) => MORE[name])) {
    index.set(p.key, records.length);
    records.push({
      licenseKey: p.key,
      licenseType: p.type,
      licenseStatus: { activated: false, allowed: true, blocked: false, expired: p.expiry < 0 },
      expiryDate: today + p.expiry,
      addedDate: today,
      autoCollected: true,
      quota: p.quota ?? null,
    });
  }

  const clientKey = new Int32Array(n).fill(-1);
  const clientType = new StringColumnBuilder(n);
  const clientCount = new Uint32Array(records.length);
  const lastSeen = new Int32Array(records.length).fill(-1);
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
  const reserved = reserveClients(k, today, lastSeenDay, clientKey);
  for (let i = 0; i < n; i++) {
    if (clientKey[i] !== -1) continue;
    // A reserved client draws as if it were not, so that the clients after it get the keys they always had.
    const planted = reserved.get(i);
    if (rng.chance(0.85)) {
      const drawn = PLANTED.length + (rng.u32() % (k - PLANTED.length));
      assign(i, planted ?? drawn);
    } else if (planted !== undefined) {
      rng.chance(0.5);
      assign(i, planted);
    } else clientType.set(i, rng.chance(0.5) ? 'freeware' : null);
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
