import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isActive } from '../../emulator/data/activity.ts';
import { formatDay, parseDay } from '../../emulator/data/dates.ts';
import { type NumberColumn, type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import { CLIENT_PAGE_SIZE } from '../../emulator/families/client-profile.ts';
import { parseCsv } from '../../emulator/files/csv.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
const LIST = '/v3/reporting/clientPropertyList';
const EXPORT = '/v3/export/request/clientPropertyList';
type Item = Record<string, unknown> & { clientId: string };

// 450 clients: two full pages and a partial one.
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 450 });
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

async function allPages(body: object): Promise<{ items: Item[]; pages: Item[][] }> {
  const pages: Item[][] = [];
  let startAtClientId: string | null = null;
  for (;;) {
    const r = await s.post(LIST, { ...body, startAtClientId });
    expect(r.status, r.text).toBe(200);
    pages.push(r.json.result);
    if (r.json.reachedEnd) {
      expect(r.json).not.toHaveProperty('nextClientId');
      break;
    }
    expect(r.json.result.length).toBe(CLIENT_PAGE_SIZE);
    startAtClientId = r.json.nextClientId;
  }
  return { items: pages.flat(), pages };
}

const str = (name: string, i: number) => stringAt(pd.columns.get(name) as StringColumn, i);
const indexOf = (id: string) => pd.clientIds.indexOf(id);

