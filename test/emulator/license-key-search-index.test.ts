/**
 * searchLicenseKeys with a `licenseKey` string or stringArray filter answers from the registry's index (no scan): the
 * same records, order, count and paging as the filter applied to every record, combined with the other filters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
});
afterAll(() => emu?.close());

const search = async (body: unknown) => {
  const r = await s.post('/v3/license-key-registry', body);
  expect(r.status).toBe(200);
  return r.json as { result: { licenseKey: string; autoCollected: boolean }[]; matchingKeysCount: number };
};

describe('licenseKey lookups by index', () => {
  it('answer as the scan does: key order, repeats and unknown keys ignored, other filters applied, paged', async () => {
    const all = (await search({ paging: { limit: 1000 } })).result.map((r) => r.licenseKey);
    const picked = [all[7]!, all[2]!, 'NO-SUCH-KEY', all[7]!, all[30]!, all[11]!];
    const byIndex = await search({ filters: { licenseKey: { type: 'stringArray', value: picked } } });
    expect(byIndex.result.map((r) => r.licenseKey)).toEqual([all[2], all[7], all[11], all[30]]);
    expect(byIndex.matchingKeysCount).toBe(4);
    // The regex kind still scans: the same answer.
    const pattern = `^(${[all[2], all[7], all[11], all[30]].map((k) => k!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`;
    const scanned = await search({ filters: { licenseKey: { type: 'regex', value: pattern } } });
    expect(scanned.result).toEqual(byIndex.result);
    const paged = await search({
      filters: { licenseKey: { type: 'stringArray', value: picked } },
      paging: { startAt: 1, limit: 2 },
    });
    expect(paged.result.map((r) => r.licenseKey)).toEqual([all[7], all[11]]);
    expect(paged.matchingKeysCount).toBe(4);
    const combined = await search({
      filters: { licenseKey: { type: 'stringArray', value: picked }, autoCollected: !byIndex.result[0]!.autoCollected },
    });
    expect(combined.result.every((r) => r.autoCollected !== byIndex.result[0]!.autoCollected)).toBe(true);
    const one = await search({ filters: { licenseKey: { type: 'string', value: all[5] } } });
    expect(one.result.map((r) => r.licenseKey)).toEqual([all[5]]);
    expect((await search({ filters: { licenseKey: { type: 'stringArray', value: [] } } })).matchingKeysCount).toBe(0);
  });
});
