import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

// Two emulators with the same seed and today must answer every read operation with the same bytes;
// a third with another seed must not.
let a: Emulator;
let b: Emulator;
let c: Emulator;
let sa: TestSession;
let sb: TestSession;
let sc: TestSession;
beforeAll(async () => {
  [a, b, c] = await Promise.all([startTestEmulator(), startTestEmulator(), startTestEmulator({ seed: 8 })]);
  [sa, sb, sc] = await Promise.all([signedIn(a), signedIn(b), signedIn(c)]);
});
afterAll(() => Promise.all([a.close(), b.close(), c.close()]));

const range = { startDate: '2025-11-20', stopDate: '2026-11-19' };
const READS: [string, string, unknown?][] = [
  ['GET', '/v3/event-tracking'],
  ['POST', '/v3/reporting/generic/dateRange', { ...range, clientStatus: ['new', 'active'], dateSplit: 'week' }],
  [
    'POST',
    '/v3/reporting/generic/current',
    { startDate: '2026-10-01', clientStatus: ['active'], levels: { level1: { property: 'prodVersion' } } },
  ],
  ['POST', '/v3/reporting/engagement/usageDistribution', { startDate: '2026-10-01', stopDate: '2026-10-31' }],
  [
    'POST',
    '/v3/reporting/churn/histogram/days',
    { ...range, daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' },
  ],
  [
    'POST',
    '/v3/reporting/eventTracking/lifetime/dataTable',
    { ...range, events: null, paging: { startAt: 0, limit: 50 } },
  ],
  ['POST', '/v3/license-key-registry', { paging: { limit: 50 } }],
  ['POST', '/v3/reporting/clientPropertyList', { properties: ['prodVersion', 'geography.country', 'ram'] }],
  ['GET', '/v3/customEventTracking/listFiles'],
];

describe('determinism', () => {
  it.each(READS)('%s %s answers identically for the same seed', async (method, path, body) => {
    const [ra, rb, rc] = await Promise.all([sa, sb, sc].map((s) => s.call(method, `${path}/${s.productId}`, body)));
    expect(ra!.status).toBe(200);
    expect(rb!.text).toBe(ra!.text);
    if (path !== '/v3/event-tracking') expect(rc!.text).not.toBe(ra!.text);
  });

  it('serves byte-identical export files for the same seed', async () => {
    const list = await sa.get('/v3/customEventTracking/listFiles');
    const name = list.json.dailyFiles.at(-1).fileName as string;
    const fetchZip = async (s: TestSession) => {
      const r = await s.post('/v3/customEventTracking/getDownloadUrl', { fileName: name });
      return Buffer.from(await (await fetch(r.json.downloadUrl)).arrayBuffer());
    };
    const [za, zb] = await Promise.all([fetchZip(sa), fetchZip(sb)]);
    expect(za.length).toBeGreaterThan(100);
    expect(za.equals(zb)).toBe(true);
  });
});