describe('clientPropertyList paging', () => {
  it('returns every client once, ascending, 200 per page, clientId only by default', async () => {
    const { items, pages } = await allPages({});
    expect(pages.length).toBe(Math.ceil(pd.n / CLIENT_PAGE_SIZE));
    expect(items.map((x) => x.clientId)).toEqual(pd.clientIds);
    expect(items.every((x) => Object.keys(x).length === 1)).toBe(true);
    // nextClientId is the first id of the next page.
    for (let p = 1; p < pages.length; p++) expect(pages[p]![0]!.clientId).toBe(pd.clientIds[p * CLIENT_PAGE_SIZE]);
  });

  it('starts at startAtClientId inclusive, or at the next greater id', async () => {
    const k = 123;
    const at = await s.post(LIST, { startAtClientId: pd.clientIds[k] });
    expect(at.json.result[0].clientId).toBe(pd.clientIds[k]);
    expect(at.json.nextClientId).toBe(pd.clientIds[k + CLIENT_PAGE_SIZE]);
    const between = await s.post(LIST, { startAtClientId: `${pd.clientIds[k]}0` });
    expect(between.json.result[0].clientId).toBe(pd.clientIds[k + 1]);
    const first = await s.post(LIST, { startAtClientId: '' });
    expect(first.json.result[0].clientId).toBe(pd.clientIds[0]);
    const tail = await s.post(LIST, { startAtClientId: pd.clientIds[pd.n - 3] });
    expect(tail.json).toEqual({ result: pd.clientIds.slice(-3).map((clientId) => ({ clientId })), reachedEnd: true });
    const beyond = await s.post(LIST, { startAtClientId: 'ZZZZ' });
    expect(beyond.json).toEqual({ result: [], reachedEnd: true });
  });

  it('applies globalFilters exactly as a check over the data model', async () => {
    const filters = {
      prodEdition: { type: 'stringArray', value: ['Enterprise', 'Professional'] },
      geography: { type: 'stringArray', country: { value: ['US', 'DE'] } },
      ram: { type: 'numberRange', min: 8192 },
    };
    const ram = pd.columns.get('ram') as NumberColumn;
    const expected = pd.clientIds.filter((_, i) => {
      const edition = str('prodEdition', i);
      const country = str('geography.country', i);
      return (
        (edition === 'Enterprise' || edition === 'Professional') &&
        (country === 'US' || country === 'DE') &&
        ram.values[i]! >= 8192
      );
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(pd.n);
    const { items, pages } = await allPages({ globalFilters: filters, properties: ['prodEdition'] });
    expect(items.map((x) => x.clientId)).toEqual(expected);
    expect(pages.at(-1)!.length).toBe(expected.length - (pages.length - 1) * CLIENT_PAGE_SIZE);
    const nothing = await s.post(LIST, { globalFilters: { prodEdition: { type: 'string', value: 'none such' } } });
    expect(nothing.json).toEqual({ result: [], reachedEnd: true });
  });
});

describe('clientPropertyList property values', () => {
  const props = [
    'prodVersion',
    'geography.country',
    'javaVmRam',
    'dateInstalled',
    'licenseStatus.activated',
    'C01',
    'lifetimeSessionCount',
    'lifetimeEventUsage',
    'reachOutDeliveries.auto',
    'reachOutDeliveries.manual',
  ];

  it('returns native JSON values, <NULL> for missing scalars and the list shapes', async () => {
    const { items } = await allPages({ properties: props });
    expect(items.length).toBe(pd.n);
    const seenNull = new Set<string>();
    for (const item of items) {
      const i = indexOf(item.clientId);
      expect(Object.keys(item)).toEqual(['clientId', ...props]);
      const orNull = <T>(v: T | null) => v ?? '<NULL>';
      expect(item.prodVersion).toBe(orNull(str('prodVersion', i)));
      expect(item['geography.country']).toBe(orNull(str('geography.country', i)));
      expect(item.C01).toBe(orNull(str('C01', i)));
      const vmRam = (pd.columns.get('javaVmRam') as NumberColumn).values[i]!;
      expect(item.javaVmRam).toBe(Number.isNaN(vmRam) ? '<NULL>' : vmRam);
      expect(item.dateInstalled).toBe(formatDay(pd.installDay[i]!));
      expect(item.lifetimeSessionCount).toBe(pd.lifetimeSessions[i]);
      const key = pd.licenseKeyIndex[i]!;
      expect(item['licenseStatus.activated']).toBe(
        key < 0 ? '<NULL>' : pd.registry.records[key]!.licenseStatus.activated,
      );
      for (const p of props) if (item[p] === '<NULL>') seenNull.add(p);

      const usage = item.lifetimeEventUsage as {
        eventCategory: string | null;
        eventName: string;
        eventCount: number;
      }[];
      const expectedUsage = pd.events.flatMap((e, k) => {
        const perDay = pd.eventPerDay[i * pd.events.length + k]!;
        return perDay === 0 ? [] : [`${e.category}/${e.name}=${perDay * pd.lifetimeActiveDays[i]!}`];
      });
      expect(usage.map((u) => `${u.eventCategory}/${u.eventName}=${u.eventCount}`).sort()).toEqual(
        expectedUsage.sort(),
      );
      for (const kind of ['auto', 'manual'] as const) {
        const expected = pd.deliveries[i]!.map((c) => pd.campaigns[c]!)
          .filter((c) => c.kind === kind)
          .map((c) => ({ reachoutID: c.reachoutID, name: c.name }));
        expect(item[`reachOutDeliveries.${kind}`]).toEqual(expected);
      }
    }
    // The data has clients without a key, a country, C01 or Java: the sentinel really shows up.
    expect([...seenNull].sort()).toEqual(['C01', 'geography.country', 'javaVmRam', 'licenseStatus.activated'].sort());
    expect(items.some((x) => typeof x.javaVmRam === 'number')).toBe(true);
    expect(items.some((x) => (x.lifetimeEventUsage as unknown[]).length > 0)).toBe(true);
    expect(items.some((x) => (x['reachOutDeliveries.auto'] as unknown[]).length === 0)).toBe(true);
    expect(items.some((x) => (x['reachOutDeliveries.manual'] as unknown[]).length > 0)).toBe(true);
  });

  it('returns dailyData for active days in range, with the version of the day', async () => {
    const startDate = formatDay(parseDay(TEST_TODAY)! - 200);
    const stopDate = formatDay(parseDay(TEST_TODAY)! - 5);
    const start = parseDay(startDate)!;
    const stop = parseDay(stopDate)!;
    const { items } = await allPages({
      properties: ['prodEdition'],
      retDailyData: { startDate, stopDate, properties: ['prodVersion', 'prodBuild', 'osLanguage'] },
    });
    let upgradedInRange = 0;
    let empty = 0;
    for (const item of items) {
      const i = indexOf(item.clientId);
      const days: string[] = [];
      for (let d = start; d <= stop; d++) if (isActive(pd, i, d)) days.push(formatDay(d));
      const daily = item.dailyData as Record<string, unknown>[];
      expect(daily.map((x) => x.date)).toEqual(days);
      if (daily.length === 0) empty++;
      const up = pd.upgradeDay[i]!;
      if (up > start && up <= stop && daily.some((x) => parseDay(x.date as string)! < up)) upgradedInRange++;
      for (const x of daily) {
        const before = parseDay(x.date as string)! < up;
        expect(Object.keys(x)).toEqual(['date', 'prodVersion', 'prodBuild', 'osLanguage']);
        expect(x.prodVersion).toBe(
          stringAt(before ? pd.installVersion : (pd.columns.get('prodVersion') as StringColumn), i),
        );
        expect(x.prodBuild).toBe(stringAt(before ? pd.installBuild : (pd.columns.get('prodBuild') as StringColumn), i));
        expect(x.osLanguage).toBe(str('osLanguage', i) ?? '<NULL>');
      }
    }
    expect(upgradedInRange).toBeGreaterThan(0);
    expect(empty).toBeGreaterThan(0);
  });

  it('answers 400 naming the field for unknown or special properties and bad retDailyData', async () => {
    const cases: [object, string][] = [
      [{ properties: 'prodVersion' }, 'properties: must be an array'],
      [{ properties: ['prodVersion', 3] }, 'properties[1]: must be a string'],
      [{ properties: ['prodVersion', 'nope'] }, 'properties[1]: unknown property nope'],
      [
        { properties: ['os'] },
        'properties[0]: special property os cannot be listed; use its levels os.platform, os.version, os.edition',
      ],
      [
        { properties: ['geography'] },
        'properties[0]: special property geography cannot be listed; use its levels geography.continent, geography.country, geography.usState',
      ],
      [{ properties: ['licenseStatus'] }, 'properties[0]: special property licenseStatus cannot be listed'],
      [{ properties: ['optOut'] }, 'properties[0]: special property optOut cannot be listed'],
      [
        { properties: ['reachOutDeliveries'] },
        'properties[0]: special property reachOutDeliveries cannot be listed; use reachOutDeliveries.auto or .manual',
      ],
      [{ properties: ['C07'] }, 'properties[0]: unknown property C07'],
      [{ startAtClientId: 5 }, 'startAtClientId: must be a string'],
      [{ retDailyData: [] }, 'retDailyData: must be an object'],
      [
        { retDailyData: { startDate: '2026-02-30', stopDate: '2026-03-01', properties: [] } },
        'retDailyData.startDate: invalid date (expected YYYY-MM-DD)',
      ],
      [
        { retDailyData: { startDate: '2026-03-02', stopDate: '2026-03-01', properties: [] } },
        'retDailyData.startDate: must not be after stopDate',
      ],
      [{ retDailyData: { startDate: '2026-03-01', properties: [] } }, 'retDailyData.stopDate: required'],
      [{ retDailyData: { startDate: '2026-03-01', stopDate: '2026-03-01' } }, 'retDailyData.properties: required'],
      [
        { retDailyData: { startDate: '2026-03-01', stopDate: '2026-03-01', properties: ['gpu'] } },
        'retDailyData.properties[0]: special property gpu cannot be listed; use its levels gpu.vendor, gpu.model',
      ],
      [{ globalFilters: { nope: { type: 'string', value: 'x' } } }, 'globalFilters.nope: unknown property nope'],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(LIST, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
    expect((await s.post(LIST, {}, '99999999999')).status).toBe(404);
  });
});

describe('exportClientPropertyList', () => {
  const props = [
    'prodVersion',
    'licenseStatus.blocked',
    'ram',
    'dateLastSeen',
    'C02',
    'lifetimeEventUsage',
    'reachOutDeliveries.auto',
  ];
  const cellOf = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

  async function exportCsv(body: object, headers: Record<string, string> = {}) {
    return s.call('POST', `${EXPORT}/${s.productId}`, body, { headers });
  }

  it('streams RFC 4180 CSV equal to all clientPropertyList pages concatenated', async () => {
    const r = await exportCsv({ properties: props }, { 'Content-Type': '*/*' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${s.productId}_clients.csv"`);
    expect(r.headers.get('access-control-expose-headers')).toContain('Content-Disposition');
    expect(r.headers.get('content-length')).toBeNull();
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    expect(r.text.endsWith('\r\n')).toBe(true);
    expect(/[^\r]\n/.test(r.text)).toBe(false);
    expect(r.text.charCodeAt(0)).not.toBe(0xfeff);
    const rows = parseCsv(r.text);
    expect(rows[0]).toEqual(['clientId', ...props]);
    const { items } = await allPages({ properties: props });
    expect(rows.slice(1)).toEqual(items.map((x) => [x.clientId, ...props.map((p) => cellOf(x[p]))]));
    const cells = rows.slice(1).flat();
    expect(cells).toContain('<NULL>');
    expect(cells).toContain('true');
    expect(cells).toContain('false');
    expect(cells).toContain('[]');
    expect(r.text).toContain('"[{""eventCategory"":');
  });

  it('applies globalFilters like clientPropertyList', async () => {
    const globalFilters = {
      osLanguage: { type: 'regex', value: '^en-' },
      'licenseStatus.blocked': { type: 'boolean', value: false },
    };
    const r = await exportCsv({ properties: ['osLanguage'], globalFilters });
    const rows = parseCsv(r.text).slice(1);
    const { items } = await allPages({ properties: ['osLanguage'], globalFilters });
    expect(rows).toEqual(items.map((x) => [x.clientId, x.osLanguage]));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(pd.n);
    expect(rows.every(([, lang]) => lang!.startsWith('en-'))).toBe(true);
    const none = await exportCsv({
      properties: ['osLanguage'],
      globalFilters: { osLanguage: { type: 'string', value: 'xx' } },
    });
    expect(none.text).toBe('clientId,osLanguage\r\n');
  });

  it('answers JSON errors before the first byte', async () => {
    const cases: [object, string][] = [
      [{}, 'properties: required'],
      [{ properties: [] }, 'properties: must have at least 1 item(s)'],
      [{ properties: ['prodVersion', 'nope'] }, 'properties[1]: unknown property nope'],
      [
        { properties: ['os'] },
        'properties[0]: special property os cannot be listed; use its levels os.platform, os.version, os.edition',
      ],
      [
        { properties: ['ram'], globalFilters: { ram: { type: 'string', value: '1' } } },
        'globalFilters.ram.type: must be one of number, numberRange for ram',
      ],
    ];
    for (const [body, message] of cases) {
      const r = await exportCsv(body, { 'Content-Type': '*/*' });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
    expect((await s.post(EXPORT, { properties: ['ram'] }, '99999999999')).status).toBe(404);
  });
});
