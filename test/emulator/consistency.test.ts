import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

// Reports of different families computed from the one data model must agree with each other on the wire.
let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 1500 });
  s = await signedIn(emu);
});
afterAll(() => emu.close());

const START = '2026-05-01';
const STOP = '2026-10-31';
const LOST = { daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' };

async function countClients(globalFilters: object): Promise<number> {
  let n = 0;
  let startAtClientId: string | undefined;
  for (;;) {
    const r = await s.post('/v3/reporting/clientPropertyList', { globalFilters, startAtClientId });
    expect(r.status).toBe(200);
    n += r.json.result.length;
    if (r.json.reachedEnd) return n;
    startAtClientId = r.json.nextClientId;
  }
}

async function rangeTotals(extra: object = {}) {
  const r = await s.post('/v3/reporting/generic/dateRange', {
    startDate: START,
    stopDate: STOP,
    clientStatus: ['new', 'active', 'lost'],
    ...LOST,
    ...extra,
  });
  expect(r.status).toBe(200);
  return r.json.result.totals as { new: number; active: number; lost: number };
}

describe('cross-family consistency', () => {
  it('new clients in the date-range report = clients installed in the range (client property list)', async () => {
    const totals = await rangeTotals();
    expect(totals.new).toBeGreaterThan(0);
    expect(await countClients({ dateInstalled: { type: 'dateRange', min: START, max: STOP } })).toBe(totals.new);
  });

  it('weekly new counts add up to the unsplit total over whole weeks', async () => {
    const body = { startDate: '2026-05-04', stopDate: '2026-11-01', clientStatus: ['new'] };
    const weekly = await s.post('/v3/reporting/generic/dateRange', { ...body, dateSplit: 'week' });
    const total = await s.post('/v3/reporting/generic/dateRange', body);
    const sum = Object.values(weekly.json.result as Record<string, { new: number }>).reduce((a, c) => a + c.new, 0);
    expect(sum).toBe(total.json.result.totals.new);
  });

  it('the current report counts as active exactly the clients last seen since startDate', async () => {
    const r = await s.post('/v3/reporting/generic/current', { startDate: '2026-11-01', clientStatus: ['active'] });
    expect(r.json.result.totals.active).toBe(
      await countClients({ dateLastSeen: { type: 'dateRange', min: '2026-11-01' } }),
    );
  });

  it('current-report version segments add up to the client property list per version', async () => {
    const r = await s.post('/v3/reporting/generic/current', {
      startDate: '2026-11-01',
      clientStatus: ['active'],
      levels: { level1: { property: 'prodVersion' } },
    });
    const segments = Object.entries(r.json.result.level1 as Record<string, { totals: { active: number } }>);
    expect(segments.length).toBeGreaterThan(1);
    for (const [version, node] of segments.slice(0, 3)) {
      const filters = {
        dateLastSeen: { type: 'dateRange', min: '2026-11-01' },
        prodVersion: { type: 'string', value: version },
      };
      expect(await countClients(filters)).toBe(node.totals.active);
    }
  });

  it('churn histograms hold every client the date-range report counts as lost', async () => {
    const { lost } = await rangeTotals();
    expect(lost).toBeGreaterThan(0);
    for (const kind of ['days', 'runtime', 'sessions']) {
      const r = await s.post(`/v3/reporting/churn/histogram/${kind}`, { startDate: START, stopDate: STOP, ...LOST });
      const sum = Object.values(r.json.result as Record<string, number>).reduce((a, b) => a + b, 0);
      expect(sum, kind).toBe(lost);
    }
  });

  it('usage distribution and event populations equal the active clients of the range', async () => {
    const { active } = await rangeTotals();
    const dist = await s.post('/v3/reporting/engagement/usageDistribution', { startDate: START, stopDate: STOP });
    const users = Object.values(dist.json.result.activeDays as Record<string, { users: number }>).reduce(
      (a, b) => a + b.users,
      0,
    );
    expect(users).toBe(active);
    const hist = await s.post('/v3/reporting/eventTracking/lifetime/histogram', {
      startDate: START,
      stopDate: STOP,
      events: [{ category: 'File', name: 'Open' }],
    });
    const { usedAtLeastOnce, neverUsed } = hist.json.summary;
    expect(usedAtLeastOnce[0].value + neverUsed[0].value).toBe(active);
  });

  it('filters act the same in reports and in the client list', async () => {
    const filters = { geography: { type: 'stringArray', country: { value: ['DE', 'FR'] } } };
    const { new: installed } = await rangeTotals({ globalFilters: filters });
    const listed = await countClients({ ...filters, dateInstalled: { type: 'dateRange', min: START, max: STOP } });
    expect(listed).toBe(installed);
  });
});
