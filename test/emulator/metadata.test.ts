import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL_LISTS, OS_CATALOGUE } from '../../emulator/data/catalogue.ts';
import { formatDay } from '../../emulator/data/dates.ts';
import { type ProductData, type StringColumn, stringAt } from '../../emulator/data/model.ts';
import { PROPERTY_VALUES_PAGE_SIZE } from '../../emulator/families/metadata.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let s: TestSession;
let pd: ProductData;
const VALUES = '/v3/meta/propertyValues';

// More clients than one propertyValues page holds, so clientId values span two pages.
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 1500 });
  s = await signedIn(emu);
  pd = emu.state.products.get(s.productId)!;
});
afterAll(() => emu.close());

/** Distinct non-null values of a string column, sorted (the ids and values here are ASCII). */
function distinct(name: string): string[] {
  const col = pd.columns.get(name) as StringColumn;
  const out = new Set<string>();
  for (let i = 0; i < pd.n; i++) {
    const v = stringAt(col, i);
    if (v !== null) out.add(v);
  }
  return [...out].sort();
}

const values = (r: { json: { result: { value: string }[] } }) => r.json.result.map((x) => x.value);

describe('productProperties', () => {
  it('answers both path forms; without a product it describes the current product', async () => {
    const bare = await s.call('GET', '/v3/meta/productProperties');
    const withId = await s.get('/v3/meta/productProperties');
    expect(bare.status).toBe(200);
    expect(withId.json).toEqual(bare.json);
    const categories = bare.json.result.map((c: { category: string }) => c.category);
    expect(categories).toEqual(['Product', 'License', 'Client', 'System', 'Geography', 'Privacy', 'Usage', 'Custom']);
    const custom = bare.json.result.at(-1).properties;
    expect(custom.map((p: { name: string; friendlyName: string }) => [p.name, p.friendlyName])).toEqual([
      ['C01', 'Plan'],
      ['C02', 'Reseller'],
    ]);
  });

  it('follows the flag rules for every property and lists each name once', async () => {
    const r = await s.get('/v3/meta/productProperties');
    const props = r.json.result.flatMap((c: { properties: object[] }) => c.properties);
    const names = props.map((p: { name: string }) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const p of props) {
      expect(Object.keys(p).sort()).toEqual(
        ['dataType', 'filterType', 'friendlyName', 'name', 'supportsMeta', 'supportsNull', 'supportsRegex'].sort(),
      );
      expect(p.supportsRegex).toBe(p.dataType === 'string');
      expect(p.supportsMeta).toBe(p.dataType === 'string' || ['os', 'geography', 'gpu'].includes(p.name));
      expect(p.supportsNull).toBe(!['clientId', 'dateInstalled', 'dateLastSeen'].includes(p.name));
      expect(p.dataType === 'special').toBe(p.filterType === 'special');
    }
    const byName = new Map(props.map((p: { name: string }) => [p.name, p]));
    expect(byName.get('prodVersion')).toMatchObject({ dataType: 'string', filterType: 'standard' });
    expect(byName.get('licenseKey')).toMatchObject({ dataType: 'string', filterType: 'current' });
    expect(byName.get('ram')).toMatchObject({ dataType: 'number', filterType: 'standard' });
    expect(byName.get('licenseStatus.blocked')).toMatchObject({ dataType: 'boolean', filterType: 'current' });
    expect(byName.get('dateLastSeen')).toMatchObject({ dataType: 'date', filterType: 'current' });
    for (const special of ['licenseStatus', 'os', 'gpu', 'geography', 'optOut', 'backOff', 'lifetimeEventUsage'])
      expect(byName.get(special)).toMatchObject({ dataType: 'special', filterType: 'special' });
    expect(byName.has('os.platform')).toBe(false);
  });

  it('lists the custom properties of another product, and 404 for an unknown product', async () => {
    const other = emu.products[1]!.productId;
    const r = await s.get('/v3/meta/productProperties', other);
    expect(r.json.result.at(-1)).toEqual({
      category: 'Custom',
      properties: [expect.objectContaining({ name: 'C01', friendlyName: 'Deployment', dataType: 'string' })],
    });
    const missing = await s.get('/v3/meta/productProperties', '99999999999');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe('Not Found');
  });
});

