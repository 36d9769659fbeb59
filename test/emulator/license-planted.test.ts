import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, parseDay } from '../../emulator/data/dates.ts';
import {
  HOSTILE_KEY_TEXT,
  PLANTED,
  PLANTED_KEYS,
  type PlantedName,
  plantedIndex,
} from '../../emulator/data/license-registry.ts';
import type { ProductData } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

const today = parseDay(TEST_TODAY)!;
let emu: Emulator;
let s: TestSession;
const pd = (): ProductData => emu.state.products.get(s.productId)!;

beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
});
afterAll(() => emu.close());

const NAMES = [...PLANTED, ...(Object.keys(PLANTED_KEYS) as PlantedName[])];
const keyText = (name: PlantedName) => pd().registry.records[plantedIndex(pd().registry, name)]!.licenseKey;

/** Independent count from the data model: clients holding record k with an active day in [from, to]. */
function activeClients(k: number, from: number, to: number): number {
  const p = pd();
  let count = 0;
  for (let i = 0; i < p.n; i++) {
    if (p.licenseKeyIndex[i] !== k) continue;
    for (let d = Math.max(from, p.firstDay); d <= to; d++) {
      const bit = d - p.firstDay;
      if ((p.activity[i * p.words + (bit >>> 5)]! >>> (bit & 31)) & 1) {
        count++;
        break;
      }
    }
  }
  return count;
}

async function record(key: string) {
  const r = await s.post('/v3/license-key-registry', { filters: { licenseKey: { type: 'string', value: key } } });
  expect(r.status, r.text).toBe(200);
  expect(r.json.result).toHaveLength(1);
  return r.json.result[0];
}

/**
 * Active clients per key over [from, to], as the alerts read them: dateRangeReport filtered on the keys, level1
 * licenseKey.
 */
async function activePerKey(keys: string[], from: number, to: number): Promise<Map<string, number>> {
  const r = await s.post('/v3/reporting/generic/dateRange', {
    startDate: formatDay(from),
    stopDate: formatDay(to),
    clientStatus: ['active'],
    globalFilters: { licenseKey: { type: 'stringArray', value: keys } },
    levels: { level1: { property: 'licenseKey' } },
  });
  expect(r.status, r.text).toBe(200);
  const level1 = (r.json.result.level1 ?? {}) as Record<string, { totals: { active: number } }>;
  return new Map(keys.map((key) => [key, level1[key]?.totals.active ?? 0]));
}

describe('planted license keys', () => {
  it('keeps the first planted keys at the start and finds the fixed-text ones by name', () => {
    const reg = pd().registry;
    PLANTED.forEach((name, k) => {
      expect(plantedIndex(reg, name)).toBe(k);
    });
    for (const [name, key] of Object.entries(PLANTED_KEYS)) {
      expect(reg.records[plantedIndex(reg, name as PlantedName)]!.licenseKey).toBe(key);
    }
  });

  it('plants trials, expired-in-use, heavy, dormant and hostile keys with the usage they describe', async () => {
    const days = (date: string) => parseDay(date)! - today;
    const ending = await record(PLANTED_KEYS.trialEnding);
    expect([ending.licenseType, days(ending.expiryDate), ending.licenseStatus.expired]).toEqual(['trial', 7, false]);
    expect(days(ending.lastSeenDate)).toBeGreaterThanOrEqual(-2);
    const lost = await record(PLANTED_KEYS.trialExpired);
    expect([lost.licenseType, days(lost.expiryDate), lost.licenseStatus.expired]).toEqual(['trial', -2, true]);
    expect(lost.lastSeenDate < lost.expiryDate).toBe(true);
    const leak = await record(PLANTED_KEYS.expiredInUse);
    expect([days(leak.expiryDate), leak.licenseStatus.expired, leak.clientCount]).toEqual([-10, true, 2]);
    expect(leak.lastSeenDate > leak.expiryDate).toBe(true);
    const heavy = await record(PLANTED_KEYS.heavyIn30);
    expect([days(heavy.expiryDate), heavy.quota, heavy.overQuotaCount]).toEqual([30, 10, heavy.clientCount - 10]);
    const heavyK = plantedIndex(pd().registry, 'heavyIn30');
    expect(activeClients(heavyK, today - 29, today)).toBeGreaterThanOrEqual(5);
    const dormant = await record(PLANTED_KEYS.dormantIn14);
    const dormantK = plantedIndex(pd().registry, 'dormantIn14');
    expect(days(dormant.expiryDate)).toBe(14);
    expect(dormant.clientCount).toBeGreaterThan(0);
    expect(activeClients(dormantK, today - 29, today)).toBe(0);
    expect(activeClients(dormantK, today - 59, today - 30)).toBeGreaterThan(0);
    const hostile = await record(HOSTILE_KEY_TEXT);
    expect(hostile.licenseKey).toBe(HOSTILE_KEY_TEXT);
    expect(HOSTILE_KEY_TEXT).toMatch(/^=.*<script>.*".*'.*#.* .*\u{1F600}/u);
    expect((await record(PLANTED_KEYS.hostileType)).licenseType).toBe('<img src=x onerror=alert(1)>');
    expect((await record(PLANTED_KEYS.formulaType)).licenseType).toBe('=HYPERLINK("http://x")');
    for (const key of Object.values(PLANTED_KEYS)) {
      const r = await record(key);
      expect([r.licenseStatus.activated, r.licenseStatus.allowed, r.licenseStatus.blocked], key).toEqual([
        true,
        true,
        false,
      ]);
    }
  });

  it('dateRange by licenseKey counts each planted key like the registry and the data model', async () => {
    const keys = NAMES.map(keyText);
    const ids = NAMES.map((name) => plantedIndex(pd().registry, name));
    const windows = [
      [today - 29, today],
      [today - 59, today - 30],
      [pd().firstDay, today],
    ] as const;
    for (const [from, to] of windows) {
      const got = await activePerKey(keys, from, to);
      keys.forEach((key, j) => {
        expect(got.get(key), `${key} ${formatDay(from)}…${formatDay(to)}`).toBe(activeClients(ids[j]!, from, to));
      });
    }
    // Over the whole history every client of a key is active, so the report gives the registry's clientCount; the
    // last day with an active client is the registry's lastSeenDate.
    const all = await activePerKey(keys, pd().firstDay, today);
    for (const key of keys) {
      const r = await record(key);
      expect(all.get(key), key).toBe(r.clientCount);
      const last = parseDay(r.lastSeenDate)!;
      expect((await activePerKey([key], last, today)).get(key), key).toBeGreaterThan(0);
      if (last < today) expect((await activePerKey([key], last + 1, today)).get(key), key).toBe(0);
    }
  });
});
