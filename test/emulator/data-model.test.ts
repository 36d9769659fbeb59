import { describe, expect, it } from 'vitest';
import {
  activeDaysBetween,
  forEachActiveDay,
  isActive,
  lossReportDay,
  usageBetween,
} from '../../emulator/data/activity.ts';
import { formatDay, parseDay, periodStart, periodsOf } from '../../emulator/data/dates.ts';
import { generateAll } from '../../emulator/data/generate.ts';
import { PLANTED } from '../../emulator/data/license-registry.ts';
import { EmulatorConfigError, resolveOptions } from '../../emulator/options.ts';

const today = parseDay('2026-11-20')!;
const [pd] = generateAll({ seed: 3, clients: 300, today });

describe('generated data', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const again = generateAll({ seed: 3, clients: 300, today })[0]!;
    expect(again.clientIds).toEqual(pd!.clientIds);
    expect(Buffer.from(again.activity.buffer).equals(Buffer.from(pd!.activity.buffer))).toBe(true);
    expect(generateAll({ seed: 4, clients: 300, today })[0]!.clientIds).not.toEqual(pd!.clientIds);
  });

  it('has sorted unique 16-hex client ids and activity only between install and last seen', () => {
    const ids = pd!.clientIds;
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[0-9A-F]{16}$/);
    for (let i = 0; i < pd!.n; i++) {
      const install = pd!.installDay[i]!;
      const last = pd!.lastSeenDay[i]!;
      expect(install).toBeLessThanOrEqual(last);
      expect(last).toBeLessThanOrEqual(today);
      expect(isActive(pd!, i, install)).toBe(true);
      expect(isActive(pd!, i, last)).toBe(true);
      expect(isActive(pd!, i, install - 1)).toBe(false);
      expect(isActive(pd!, i, last + 1)).toBe(false);
    }
  });

  it('counts active days by popcount exactly as a day-by-day walk does', () => {
    for (let i = 0; i < 60; i++) {
      for (const [a, b] of [
        [today - 400, today],
        [today - 37, today - 5],
        [pd!.installDay[i]!, pd!.installDay[i]! + 3],
      ] as const) {
        let walk = 0;
        for (let d = a; d <= b; d++) if (isActive(pd!, i, d)) walk++;
        let visited = 0;
        forEachActiveDay(pd!, i, a, b, () => visited++);
        expect(activeDaysBetween(pd!, i, a, b)).toBe(walk);
        expect(visited).toBe(walk);
      }
    }
  });

  it('keeps lifetime totals consistent with per-day sessions and runtime', () => {
    for (let i = 0; i < 50; i++) {
      const t = usageBetween(pd!, i, pd!.installDay[i]!, pd!.lastSeenDay[i]!);
      expect(pd!.lifetimeActiveDays[i]).toBe(t.activeDays);
      expect(pd!.lifetimeSessions[i]).toBe(t.sessions);
      expect(pd!.lifetimeRuntimeMinutes[i]).toBe(t.runtimeMinutes);
      expect(t.sessions).toBeGreaterThanOrEqual(t.activeDays);
    }
  });

  it('has a mix of still-active and lost clients', () => {
    let recent = 0;
    let lost = 0;
    for (let i = 0; i < pd!.n; i++) {
      if (pd!.lastSeenDay[i]! >= today - 7) recent++;
      if (lossReportDay(pd!, i, 30, 'dateDeclaredLost', today) !== undefined) lost++;
    }
    expect(recent).toBeGreaterThan(pd!.n * 0.2);
    expect(lost).toBeGreaterThan(pd!.n * 0.2);
  });

  it('plants the license cases the alerts must find', () => {
    const recs = pd!.registry.records;
    const at = (k: (typeof PLANTED)[number]) => recs[PLANTED.indexOf(k)]!;
    expect(at('expired').licenseStatus.expired).toBe(true);
    for (const [k, days] of [
      ['in1', 1],
      ['in7', 7],
      ['in14', 14],
      ['in30', 30],
      ['in60', 60],
    ] as const)
      expect(at(k).expiryDate).toBe(today + days);
    const over = PLANTED.indexOf('overQuota');
    expect(pd!.registry.clientCount[over]!).toBeGreaterThan(recs[over]!.quota!);
    const blocked = PLANTED.indexOf('blockedActive');
    expect(recs[blocked]!.licenseStatus.blocked).toBe(true);
    expect(pd!.registry.lastSeenDay[blocked]!).toBeGreaterThanOrEqual(today - 2);
  });

  it('adopts product versions over time', () => {
    const version = pd!.columns.get('prodVersion')!;
    if (version.kind !== 'string') throw new Error('prodVersion must be a string column');
    expect(new Set(version.dict).size).toBeGreaterThan(3);
    let upgraded = 0;
    for (let i = 0; i < pd!.n; i++) if (pd!.upgradeDay[i]! >= 0) upgraded++;
    expect(upgraded).toBeGreaterThan(0);
  });
});

describe('dates', () => {
  it('rejects impossible dates and splits periods at Monday and the 1st', () => {
    expect(parseDay('2026-02-30')).toBeUndefined();
    expect(parseDay('2026-2-3')).toBeUndefined();
    expect(formatDay(periodStart(parseDay('2026-11-20')!, 'week'))).toBe('2026-11-16');
    expect(formatDay(periodStart(parseDay('2026-11-20')!, 'month'))).toBe('2026-11-01');
    const p = periodsOf(parseDay('2026-11-04')!, parseDay('2026-11-20')!, 'week');
    expect(p.map((x) => formatDay(x.start))).toEqual(['2026-11-02', '2026-11-09', '2026-11-16']);
    expect(formatDay(p[0]!.from)).toBe('2026-11-04');
  });
});

describe('options', () => {
  it('fail at start naming the field', () => {
    expect(() => resolveOptions({ clients: 0 })).toThrow(EmulatorConfigError);
    expect(() => resolveOptions({ clients: 0 })).toThrow(/^clients: /);
    expect(() => resolveOptions({ origin: 'http://x.example/path' })).toThrow(/^origin: must be a bare origin/);
    expect(() => resolveOptions({ headerPrefix: 'S-v' })).toThrow(/^headerPrefix: /);
    expect(() => resolveOptions({ today: '2026-13-01' })).toThrow(/^today: /);
    expect(() => resolveOptions({ faults: { rules: [{ latencyMs: -1 }] } as never })).toThrow(/^faults: rules\[0\]/);
  });
});
