/** The guard holds a digest on a failed call, an incomplete week, implausible counts or a blank chart. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { currentIsoWeek, type IsoWeek, lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import type { DigestData } from '../../src/digest/data.ts';
import { computeFigures } from '../../src/digest/figures.ts';
import { checkDigest, type GuardOptions, type GuardResult } from '../../src/digest/guard.ts';
import { collectWith, type DigestPeer, startDigestPeer } from './digest-peer.ts';

let peer: DigestPeer;
let week: IsoWeek;
let data: DigestData;
let opts: GuardOptions;

beforeAll(async () => {
  peer = await startDigestPeer();
  week = lastCompleteIsoWeek(new Date(peer.emu.clock.now()), 'UTC');
  data = await collectWith(peer, week);
  opts = { implausibleFactor: 5, serviceToday: peer.today };
});
afterEach(() => peer.emu.faults.clear());
afterAll(() => peer.close());

const check = (d: DigestData, o: Partial<GuardOptions> = {}): GuardResult =>
  checkDigest(d, computeFigures(d, { names: peer.names }), { ...opts, ...o });
const reasonsOf = (r: GuardResult) => (r.ok ? [] : r.reasons);
const firstName = () => peer.names[peer.productIds[0]!]!;

/** A copy of the data whose first product's digest week has `metric` set by `f(previous value)`. */
function withWeekValue(metric: 'new' | 'active' | 'lost', f: (v: number) => number): DigestData {
  const copy = structuredClone(data);
  const current = copy.products[0]!.weekly!.at(-1)!;
  current[metric] = f(current[metric]);
  return copy;
}

describe('checkDigest', () => {
  it('passes complete, plausible data of a finished week', () => {
    expect(week.stop < peer.today).toBe(true);
    expect(check(data)).toEqual({ ok: true });
  });

  it('holds when a call failed, naming the operation and the product', async () => {
    const failing = peer.productIds[1]!;
    peer.emu.faults.set({
      rules: [
        {
          operations: ['churnHistogramSessions'],
          path: `/${failing}$`,
          serverErrorRate: 1,
          serverErrorStatus: 503,
        },
      ],
    });
    const failed = await collectWith(peer, week, peer.client({ maxRetries: 0 }));
    const errors = failed.calls.filter((c) => c.error);
    expect(errors.map((c) => [c.operationId, c.productId, c.error?.status])).toEqual([
      ['churnHistogramSessions', failing, 503],
    ]);
    // Everything else still arrived, and the failed section is missing rather than zero.
    expect(failed.calls.filter((c) => c.response !== undefined)).toHaveLength(failed.calls.length - 1);
    expect(failed.products[1]!.churnHistograms?.sessions).toBeUndefined();
    expect(peer.emu.state.sessions.liveSessionsOf(peer.emu.credentials.userName)).toHaveLength(0);
    const reasons = reasonsOf(check(failed));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(new RegExp(`^churnHistogramSessions failed for ${peer.names[failing]}: 503`));
  });

  it('holds an unfinished week: the current week ends after the service’s today', async () => {
    const current = currentIsoWeek(new Date(peer.emu.clock.now()), 'UTC');
    const unfinished = await collectWith(peer, current);
    const reasons = reasonsOf(check(unfinished));
    expect(reasons).toContain(
      `week ${current.isoWeek} is not complete: it ends ${current.stop} and the service's today is ${peer.today}`,
    );
    // A week ending on the service's today is not complete either: that day is still running.
    expect(reasonsOf(check(data, { serviceToday: week.stop }))[0]).toMatch(/is not complete/);
  });

  it('holds when the digest week or a trailing week is missing from the series', () => {
    const copy = structuredClone(data);
    copy.products[0]!.weekly = copy.products[0]!.weekly!.filter((w) => w.weekStart !== week.start);
    expect(reasonsOf(check(copy))).toEqual([`${firstName()} has no data for week ${week.isoWeek} (${week.start})`]);
    const trailing = structuredClone(data);
    const gap = trailing.products[0]!.weekly!.splice(2, 1)[0]!.weekStart;
    expect(reasonsOf(check(trailing))).toEqual([`${firstName()} lacks trailing weeks starting ${gap}`]);
  });

  it('holds an implausible spike against the trailing 8 weeks', () => {
    const trailingMax = Math.max(...data.products[0]!.weekly!.slice(0, -1).map((w) => w.active));
    const spiked = withWeekValue('active', () => trailingMax * 5 + 1);
    const reasons = reasonsOf(check(spiked));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(new RegExp(`^active clients of ${firstName()}: [\\d,]+ this week is implausibly high`));
    // Exactly at the factor is still plausible.
    expect(check(withWeekValue('active', () => trailingMax * 5))).toEqual({ ok: true });
  });

  it('holds a drop to 0 and a collapse below the trailing minimum / factor', () => {
    expect(reasonsOf(check(withWeekValue('active', () => 0)))[0]).toMatch(
      /active clients of .*: 0 this week is a drop to 0/,
    );
    const trailingMin = Math.min(...data.products[0]!.weekly!.slice(0, -1).map((w) => w.active));
    const low = Math.floor(trailingMin / 5) - 1;
    expect(reasonsOf(check(withWeekValue('active', () => low)))[0]).toMatch(/is implausibly low/);
  });

  it('does not call small counts implausible: a few lost clients after none is normal', () => {
    const copy = structuredClone(data);
    for (const w of copy.products[0]!.weekly!) w.lost = 0;
    copy.products[0]!.weekly!.at(-1)!.lost = 7;
    expect(check(copy)).toEqual({ ok: true });
  });

  it('holds when the caller found a blank chart', () => {
    const charts = [
      { id: 'active-total.png', blank: false },
      { id: 'versions-12345678901.png', blank: true },
    ];
    expect(check(data, { charts })).toEqual({ ok: false, reasons: ['chart versions-12345678901.png is blank'] });
  });
});
