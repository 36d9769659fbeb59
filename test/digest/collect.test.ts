/** collectDigestData against the emulator: one session for all calls, a concurrency cap, every response kept. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_SECTIONS } from '../../src/config/schema.ts';
import { lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import { collectDigestData } from '../../src/digest/collect.ts';
import type { DigestData } from '../../src/digest/data.ts';
import { planDigestCalls } from '../../src/digest/plan.ts';
import { COLLECT, collectWith, type DigestPeer, startDigestPeer } from './digest-peer.ts';

let peer: DigestPeer;
let data: DigestData;
let liveAfterRun: number;

beforeAll(async () => {
  peer = await startDigestPeer();
  data = await collectWith(peer, lastCompleteIsoWeek(new Date(peer.emu.clock.now()), 'UTC'));
  liveAfterRun = peer.emu.state.sessions.liveSessionsOf(peer.emu.credentials.userName).length;
});
afterAll(() => peer.close());

describe('collectDigestData', () => {
  it('collects the last complete week (2026-W46 for the emulator today)', () => {
    expect(data.week).toEqual({ isoWeek: '2026-W46', start: '2026-11-09', stop: '2026-11-15' });
    expect(data.sections).toEqual([...DIGEST_SECTIONS]);
    expect(data.products.map((p) => p.productId)).toEqual(peer.productIds);
  });

  it('makes every call of the run over one session and logs out after withSession', () => {
    expect(peer.wire.of('signIn')).toHaveLength(1);
    expect(peer.wire.of('requestCsrf')).toHaveLength(1);
    expect(peer.wire.of('logout')).toHaveLength(1);
    expect(liveAfterRun).toBe(0);
    // Every report request carried a session and none was refused.
    const reports = peer.wire.requests.filter((r) => r.url.pathname.startsWith('/v3/reporting/'));
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.every((r) => r.status === 200)).toBe(true);
  });

  it('runs the calls concurrently, never above the cap', () => {
    expect(peer.maxInFlight()).toBeGreaterThan(1);
    expect(peer.maxInFlight()).toBeLessThanOrEqual(COLLECT.concurrency);
  });

  it('keeps the request and the response of every planned call, per product', () => {
    const planned = planDigestCalls(peer.productIds, data.week, COLLECT);
    expect(
      data.calls.map(({ operationId, productId, purpose, request }) => ({ operationId, productId, purpose, request })),
    ).toEqual(
      planned.map(({ operationId, productId, purpose, request }) => ({ operationId, productId, purpose, request })),
    );
    expect(data.calls.every((c) => c.error === undefined && c.response !== undefined)).toBe(true);
    // The HTTP requests match the records one to one (plus request-csrf, sign-in and logout).
    expect(peer.wire.requests).toHaveLength(data.calls.length + 3);
  });

  it('keeps the raw responses verbatim: equal to what the service sends', async () => {
    for (const call of data.calls) {
      expect(call.response).toEqual(await peer.raw(call.operationId, call.productId, call.request));
    }
  });

  it('fills every section of every product', () => {
    for (const p of data.products) {
      expect(p.weekly?.map((w) => w.weekStart).at(-1)).toBe(data.week.start);
      expect(p.weekly).toHaveLength(9);
      expect(p.cohort?.length).toBeGreaterThan(0);
      expect(Object.keys(p.churnHistograms ?? {})).toEqual(['days', 'sessions', 'runtime']);
      expect(p.usage?.activeDays.length).toBeGreaterThan(0);
      expect(p.topEvents?.length).toBeGreaterThan(0);
      expect(p.topEvents?.length).toBeLessThanOrEqual(10);
      expect(p.versions?.week.length).toBeGreaterThan(0);
      expect(p.countries?.week.length).toBeGreaterThan(0);
      expect(p.exceptions?.coversWeek).toBe(true);
    }
  });

  it('asks only for the enabled sections', async () => {
    const calls = peer.wire.requests.length;
    const only = await peer.client().withSession((c) =>
      collectDigestData(c, peer.productIds.slice(0, 1), data.week, {
        ...COLLECT,
        sections: ['versions', 'activity'],
      }),
    );
    expect(only.sections).toEqual(['activity', 'versions']);
    expect(only.calls.map((c) => c.purpose)).toEqual(['weekly', 'versions']);
    expect(Object.keys(only.products[0]!).sort()).toEqual(['productId', 'versions', 'weekly']);
    expect(peer.wire.requests.length - calls).toBe(2 + 3);
  });
});
