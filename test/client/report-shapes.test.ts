/**
 * Response validation of the report families: a client whose `fetch` option rewrites one answer of the emulator
 * shows that a wrong shape fails with a ResponseShapeError naming the operation and the exact field path, and that
 * members the service adds are kept in the parsed result.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { type FetchLike, ReportingClient, ResponseShapeError } from '../../src/client/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

// biome-ignore lint/suspicious/noExplicitAny: rewrites edit arbitrary JSON answers.
type Rewrite = (json: any) => void;

let emu: Emulator;
let client: ReportingClient;
let productId: string;
/** Applied to the next JSON answer of a path containing `on`. */
let rewrite: { on: string; edit: Rewrite } | undefined;

const rewritingFetch: FetchLike = async (input, init) => {
  const res = await fetch(input, init);
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  if (!rewrite || !url.includes(rewrite.on) || res.status !== 200) return res;
  const json = await res.json();
  rewrite.edit(json);
  rewrite = undefined;
  return new Response(JSON.stringify(json), { status: res.status, headers: res.headers });
};

beforeAll(async () => {
  emu = await startTestEmulator();
  client = new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    fetch: rewritingFetch,
  });
  productId = emu.products[0]!.productId;
});
afterAll(async () => {
  await client.logout();
  await emu.close();
});

async function shapeError(p: Promise<unknown>): Promise<ResponseShapeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResponseShapeError);
  return err as ResponseShapeError;
}

const current = { startDate: '2026-10-01', clientStatus: ['active' as const] };
const split = {
  startDate: '2026-10-05',
  stopDate: '2026-10-25',
  clientStatus: ['active' as const],
  dateSplit: 'week' as const,
};
const table = { startDate: '2026-09-01', stopDate: '2026-10-31', categorizeEvents: true as const };

describe('a wrong shape fails naming the operation and the field path', () => {
  it('currentReport: a count that is not a number, below a segment label that needs quoting', async () => {
    const body = { ...current, levels: { level1: { property: 'prodVersion' } } };
    const label = Object.keys((await client.currentReport(productId, body)).result.level1!)[0]!;
    expect(label).toContain('.');
    rewrite = { on: '/generic/current/', edit: (j) => (j.result.level1[label].totals.active = 'x') };
    const err = await shapeError(client.currentReport(productId, body));
    expect(err.operationId).toBe('currentReport');
    expect(err.path).toBe(`result.level1[${JSON.stringify(label)}].totals.active`);
    expect(err.message).toContain(err.path);
  });

  it('dateRangeReport through the generic call: the content-chosen layout keeps the full path', async () => {
    rewrite = { on: '/generic/dateRange/', edit: (j) => (j.result['2026-10-12'].active = 'x') };
    const err = await shapeError(client.call('dateRangeReport', { productId, body: split }));
    expect([err.operationId, err.path]).toEqual(['dateRangeReport', 'result["2026-10-12"].active']);
  });

  it('dateRangeReport: a layout other than the one the request asks for', async () => {
    rewrite = { on: '/generic/dateRange/', edit: (j) => (j.result = { totals: { active: 1 } }) };
    const err = await shapeError(client.dateRangeReport(productId, split));
    expect(err.operationId).toBe('dateRangeReport');
    expect(err.path).toBe('result.totals');
  });

  it('lifetimeDataTable: a negative count inside a categorized row', async () => {
    rewrite = { on: '/lifetime/dataTable/', edit: (j) => (j.result[1].categoryData[0].eventCount = -1) };
    const err = await shapeError(client.lifetimeDataTable(productId, table));
    expect([err.operationId, err.path]).toEqual(['lifetimeDataTable', 'result[1].categoryData[0].eventCount']);
  });

  it('lifetimeDataTable: well-formed flat rows where the request asked for categorized ones', async () => {
    const flat = await client.lifetimeDataTable(productId, { ...table, categorizeEvents: false });
    rewrite = { on: '/lifetime/dataTable/', edit: (j) => (j.result = flat.result) };
    const err = await shapeError(client.lifetimeDataTable(productId, table));
    expect([err.operationId, err.path]).toEqual(['lifetimeDataTable', 'result[0].categoryData']);
  });
});

describe('members the service adds are kept', () => {
  it('at the top, inside documented objects and inside open-point maps', async () => {
    rewrite = {
      on: '/generic/current/',
      edit: (j) => {
        j.generatedAt = '2026-11-20T12:00:00';
        j.result.totals.activePercentile = 42;
      },
    };
    const r = await client.currentReport(productId, current);
    expect(r).toMatchObject({ generatedAt: '2026-11-20T12:00:00', result: { totals: { activePercentile: 42 } } });
    expect(r.result.totals?.active).toBeGreaterThan(0);

    rewrite = { on: '/lifetime/dataTable/', edit: (j) => (j.result[0].categoryData[0].medianCount = 3) };
    const t = await client.lifetimeDataTable(productId, table);
    expect(t.result[0]!.categoryData[0]).toMatchObject({ medianCount: 3 });
  });
});
