/**
 * Reads keep answering when their body holds a member they do not use, but say so: each ignored member is logged
 * with the operation and the request path, and named in the `Svc-Ignored-Fields` response header
 * (emulator/README.md "Fields it does not use"). Checked over real sockets for every POST read operation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../emulator/http/routes.ts';
import type { Emulator } from '../../emulator/index.ts';
import { takeViolations } from '../helpers/contract-watch.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

const HEADER = 'svc-ignored-fields';
const log: string[] = [];
let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator({ log: (line) => log.push(line) });
  s = await signedIn(emu);
});
afterAll(() => emu.close());
// These tests send members the interface does not define on purpose: the suite's contract watch
// (test/helpers/contract-watch.ts) rightly flags those requests; the answers must still match the document.
afterEach(() => {
  const responses = takeViolations().filter((v) => v.side !== 'request');
  expect(responses).toEqual([]);
});

const range = { startDate: '2026-10-01', stopDate: '2026-10-28' };
const lost = { daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' };

/** A valid body for every POST read, from what the emulator lists (events, files). */
async function validBodies(): Promise<Record<string, { path: string; body: Record<string, unknown> }>> {
  const pid = s.productId;
  const rawPid = emu.products.find((p) => p.rawDataExport)!.productId;
  const events = (await s.get('/v3/event-tracking')).json.result as {
    category: string | null;
    categoryEventNames: { eventName: string; basic: boolean; advanced: boolean }[];
  }[];
  const pick = (kind: 'basic' | 'advanced') => {
    for (const g of events)
      for (const e of g.categoryEventNames) if (e[kind]) return { category: g.category, name: e.eventName };
    throw new Error(`no ${kind} event`);
  };
  const basic = pick('basic');
  const advanced = pick('advanced');
  const fileOf = async (listing: string, productId = pid) => {
    const listed = (await s.get(listing, productId)).json;
    return ((listed.dailyFiles ?? listed.fileList) as { fileName: string }[])[0]!.fileName;
  };
  const bodies: Record<string, Record<string, unknown>> = {
    propertyValues: { property: 'os.platform' },
    dateRangeReport: { ...range, clientStatus: ['active'], ...lost },
    currentReport: { startDate: range.startDate, clientStatus: ['active'], ...lost },
    usageDistribution: range,
    lifetimeHistogram: { ...range, events: [basic] },
    lifetimeDataTable: { ...range, paging: { limit: 5 } },
    basicDataTable: range,
    basicTimeline: { ...range, dateSplit: 'week', dataView: 'usageCounts', events: [basic] },
    advancedFullReport: { ...range, events: [advanced] },
    churnAndEngagement: { ...range, daysUntilDeclaredLost: 30, dateSplit: 'month' },
    churnHistogramDays: { ...range, ...lost },
    churnHistogramRuntime: { ...range, ...lost },
    churnHistogramSessions: { ...range, ...lost },
    churnLifetimeDataTable: { ...range, ...lost, paging: { limit: 5 } },
    churnLifetimeHistogram: { ...range, ...lost, events: [basic] },
    searchLicenseKeys: { paging: { limit: 1 } },
    customEventsLastLines: { lineCount: 1 },
    customEventsDownloadUrl: { fileName: await fileOf('/v3/customEventTracking/listFiles') },
    exceptionsLastLines: { lineCount: 1 },
    exceptionsDownloadUrl: { fileName: await fileOf('/v3/exceptionTracking/listFiles') },
    clientPropertyList: { properties: ['os.platform'] },
    exportClientPropertyList: { properties: ['os.platform'] },
    rawEventsDownloadUrl: { fileName: await fileOf('/v3/rawEvents/download/listFiles', rawPid) },
  };
  return Object.fromEntries(
    Object.entries(bodies).map(([id, body]) => {
      const route = ROUTES.find((r) => r.id === id)!;
      const productId = id === 'rawEventsDownloadUrl' ? rawPid : pid;
      return [id, { path: route.path.replace('{product_id}', productId), body }];
    }),
  );
}

