import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../emulator/data/strings.ts';
import { type Emulator, EmulatorConfigError } from '../../emulator/index.ts';
import { resolveOptions } from '../../emulator/options.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

const SEARCH = '/v3/license-key-registry';
const KEYS = 50_000;
const dataDir = mkdtempSync(join(tmpdir(), 'pulse-license-bulk-'));
let emu: Emulator;
let s: TestSession;

beforeAll(async () => {
  emu = await startTestEmulator({ registryKeys: KEYS, dataDir });
  s = await signedIn(emu);
});
afterAll(async () => {
  await emu.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Page {
  result: { licenseKey: string; licenseType: string; clientCount: number; quota: number | null }[];
  matchingKeysCount: number;
}
async function search(body: unknown): Promise<Page> {
  const r = await s.post(SEARCH, body);
  expect(r.status, r.text).toBe(200);
  return r.json as Page;
}
/** Every key, page after page at the maximum page size, with the count each page reported. */
async function pageAll(filters?: unknown): Promise<{ keys: string[]; counts: Set<number> }> {
  const keys: string[] = [];
  const counts = new Set<number>();
  for (let startAt = 0; ; startAt += 1000) {
    const page = await search({ ...(filters ? { filters } : {}), paging: { startAt, limit: 1000 } });
    counts.add(page.matchingKeysCount);
    keys.push(...page.result.map((r) => r.licenseKey));
    if (page.result.length < 1000) return { keys, counts };
  }
}
const inOrder = (keys: string[]) => keys.every((k, i) => i === 0 || compareCodePoints(keys[i - 1]!, k) < 0);
const upsert = (keyUpdates: unknown[]) =>
  s.post('/v3/license-key-registry/update', { keyUpdates }).then((r) => r.json.result);

describe('a registry of registryKeys keys', () => {
  it('pages through every key once, in code-point order, with an exact count', async () => {
    const { keys, counts } = await pageAll();
    expect(keys.length).toBeGreaterThanOrEqual(KEYS);
    expect(counts).toEqual(new Set([keys.length]));
    expect(new Set(keys).size).toBe(keys.length);
    expect(inOrder(keys)).toBe(true);
    // Generated keys (with clients) and bulk keys (without) are both there.
    const reg = emu.state.products.get(s.productId)!.registry;
    expect(keys).toContain(reg.records[0]!.licenseKey);
    expect(keys.filter((k) => k.startsWith('BULK-')).length).toBe(KEYS - reg.records.length);
    // The same pages with a filter that matches every key (a scan) give the same keys.
    expect((await pageAll({ licenseKey: { type: 'regex', value: '' } })).keys).toEqual(keys);
  });

  it('shows a key inserted between two pages in later searches, at its place', async () => {
    const before = await search({ paging: { startAt: 0, limit: 1000 } });
    const first = await search({ paging: { startAt: 20_000, limit: 1000 } });
    // A key that sorts right after the first key of that page, and one among the bulk keys.
    const inserted = [`${first.result[0]!.licenseKey}~`, 'BULK-2222222~'];
    expect(await upsert(inserted.map((licenseKey) => ({ licenseKey, licenseType: 'trial' })))).toMatchObject({
      inserted: 2,
    });
    const after = await search({ paging: { startAt: 20_000, limit: 1000 } });
    expect(after.matchingKeysCount).toBe(before.matchingKeysCount + 2);
    // 'BULK-2222222~' sorts before this page, so the page starts one key earlier and the new key follows its first.
    expect(after.result.slice(1, 3).map((r) => r.licenseKey)).toEqual([first.result[0]!.licenseKey, inserted[0]]);
    const { keys } = await pageAll();
    expect(keys.length).toBe(before.matchingKeysCount + 2);
    expect(inOrder(keys)).toBe(true);
    for (const key of inserted) expect(keys).toContain(key);
  });

  it('answers a licenseKey string or stringArray filter from the index exactly like a scan', async () => {
    const { keys } = await pageAll();
    const named = [keys[0]!, keys[777]!, keys[31_000]!, keys.at(-1)!, 'BULK-2222223', 'BULK-ZZZZZZZ', 'nope', '<NULL>'];
    const scan = (filters: object) => search({ filters, paging: { limit: 1000 } });
    const scanned = await scan({ licenseKey: { type: 'regex', value: scannedPattern(named) } });
    const indexed = await search({ filters: { licenseKey: { type: 'stringArray', value: named } } });
    expect(indexed).toEqual(scanned);
    expect(indexed.result.length).toBe(5); // 'BULK-ZZZZZZZ' is past the bulk keys; 'nope' and '<NULL>' match none
    const typed = { licenseType: { type: 'string', value: 'trial' } };
    const both = await search({ filters: { ...typed, licenseKey: { type: 'stringArray', value: named } } });
    expect(both).toEqual(await scan({ ...typed, licenseKey: { type: 'regex', value: scannedPattern(named) } }));
    const one = await search({ filters: { licenseKey: { type: 'string', value: keys[31_000] } } });
    expect(one.result.map((r) => r.licenseKey)).toEqual([keys[31_000]]);
    const paged = await search({
      filters: { licenseKey: { type: 'stringArray', value: named } },
      paging: { startAt: 2, limit: 2 },
    });
    expect(paged).toEqual({ result: indexed.result.slice(2, 4), matchingKeysCount: 5 });
  });

  it('keeps an upsert of a bulk key across a restart, writing only the changed records', async () => {
    const key = 'BULK-222222A';
    expect(await upsert([{ licenseKey: key, quota: 77, licenseType: 'enterprise' }])).toMatchObject({ updated: 1 });
    const want = await search({ paging: { startAt: 10_000, limit: 1000 } });
    await emu.close();
    emu = await startTestEmulator({ registryKeys: KEYS, dataDir });
    s = await signedIn(emu);
    expect(await search({ paging: { startAt: 10_000, limit: 1000 } })).toEqual(want);
    const got = await search({ filters: { licenseKey: { type: 'string', value: key } } });
    expect(got.result[0]).toMatchObject({ licenseKey: key, quota: 77, licenseType: 'enterprise', clientCount: 0 });
    const reg = emu.state.products.get(s.productId)!.registry;
    expect(reg.changed.size).toBe(3); // the two keys inserted above and this one
    expect(reg.bulk.overrides.size).toBe(1);
  });

  it('refuses an invalid registryKeys', () => {
    for (const registryKeys of [-1, 1.5, 100_000_001]) {
      expect(() => resolveOptions({ registryKeys })).toThrow(EmulatorConfigError);
    }
    expect(() => resolveOptions({ registryKeys: -1 })).toThrow(/^registryKeys: must be an integer/);
  });
});

const escapeRegex = (k: string) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const scannedPattern = (keys: string[]) => `^(${keys.map(escapeRegex).join('|')})$`;
