import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, parseDay } from '../../emulator/data/dates.ts';
import { PLANTED } from '../../emulator/data/license-registry.ts';
import type { LicenseKeyRecord, ProductData } from '../../emulator/data/model.ts';
import type { Emulator } from '../../emulator/index.ts';
import { parseGlobalFilters } from '../../emulator/query/filters.ts';
import { signedIn, startTestEmulator, TEST_TODAY, TestSession } from '../helpers/emulator-session.ts';

const SEARCH = '/v3/license-key-registry';
const UPDATE = '/v3/license-key-registry/update';
const today = parseDay(TEST_TODAY)!;
const dataDir = mkdtempSync(join(tmpdir(), 'pulse-license-'));
let emu: Emulator;
let s: TestSession;
const pd = (): ProductData => emu.state.products.get(s.productId)!;
const reg = () => pd().registry;

beforeAll(async () => {
  emu = await startTestEmulator({ dataDir });
  s = await signedIn(emu);
});
afterAll(async () => {
  await emu.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// Independent re-statements of the registry rules (docs/interface.md "License key registry"), computed straight from
// the registry.
const byCodePoints = (a: string, b: string) => {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};
const clients = (k: number) => (k < reg().clientCount.length ? reg().clientCount[k]! : 0);
const over = (r: LicenseKeyRecord, k: number) => (r.quota === null ? 0 : clients(k) - r.quota);
function expected(k: number) {
  const r = reg().records[k]!;
  const last = k < reg().lastSeenDay.length ? reg().lastSeenDay[k]! : -1;
  return {
    licenseKey: r.licenseKey,
    licenseType: r.licenseType,
    licenseStatus: r.licenseStatus,
    expiryDate: r.expiryDate === null ? null : formatDay(r.expiryDate),
    addedDate: formatDay(r.addedDate),
    autoCollected: r.autoCollected,
    quota: r.quota,
    clientCount: clients(k),
    overQuotaCount: over(r, k),
    lastSeenDate: last < 0 ? null : formatDay(last),
  };
}
const expectedKeys = (keep: (r: LicenseKeyRecord, k: number) => boolean) =>
  reg()
    .records.flatMap((r, k) => (keep(r, k) ? [r.licenseKey] : []))
    .sort(byCodePoints);
const keyOf = (k: number) => reg().records[k]!.licenseKey;
const indexOf = (key: string) => reg().index.get(key)!;

async function search(filters: unknown, paging: unknown = { limit: 1000 }) {
  const r = await s.post(SEARCH, { filters, paging });
  expect(r.status, r.text).toBe(200);
  return r.json as { result: ReturnType<typeof expected>[]; matchingKeysCount: number };
}
async function expectFilter(filters: unknown, keep: (r: LicenseKeyRecord, k: number) => boolean) {
  const want = expectedKeys(keep);
  const got = await search(filters);
  expect(got.result.map((x) => x.licenseKey)).toEqual(want);
  expect(got.matchingKeysCount).toBe(want.length);
  return got;
}
const upsert = (body: unknown, method: 'POST' | 'PATCH' = 'POST') => s.call(method, `${UPDATE}/${s.productId}`, body);

describe('searchLicenseKeys', () => {
  it('returns the first 100 records in code-point order, with the wire shape', async () => {
    const r = await s.post(SEARCH);
    expect(r.status).toBe(200);
    const all = expectedKeys(() => true);
    expect(r.json.matchingKeysCount).toBe(reg().records.length);
    expect(r.json.result).toEqual(all.slice(0, 100).map((key) => expected(indexOf(key))));
  });

  it('pages through the ordered matches; a startAt past the end returns []', async () => {
    const all = expectedKeys(() => true);
    for (const paging of [{ startAt: 0, limit: 7 }, { startAt: 13, limit: 1 }, { startAt: 5 }, { limit: 1000 }]) {
      const got = await search(undefined, paging);
      const start = paging.startAt ?? 0;
      expect(got.result.map((x) => x.licenseKey)).toEqual(all.slice(start, start + (paging.limit ?? 100)));
      expect(got.matchingKeysCount).toBe(all.length);
    }
    const past = await search({ licenseType: { type: 'string', value: 'trial' } }, { startAt: all.length });
    expect(past.result).toEqual([]);
    expect(past.matchingKeysCount).toBe(expectedKeys((r) => r.licenseType === 'trial').length);
  });

  it('finds every planted key relative to the emulator today', async () => {
    const planted = (name: (typeof PLANTED)[number]) => keyOf(PLANTED.indexOf(name));
    const expired = await expectFilter({ expiryDate: { type: 'dateRange', max: formatDay(today - 1) } }, (r) =>
      r.expiryDate === null ? false : r.expiryDate < today,
    );
    expect(expired.result.map((x) => x.licenseKey)).toContain(planted('expired'));
    const flagged = await expectFilter({ licenseStatus: [{ expired: true }] }, (r) => r.licenseStatus.expired);
    expect(flagged.result.map((x) => x.licenseKey)).toContain(planted('expired'));
    for (const [name, days] of [
      ['in1', 1],
      ['in7', 7],
      ['in14', 14],
      ['in30', 30],
      ['in60', 60],
    ] as const) {
      const got = await expectFilter(
        { expiryDate: { type: 'date', value: formatDay(today + days) } },
        (r) => r.expiryDate === today + days,
      );
      expect(got.result.map((x) => x.licenseKey)).toContain(planted(name));
    }
    const overQuota = await expectFilter(
      { overQuotaCount: { type: 'numberRange', min: 1 } },
      (r, k) => over(r, k) >= 1,
    );
    const oq = overQuota.result.find((x) => x.licenseKey === planted('overQuota'))!;
    expect(oq.quota).toBe(1);
    expect(oq.clientCount).toBeGreaterThan(1);
    const blocked = await expectFilter(
      { licenseStatus: [{ blocked: true, activated: true }] },
      (r) => r.licenseStatus.blocked && r.licenseStatus.activated,
    );
    const ba = blocked.result.find((x) => x.licenseKey === planted('blockedActive'))!;
    expect(ba.lastSeenDate! >= formatDay(today - 2)).toBe(true);
  });

  it('matches each filter kind like an independent pass over the registry', async () => {
    const [a, b, c] = [keyOf(20), keyOf(31), keyOf(42)];
    const day = reg().records[25]!.addedDate;
    await expectFilter({ licenseKey: { type: 'string', value: a } }, (r) => r.licenseKey === a);
    await expectFilter({ licenseKey: { type: 'stringArray', value: [a, b, c, 'nope', '<NULL>'] } }, (r) =>
      [a, b, c].includes(r.licenseKey),
    );
    await expectFilter({ licenseKey: { type: 'regex', value: '^[A-H].*-[2-5]' } }, (r) =>
      /^[A-H].*-[2-5]/.test(r.licenseKey),
    );
    await expectFilter({ licenseType: { type: 'string', value: 'purchased' } }, (r) => r.licenseType === 'purchased');
    await expectFilter({ licenseType: { type: 'stringArray', value: ['trial', 'freeware'] } }, (r) =>
      ['trial', 'freeware'].includes(r.licenseType),
    );
    await expectFilter({ licenseType: { type: 'regex', value: 'scr' } }, (r) => r.licenseType.includes('scr'));
    await expectFilter({ addedDate: { type: 'date', value: formatDay(day) } }, (r) => r.addedDate === day);
    await expectFilter(
      { addedDate: { type: 'dateRange', min: formatDay(today - 100), max: formatDay(today - 10) } },
      (r) => r.addedDate >= today - 100 && r.addedDate <= today - 10,
    );
    await expectFilter({ expiryDate: { type: 'date', value: '<NULL>' } }, (r) => r.expiryDate === null);
    await expectFilter({ expiryDate: { type: 'dateRange', min: TEST_TODAY } }, (r) => (r.expiryDate ?? -1) >= today);
    await expectFilter({ autoCollected: false }, (r) => !r.autoCollected);
    await expectFilter({ autoCollected: { type: 'boolean', value: true } }, (r) => r.autoCollected);
    await expectFilter({ overQuotaCount: { type: 'number', value: 0 } }, (r, k) => over(r, k) === 0);
    await expectFilter({ overQuotaCount: { type: 'numberRange', max: -2 } }, (r, k) => over(r, k) <= -2);
    await expectFilter(
      { licenseStatus: [{ blocked: true }, { expired: true, allowed: true, activated: true }] },
      (r) =>
        r.licenseStatus.blocked || (r.licenseStatus.expired && r.licenseStatus.allowed && r.licenseStatus.activated),
    );
    await expectFilter(
      {
        licenseType: { type: 'string', value: 'purchased' },
        expiryDate: { type: 'date', value: '<NULL>' },
        autoCollected: true,
      },
      (r) => r.licenseType === 'purchased' && r.expiryDate === null && r.autoCollected,
    );
  });

  it('answers 400 naming the field, 404 for an unknown product, 401 without a session', async () => {
    const cases: [unknown, string][] = [
      [{ filters: [] }, 'filters: must be an object'],
      [{ filters: { clientCount: { type: 'number', value: 1 } } }, 'filters.clientCount: unknown filter clientCount'],
      [
        { filters: { licenseKey: { type: 'date', value: TEST_TODAY } } },
        'filters.licenseKey.type: must be one of string, stringArray, regex for licenseKey',
      ],
      [
        { filters: { overQuotaCount: { type: 'string', value: '1' } } },
        'filters.overQuotaCount.type: must be one of number, numberRange for overQuotaCount',
      ],
      [
        { filters: { licenseType: { type: 'stringArray', value: ['a', 1] } } },
        'filters.licenseType.value[1]: must be a string',
      ],
      [
        { filters: { licenseKey: { type: 'regex', value: '(' } } },
        'filters.licenseKey.value: invalid regular expression',
      ],
      [
        { filters: { addedDate: { type: 'date', value: '2026-02-30' } } },
        'filters.addedDate.value: invalid date (expected YYYY-MM-DD)',
      ],
      [{ filters: { expiryDate: { type: 'dateRange' } } }, 'filters.expiryDate: needs min or max'],
      [
        { filters: { overQuotaCount: { type: 'numberRange', min: 3, max: 1 } } },
        'filters.overQuotaCount.min: must not be greater than max',
      ],
      [{ filters: { autoCollected: 'yes' } }, 'filters.autoCollected: must be a boolean or a boolean filter'],
      [{ filters: { licenseStatus: {} } }, 'filters.licenseStatus: must be an array'],
      [{ filters: { licenseStatus: [] } }, 'filters.licenseStatus: must have at least 1 item(s)'],
      [
        { filters: { licenseStatus: [{ blocked: true }, { banned: true }] } },
        'filters.licenseStatus[1].banned: unknown flag',
      ],
      [{ filters: { licenseStatus: [{ blocked: 'yes' }] } }, 'filters.licenseStatus[0].blocked: must be a boolean'],
      [{ paging: { limit: 1001 } }, 'paging.limit: must be ≤ 1000'],
      [{ paging: { limit: 0 } }, 'paging.limit: must be ≥ 1'],
      [{ paging: { startAt: -1 } }, 'paging.startAt: must be ≥ 0'],
      [{ paging: { startAt: 1.5 } }, 'paging.startAt: must be an integer'],
      [{ paging: 5 }, 'paging: must be an object'],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(SEARCH, body);
      expect(r.status, message).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
    expect((await s.post(SEARCH, {}, '55555555555')).status).toBe(404);
    expect((await new TestSession(emu).post(SEARCH, {})).status).toBe(401);
  });
});

describe('updateLicenseKeys and insertLicenseKeys', () => {
  it('answers 400 only for the shape of the whole request, on PATCH and POST alike', async () => {
    const before = reg().records.length;
    const cases: [unknown, string][] = [
      [{}, 'keyUpdates: required'],
      [{ keyUpdates: { licenseKey: 'X' } }, 'keyUpdates: must be an array'],
      [{ keyUpdates: [] }, 'keyUpdates: must have at least 1 item(s)'],
      [
        { keyUpdates: Array.from({ length: 1001 }, (_, i) => ({ licenseKey: `BULK-${i}` })) },
        'keyUpdates: must have at most 1000 items',
      ],
    ];
    for (const method of ['POST', 'PATCH'] as const) {
      for (const [body, message] of cases) {
        const r = await upsert(body, method);
        expect(r.json).toEqual({ error: 'Bad Request', message });
      }
      const raw = await s.call(method, `${UPDATE}/${s.productId}`, undefined, { raw: '[{"licenseKey":"A"}]' });
      expect(raw.json).toEqual({ error: 'Bad Request', message: 'body: must be a JSON object' });
      expect((await s.call(method, `${UPDATE}/55555555555`, { keyUpdates: [{ licenseKey: 'A' }] })).status).toBe(404);
    }
    expect(reg().records.length).toBe(before);
  });

  it('inserts new keys with the defaults, ignoring read-only fields', async () => {
    const r = await upsert({
      keyUpdates: [
        {
          licenseKey: 'NEW-PLAIN',
          addedDate: '2020-01-01',
          autoCollected: true,
          clientCount: 9,
          lastSeenDate: TEST_TODAY,
        },
        {
          licenseKey: 'NEW-FULL',
          licenseType: 'trial',
          licenseStatus: { allowed: true },
          expiryDate: '2027-01-31',
          quota: 4,
        },
      ],
    });
    expect(r.json).toEqual({ result: { inserted: 2, updated: 0, failed: [] } });
    const got = await search({ licenseKey: { type: 'regex', value: '^NEW-' } });
    const defaults = { activated: false, allowed: false, blocked: false, expired: false };
    const common = { addedDate: TEST_TODAY, autoCollected: false, clientCount: 0, lastSeenDate: null };
    expect(got.result).toEqual([
      {
        licenseKey: 'NEW-FULL',
        licenseType: 'trial',
        licenseStatus: { ...defaults, allowed: true },
        expiryDate: '2027-01-31',
        quota: 4,
        overQuotaCount: -4,
        ...common,
      },
      {
        licenseKey: 'NEW-PLAIN',
        licenseType: 'unknown',
        licenseStatus: defaults,
        expiryDate: null,
        quota: null,
        overQuotaCount: 0,
        ...common,
      },
    ]);
    expect(got.result).toEqual(['NEW-FULL', 'NEW-PLAIN'].map((key) => expected(indexOf(key))));
    // Code-point order, not UTF-16 order: U+FF5E sorts before U+1F600 although its code unit is higher.
    await upsert({ keyUpdates: [{ licenseKey: 'ZZ-\u{1F600}' }, { licenseKey: 'ZZ-\uFF5E' }, { licenseKey: 'ZZ-~' }] });
    const zz = await search({ licenseKey: { type: 'regex', value: '^ZZ-' } });
    expect(zz.result.map((x) => x.licenseKey)).toEqual(['ZZ-~', 'ZZ-\uFF5E', 'ZZ-\u{1F600}']);
  });

  it('updates only the fields sent, merging licenseStatus flag by flag', async () => {
    const k = reg().records.findIndex((r, i) => i >= PLANTED.length && clients(i) > 0 && r.expiryDate !== null);
    const key = keyOf(k);
    const before = structuredClone(expected(k));
    const r = await upsert({ keyUpdates: [{ licenseKey: key, licenseStatus: { blocked: true, allowed: false } }] });
    expect(r.json.result).toEqual({ inserted: 0, updated: 1, failed: [] });
    const mid = (await search({ licenseKey: { type: 'string', value: key } })).result[0]!;
    expect(mid).toEqual({ ...before, licenseStatus: { ...before.licenseStatus, blocked: true, allowed: false } });
    await upsert({ keyUpdates: [{ licenseKey: key, expiryDate: null, quota: 1, licenseType: 'enterprise' }] }, 'PATCH');
    const after = (await search({ licenseKey: { type: 'string', value: key } })).result[0]!;
    expect(after).toEqual({
      ...mid,
      expiryDate: null,
      quota: 1,
      licenseType: 'enterprise',
      overQuotaCount: before.clientCount - 1,
    });
  });

  it('puts invalid items into failed and applies the rest; a repeated key counts as updated', async () => {
    const existing = keyOf(50);
    const typeBefore = reg().records[50]!.licenseType;
    const r = await upsert({
      keyUpdates: [
        { licenseKey: 'PARTIAL-1', quota: 2 },
        { licenseKey: 'PARTIAL-2', expiryDate: '2026-13-01' },
        { licenseType: 'trial' },
        { licenseKey: 42 },
        'not an object',
        { licenseKey: '' },
        { licenseKey: 'L'.repeat(257) },
        { licenseKey: existing, licenseType: 'changed', quota: -1 },
        { licenseKey: existing, quota: 1.5 },
        { licenseKey: existing, licenseStatus: { blocked: 'yes' } },
        { licenseKey: existing, licenseStatus: [] },
        { licenseKey: existing, licenseType: 7 },
        { licenseKey: 'PARTIAL-1', licenseType: 'trial' },
        { licenseKey: 'L'.repeat(256) },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.json.result.inserted).toBe(2);
    expect(r.json.result.updated).toBe(1);
    expect(r.json.result.failed).toEqual([
      { licenseKey: 'PARTIAL-2', message: 'keyUpdates[1].expiryDate: invalid date (expected YYYY-MM-DD)' },
      { licenseKey: null, message: 'keyUpdates[2].licenseKey: required' },
      { licenseKey: null, message: 'keyUpdates[3].licenseKey: must be a string' },
      { licenseKey: null, message: 'keyUpdates[4]: must be an object' },
      { licenseKey: '', message: 'keyUpdates[5].licenseKey: must be at least 1 characters' },
      { licenseKey: 'L'.repeat(257), message: 'keyUpdates[6].licenseKey: must be at most 256 characters' },
      { licenseKey: existing, message: 'keyUpdates[7].quota: must be ≥ 0' },
      { licenseKey: existing, message: 'keyUpdates[8].quota: must be an integer' },
      { licenseKey: existing, message: 'keyUpdates[9].licenseStatus.blocked: must be a boolean' },
      { licenseKey: existing, message: 'keyUpdates[10].licenseStatus: must be an object' },
      { licenseKey: existing, message: 'keyUpdates[11].licenseType: must be a string' },
    ]);
    expect(reg().records[50]!.licenseType).toBe(typeBefore);
    expect(reg().index.has('PARTIAL-2')).toBe(false);
    const got = await search({ licenseKey: { type: 'stringArray', value: ['PARTIAL-1', 'L'.repeat(256)] } });
    expect(got.result.map((x) => [x.licenseKey, x.licenseType, x.quota])).toEqual([
      ['L'.repeat(256), 'unknown', null],
      ['PARTIAL-1', 'trial', 2],
    ]);
  });

  it('PATCH and POST behave the same', async () => {
    const batch = (p: string) => [
      { licenseKey: `${p}-A`, licenseType: 'subscription', expiryDate: '2027-03-01' },
      { licenseKey: `${p}-A`, licenseStatus: { activated: true } },
      { licenseKey: `${p}-B`, quota: 'x' },
    ];
    const post = await upsert({ keyUpdates: batch('VIA-POST') }, 'POST');
    const patch = await upsert({ keyUpdates: batch('VIA-PATCH') }, 'PATCH');
    expect(post.json.result).toEqual({
      inserted: 1,
      updated: 1,
      failed: [{ licenseKey: 'VIA-POST-B', message: 'keyUpdates[2].quota: must be a number' }],
    });
    expect(patch.json).toEqual(JSON.parse(JSON.stringify(post.json).replaceAll('VIA-POST', 'VIA-PATCH')));
    const [a, b] = (await search({ licenseKey: { type: 'regex', value: '^VIA-' } })).result;
    expect({ ...a, licenseKey: '' }).toEqual({ ...b, licenseKey: '' });
    expect(a!.licenseStatus.activated).toBe(true);
  });

  it('a blocked key shows in the report filters on licenseStatus', async () => {
    const k = reg().records.findIndex((r, i) => clients(i) > 1 && !r.licenseStatus.blocked);
    const holders = Array.from(pd().licenseKeyIndex).flatMap((x, i) => (x === k ? [i] : []));
    const blockedClients = (filters: unknown) => {
      const p = parseGlobalFilters(pd(), { globalFilters: filters });
      return holders.filter((i) => p(i));
    };
    expect(blockedClients({ licenseStatus: [{ blocked: true }] })).toEqual([]);
    await upsert({ keyUpdates: [{ licenseKey: keyOf(k), licenseStatus: { blocked: true } }] }, 'PATCH');
    expect(blockedClients({ licenseStatus: [{ blocked: true }] })).toEqual(holders);
    expect(blockedClients({ 'licenseStatus.blocked': { type: 'boolean', value: true } })).toEqual(holders);
    const got = await search({ licenseStatus: [{ blocked: true }] });
    expect(got.result.map((x) => x.licenseKey)).toContain(keyOf(k));
    // And over the wire, through the client property list (clientPropertyList).
    const listed = new Map<string, unknown>();
    for (let startAtClientId: string | undefined, end = false; !end; ) {
      const r = await s.post('/v3/reporting/clientPropertyList', {
        properties: ['licenseKey', 'licenseStatus.blocked'],
        globalFilters: { 'licenseStatus.blocked': { type: 'boolean', value: true } },
        ...(startAtClientId === undefined ? {} : { startAtClientId }),
      });
      expect(r.status, r.text).toBe(200);
      for (const c of r.json.result) listed.set(c.clientId, c['licenseStatus.blocked']);
      [end, startAtClientId] = [r.json.reachedEnd, r.json.nextClientId];
    }
    for (const i of holders) expect(listed.get(pd().clientIds[i]!)).toBe(true);
  });

  it('persists inserts and updates to dataDir across a restart', async () => {
    const k = reg().records.findIndex((r, i) => i >= PLANTED.length && r.quota === null);
    const key = keyOf(k);
    await upsert({
      keyUpdates: [
        { licenseKey: 'PERSISTED', licenseType: 'trial' },
        { licenseKey: key, quota: 3 },
      ],
    });
    const want = await search(undefined);
    expect(want.result.map((x) => x.licenseKey)).toEqual(expectedKeys(() => true));
    await emu.close();
    emu = await startTestEmulator({ dataDir });
    s = await signedIn(emu);
    const got = await search(undefined);
    expect(got).toEqual(want);
    expect(got.result.find((x) => x.licenseKey === 'PERSISTED')?.licenseType).toBe('trial');
    expect(got.result.find((x) => x.licenseKey === key)?.quota).toBe(3);
  });
});