describe('propertyValues', () => {
  it('lists the distinct values seen, ascending, never <NULL>', async () => {
    for (const name of ['prodEdition', 'prodLanguage', 'osLanguage', 'C01', 'cpuType']) {
      const r = await s.post(VALUES, { property: name });
      expect(r.status).toBe(200);
      expect(r.json.reachedEnd).toBe(true);
      expect(values(r)).toEqual(distinct(name));
      expect(r.json.result.every((x: object) => !('shortName' in x))).toBe(true);
    }
  });

  it('resolves granularity and dotted level names alike; os versions carry their short name', async () => {
    const viaGranularity = await s.post(VALUES, { property: 'os', granularity: 'version' });
    const viaDotted = await s.post(VALUES, { property: 'os.version' });
    expect(viaGranularity.json).toEqual(viaDotted.json);
    expect(values(viaDotted)).toEqual(distinct('os.version'));
    for (const item of viaDotted.json.result)
      expect(item.shortName).toBe(OS_CATALOGUE.find((o) => o.version === item.value)!.shortName);
    const gpu = await s.post(VALUES, { property: 'gpu', granularity: 'vendor' });
    expect(values(gpu)).toEqual(distinct('gpu.vendor'));
    const states = await s.post(VALUES, { property: 'geography', granularity: 'usState' });
    expect(values(states)).toEqual(distinct('geography.usState'));
  });

  it('returns the built-in catalogue with getFullList', async () => {
    const full = await s.post(VALUES, { property: 'geography', granularity: 'country', getFullList: true });
    const seen = distinct('geography.country');
    expect(values(full)).toEqual([...FULL_LISTS['geography.country']!].sort());
    expect(values(full).length).toBeGreaterThan(seen.length);
    for (const v of seen) expect(values(full)).toContain(v);
    const lang = await s.post(VALUES, { property: 'osLanguage', getFullList: true });
    expect(values(lang)).toEqual([...FULL_LISTS.osLanguage!].sort());
    const edition = await s.post(VALUES, { property: 'os.edition', getFullList: true });
    expect(values(edition)).toEqual([...FULL_LISTS['os.edition']!].sort());
  });

  it('applies string (equality) and regex filters', async () => {
    const eq = await s.post(VALUES, { property: 'prodEdition', filter: { type: 'string', value: 'Enterprise' } });
    expect(values(eq)).toEqual(['Enterprise']);
    const none = await s.post(VALUES, { property: 'prodEdition', filter: { type: 'string', value: 'enterprise' } });
    expect(none.json).toEqual({ result: [], reachedEnd: true });
    const re = await s.post(VALUES, {
      property: 'os',
      granularity: 'version',
      filter: { type: 'regex', value: '^Win' },
    });
    expect(values(re)).toEqual(distinct('os.version').filter((v) => /^Win/.test(v)));
  });

  it('pages by startAfter at most 1000 values per response', async () => {
    const all = pd.clientIds;
    expect(all.length).toBeGreaterThan(PROPERTY_VALUES_PAGE_SIZE);
    const got: string[] = [];
    let startAfter: string | undefined;
    let pages = 0;
    for (;;) {
      const r = await s.post(VALUES, { property: 'clientId', ...(startAfter === undefined ? {} : { startAfter }) });
      expect(r.status).toBe(200);
      pages++;
      expect(r.json.result.length).toBeLessThanOrEqual(PROPERTY_VALUES_PAGE_SIZE);
      got.push(...values(r));
      if (r.json.reachedEnd) break;
      expect(r.json.result.length).toBe(PROPERTY_VALUES_PAGE_SIZE);
      startAfter = got.at(-1);
    }
    expect(pages).toBe(Math.ceil(all.length / PROPERTY_VALUES_PAGE_SIZE));
    expect(got).toEqual([...all].sort());
    // startAfter need not be a listed value: it continues after the position it would have.
    const k = 700;
    const between = await s.post(VALUES, {
      property: 'clientId',
      startAfter: `${all[k]}0`,
      filter: { type: 'regex', value: '' },
    });
    expect(values(between)[0]).toBe(all[k + 1]);
    const machines = distinct('machineId');
    const regexPage = await s.post(VALUES, { property: 'machineId', filter: { type: 'regex', value: '^M[0-7]' } });
    const expected = machines.filter((m) => /^M[0-7]/.test(m));
    expect(values(regexPage)).toEqual(expected.slice(0, PROPERTY_VALUES_PAGE_SIZE));
    expect(regexPage.json.reachedEnd).toBe(expected.length <= PROPERTY_VALUES_PAGE_SIZE);
  });

  it('answers 400 with field paths for bad requests, 404 for an unknown product', async () => {
    const cases: [object, string][] = [
      [{}, 'property: required'],
      [{ property: 7 }, 'property: must be a string'],
      [{ property: 'nope' }, 'property: unknown property nope'],
      [{ property: 'ram' }, 'property: ram does not support value listing'],
      [{ property: 'licenseStatus' }, 'property: licenseStatus does not support value listing'],
      [{ property: 'optOut' }, 'property: optOut does not support value listing'],
      [{ property: 'C05' }, 'property: unknown property C05'],
      [{ property: 'os' }, 'granularity: required for os (one of platform, version, edition)'],
      [{ property: 'gpu', granularity: 'country' }, 'granularity: must be one of vendor, model for gpu'],
      [{ property: 'prodVersion', granularity: 'version' }, 'granularity: only allowed for os, geography and gpu'],
      [{ property: 'os.version', granularity: 'version' }, 'granularity: not allowed with the level name os.version'],
      [{ property: 'os.flavour' }, 'property: unknown property os.flavour'],
      [
        { property: 'geography', granularity: 'country', filter: { type: 'string', value: 'US' } },
        'filter: not allowed for geography',
      ],
      [{ property: 'geography.country', filter: { type: 'regex', value: 'U' } }, 'filter: not allowed for geography'],
      [
        { property: 'prodEdition', filter: { type: 'number', value: 'x' } },
        'filter.type: must be one of string, regex',
      ],
      [{ property: 'prodEdition', filter: { type: 'regex' } }, 'filter.value: required'],
      [{ property: 'prodEdition', filter: { type: 'regex', value: '(' } }, 'filter.value: invalid regular expression'],
      [{ property: 'prodEdition', startAfter: 3 }, 'startAfter: must be a string'],
      [{ property: 'prodEdition', getFullList: 'yes' }, 'getFullList: must be a boolean'],
    ];
    for (const [body, message] of cases) {
      const r = await s.post(VALUES, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
    const missing = await s.post(VALUES, { property: 'prodEdition' }, '99999999999');
    expect(missing.status).toBe(404);
  });
});

describe('listEvents', () => {
  it('lists every event once, categories by name with null last, events by name', async () => {
    const r = await s.get('/v3/event-tracking');
    expect(r.status).toBe(200);
    const categories: (string | null)[] = r.json.result.map((c: { category: string | null }) => c.category);
    expect(new Set(categories).size).toBe(categories.length);
    const named = categories.filter((c): c is string => c !== null);
    expect(named).toEqual([...named].sort());
    expect(categories.at(-1)).toBeNull();
    const listed: string[] = [];
    for (const c of r.json.result) {
      const names = c.categoryEventNames.map((e: { eventName: string }) => e.eventName);
      expect(names).toEqual([...names].sort());
      for (const e of c.categoryEventNames) {
        const ev = pd.events.find((x) => x.category === c.category && x.name === e.eventName)!;
        expect(ev).toBeDefined();
        expect(e).toEqual({
          eventName: ev.name,
          basic: ev.basic,
          advanced: ev.advanced,
          dateFirstSeen: formatDay(ev.dateFirstSeen),
        });
        listed.push(`${c.category}/${e.eventName}`);
      }
    }
    expect(listed.sort()).toEqual(pd.events.map((e) => `${e.category}/${e.name}`).sort());
    expect(new Set(listed).size).toBe(pd.events.length);
  });

  it('answers 404 for an unknown product and 401 without a session', async () => {
    expect((await s.get('/v3/event-tracking', '99999999999')).status).toBe(404);
    const nobody = new TestSession(emu);
    expect((await nobody.get('/v3/event-tracking')).status).toBe(401);
  });
});