describe('ignored body fields of reads', () => {
  it('a search sent {"limit": 3} still answers, and names limit in the header and the log', async () => {
    log.length = 0;
    const r = await s.post('/v3/license-key-registry', { limit: 3 });
    expect(r.status).toBe(200);
    expect(r.json.result).toHaveLength(100);
    expect(r.headers.get(HEADER)).toBe('limit');
    expect(log).toEqual([
      `emulator: searchLicenseKeys POST /v3/license-key-registry/${s.productId}: ignored body field "limit"`,
    ]);
    // A browser dashboard may read it too.
    expect(r.headers.get('access-control-expose-headers')).toContain('Svc-Ignored-Fields');
  });

  it('names nested members by their path, and nothing when every member was read', async () => {
    const nested = await s.post('/v3/license-key-registry', { paging: { limit: 3, start: 1 }, filter: {} });
    expect(nested.json.result).toHaveLength(3);
    expect(nested.headers.get(HEADER)).toBe('paging.start, filter');
    const segments = await s.post('/v3/reporting/generic/dateRange', {
      ...range,
      clientStatus: ['active'],
      levels: {
        level1: { property: 'os.platform', segments: [{ type: 'regex', value: '', split: true, lable: 'x' }] },
      },
    });
    expect(segments.status, segments.text).toBe(200);
    expect(segments.headers.get(HEADER)).toBe('levels.level1.segments[0].lable');
    log.length = 0;
    const clean = await s.post('/v3/license-key-registry', { paging: { limit: 3 } });
    expect(clean.headers.get(HEADER)).toBeNull();
    expect(log).toEqual([]);
  });

  it('encodes member names a header cannot carry, and caps the header at 20 names (the log has all)', async () => {
    log.length = 0;
    const odd = await s.post('/v3/license-key-registry', { 'a b,c': 1, 'ü\n': 2 });
    expect(odd.status).toBe(200);
    expect(odd.headers.get(HEADER)).toBe('a%20b%2Cc, %C3%BC%0A');
    expect(log[1]).toContain('ignored body field "ü\\n"');
    const many = await s.post(
      '/v3/license-key-registry',
      Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`x${i}`, i])),
    );
    expect(many.headers.get(HEADER)).toBe(`${Array.from({ length: 20 }, (_, i) => `x${i}`).join(', ')}, (5 more)`);
  });

  it('every POST read answers a valid body without the header, and one with an extra member with it', async () => {
    const bodies = await validBodies();
    const reads = ROUTES.filter((r) => r.method === 'POST' && !r.changes).map((r) => r.id);
    expect(Object.keys(bodies).sort()).toEqual([...reads].sort());
    for (const [id, { path, body }] of Object.entries(bodies)) {
      log.length = 0;
      const valid = await s.call('POST', path, body);
      expect([id, valid.status, valid.headers.get(HEADER)], valid.text.slice(0, 300)).toEqual([id, 200, null]);
      const extra = await s.call('POST', path, { ...body, zzUnknown: true });
      expect([id, extra.status, extra.headers.get(HEADER)]).toEqual([id, 200, 'zzUnknown']);
      expect(log).toEqual([`emulator: ${id} POST ${path}: ignored body field "zzUnknown"`]);
    }
  });

  it('reads a lost rule sent without lost counts: checked, and not reported', async () => {
    const body = { ...range, clientStatus: ['active'], ...lost };
    const ok = await s.post('/v3/reporting/generic/dateRange', body);
    expect([ok.status, ok.headers.get(HEADER)]).toEqual([200, null]);
    const bad = await s.post('/v3/reporting/generic/dateRange', { ...body, daysUntilDeclaredLost: 0 });
    expect(bad.json).toEqual({ error: 'Bad Request', message: 'daysUntilDeclaredLost: must be ≥ 1' });
  });

  it('does not report on writes (they refuse unknown members) or GET reads', async () => {
    const r = await s.get('/v3/event-tracking');
    expect(r.headers.get(HEADER)).toBeNull();
    const w = await s.call('POST', `/v3/license-key-registry/update/${s.productId}`, {
      keyUpdates: [{ licenseKey: `IGN-${TEST_TODAY}` }],
    });
    expect(w.json.result.inserted).toBe(1);
    expect(w.headers.get(HEADER)).toBeNull();
  });
});
