import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCodePoints } from '../../emulator/data/strings.ts';
import type { Emulator } from '../../emulator/index.ts';
import type { LicenseKeySearchResponse } from '../../src/client/families/license-keys.ts';
import { BadRequestError, ReportingClient } from '../../src/client/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let client: ReportingClient;
let wire: TestSession;
/** Read-only tests use the first product; the writes go to the last one, so key counts stay comparable. */
let readProduct: string;
let writeProduct: string;

const registryOf = (productId: string) => emu.state.products.get(productId)!.registry;
const keysInOrder = (productId: string) =>
  registryOf(productId)
    .records.map((r) => r.licenseKey)
    .sort(compareCodePoints);

async function collect(pages: AsyncIterable<LicenseKeySearchResponse>) {
  const out: { sizes: number[]; keys: string[] } = { sizes: [], keys: [] };
  for await (const page of pages) {
    out.sizes.push(page.result.length);
    out.keys.push(...page.result.map((r) => r.licenseKey!));
  }
  return out;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  client = new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials });
  wire = await signedIn(emu);
  readProduct = emu.products[0]!.productId;
  writeProduct = emu.products.at(-1)!.productId;
});

afterAll(async () => {
  await client.logout();
  await wire.call('POST', '/v3/auth/logout', {});
  await emu.close();
});

describe('searchLicenseKeys', () => {
  it('returns the page the service serves, typed', async () => {
    const body = { paging: { startAt: 5, limit: 7 } };
    const res = await client.searchLicenseKeys(readProduct, body);
    expect(res).toEqual((await wire.post('/v3/license-key-registry', body, readProduct)).json);
    expect(res.result).toHaveLength(7);
    expect(res.matchingKeysCount).toBe(registryOf(readProduct).records.length);
    expect(res.result.map((r) => r.licenseKey)).toEqual(keysInOrder(readProduct).slice(5, 12));
  });

  it('applies filters as the service does', async () => {
    const body = { filters: { licenseStatus: [{ blocked: true }, { expired: true }] } };
    const res = await client.searchLicenseKeys(readProduct, body);
    const expected = registryOf(readProduct).records.filter((r) => r.licenseStatus.blocked || r.licenseStatus.expired);
    expect(expected.length).toBeGreaterThan(0);
    expect(res.matchingKeysCount).toBe(expected.length);
    for (const r of res.result) expect(r.licenseStatus!.blocked || r.licenseStatus!.expired).toBe(true);
  });

  it('turns a rejected body into a BadRequestError naming the field', async () => {
    const err = await client.searchLicenseKeys(readProduct, { paging: { limit: 1001 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).serviceMessage).toMatch(/^paging\.limit/);
  });
});

describe('searchLicenseKeysPages', () => {
  it('walks every key exactly once, in key order', async () => {
    const all = keysInOrder(readProduct);
    const { sizes, keys } = await collect(client.searchLicenseKeysPages(readProduct, { paging: { limit: 30 } }));
    expect(keys).toEqual(all);
    expect(new Set(keys).size).toBe(all.length);
    expect(sizes).toEqual([30, 30, 30, all.length - 90]);
  });

  it('starts at paging.startAt and keeps the filters on every page', async () => {
    const filters = { autoCollected: true };
    const expected = registryOf(readProduct)
      .records.filter((r) => r.autoCollected)
      .map((r) => r.licenseKey)
      .sort(compareCodePoints);
    const { keys } = await collect(
      client.searchLicenseKeysPages(readProduct, { filters, paging: { startAt: 3, limit: 10 } }),
    );
    expect(keys).toEqual(expected.slice(3));
  });

  it('yields one empty page when nothing matches', async () => {
    const filters = { licenseKey: { type: 'string' as const, value: 'no such key' } };
    expect(await collect(client.searchLicenseKeysPages(readProduct, { filters }))).toEqual({ sizes: [0], keys: [] });
  });
});

describe('updateLicenseKeys and insertLicenseKeys', () => {
  it('inserts new keys, reports failed items, and the typed view matches the raw result', async () => {
    const before = registryOf(writeProduct).records.length;
    const res = await client.insertLicenseKeys(writeProduct, {
      keyUpdates: [
        { licenseKey: 'PULSE-TEST-A', licenseType: 'trial', quota: 3, expiryDate: '2027-01-31' },
        { licenseKey: 'PULSE-TEST-B' },
        { licenseKey: 'PULSE-TEST-C', expiryDate: 'not a date' },
      ],
    });
    expect(res.view).toEqual(res.result);
    expect(res.view).toMatchObject({ inserted: 2, updated: 0 });
    expect(res.view!.failed).toEqual([
      { licenseKey: 'PULSE-TEST-C', message: expect.stringMatching(/^keyUpdates\[2\]\.expiryDate/) },
    ]);
    expect(registryOf(writeProduct).records.length).toBe(before + 2);

    const found = await client.searchLicenseKeys(writeProduct, {
      filters: { licenseKey: { type: 'regex', value: '^PULSE-TEST-' } },
    });
    expect(found.result).toMatchObject([
      { licenseKey: 'PULSE-TEST-A', licenseType: 'trial', quota: 3, expiryDate: '2027-01-31', autoCollected: false },
      { licenseKey: 'PULSE-TEST-B', licenseType: 'unknown', quota: null, expiryDate: null, clientCount: 0 },
    ]);
  });

  it('updates an existing key with PATCH, merging status flags', async () => {
    const [target] = (await client.searchLicenseKeys(writeProduct, { paging: { limit: 1 } })).result;
    const flags = target!.licenseStatus!;
    const res = await client.updateLicenseKeys(writeProduct, {
      keyUpdates: [{ licenseKey: target!.licenseKey!, licenseStatus: { blocked: !flags.blocked } }],
    });
    expect(res.view).toEqual({ inserted: 0, updated: 1, failed: [] });
    const reg = registryOf(writeProduct);
    const stored = reg.records[reg.index.get(target!.licenseKey!)!]!;
    expect(stored.licenseStatus).toEqual({ ...flags, blocked: !flags.blocked });
  });

  it('walks the grown registry exactly once after the writes', async () => {
    const { keys } = await collect(client.searchLicenseKeysPages(writeProduct, { paging: { limit: 7 } }));
    expect(keys).toEqual(keysInOrder(writeProduct));
  });
});
