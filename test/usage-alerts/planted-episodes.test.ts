/**
 * Each condition kind against the emulator's planted episodes (emulator/data/episodes.ts), over real sockets: the
 * tracked event that doubles, the version that loses half its clients and the exception type that spikes. Each rule
 * fires on the episode's first period and resolves on the first period after it; a period is not judged before its
 * settle delay has passed; and under the minimum volume nothing fires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCEPTION_TYPES } from '../../emulator/data/catalogue.ts';
import { parseDay } from '../../emulator/data/dates.ts';
import { dayPicks } from '../../emulator/families/files/day-lines.ts';
import { FAMILIES } from '../../emulator/families/files/families.ts';
import type { Emulator, EventSurge, ExceptionSpike, VersionDrop } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { parseConfig } from '../../src/config/load.ts';
import { addDays } from '../../src/core/calendar.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { judgeUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';
import { startTestEmulator, TEST_TODAY } from '../helpers/emulator-session.ts';

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
let emu: Emulator;
let surge: EventSurge;
let drop: VersionDrop;
let spike: ExceptionSpike;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 3000 });
  surge = emu.episodes.find((e): e is EventSurge => e.kind === 'eventSurge')!;
  drop = emu.episodes.find((e): e is VersionDrop => e.kind === 'versionDrop')!;
  spike = emu.episodes.find((e): e is ExceptionSpike => e.kind === 'exceptionSpike')!;
});
afterAll(() => emu?.close());

const base = { owner: 'owner@example.com', recipients: [{ address: 'ops@example.com' }], period: { unit: 'day' } };
const surgeRule = (id: string, over: Record<string, unknown>) => ({
  ...base,
  id,
  productIds: [surge.productId],
  metric: { kind: 'eventCount', event: { category: surge.category, name: surge.name } },
  ...over,
});

/** The rules' changes from two weeks before the episode to a week after it, judged as at `now`. */
async function backtest(
  rules: unknown[],
  from: string,
  to: string,
  now = `${TEST_TODAY}T12:00:00.000Z`,
  errors: string[] = [],
) {
  const config = parseConfig({
    ...rawConfigFor(emu),
    products: emu.products.map((p) => ({ id: p.productId })),
    usageAlerts: { rules },
  });
  const ports = {
    client: reportingClientFor(config.service, () => emu.credentials, logger),
    clock: fixedClock(now),
    logger,
  };
  const judged = await judgeUsageAlerts(config, ports, { from, to });
  expect(judged.result.errors).toEqual(errors);
  return judged.changes.map((c) => [c.ruleId, c.period, c.state]);
}

describe('the doubled tracked event', () => {
  it('fires on its first day under a change, a deviation and a threshold rule, and resolves the day after it ends', async () => {
    const from = addDays(surge.startDate, -14);
    const to = addDays(surge.endDate, 5);
    // The event's usual daily count (the median of the two weeks before): the threshold sits at 1.5 × it.
    const ports = { client: reportingClientFor(parseConfig(rawConfigFor(emu)).service, () => emu.credentials, logger) };
    const usual = (await ports.client.withSession((c) =>
      c.call('basicTimeline', {
        productId: surge.productId,
        body: {
          startDate: from,
          stopDate: addDays(surge.startDate, -1),
          dateSplit: 'day',
          dataView: 'usageCounts',
          events: [{ category: surge.category, name: surge.name }],
        },
      }),
    )) as { result: Record<string, { value: number }[]> };
    const counts = Object.values(usual.result)
      .map((v) => v[0]!.value)
      .sort((a, b) => a - b);
    const median = counts[counts.length >> 1]!;
    const changes = await backtest(
      [
        surgeRule('change', { condition: { kind: 'change', percent: 50, direction: 'up' } }),
        surgeRule('deviation', { condition: { kind: 'deviation', baselinePeriods: 8, k: 4, direction: 'up' } }),
        surgeRule('threshold', { condition: { kind: 'threshold', above: median * 1.5 } }),
      ],
      from,
      to,
    );
    const of = (id: string) => changes.filter(([r]) => r === id).map(([, p, s]) => [p, s]);
    // A change against the day before fires at the step up, and resolves the next day (no further step).
    expect(of('change')[0]).toEqual([surge.startDate, 'firing']);
    expect(of('deviation')[0]).toEqual([surge.startDate, 'firing']);
    expect(of('threshold')).toEqual([
      [surge.startDate, 'firing'],
      [addDays(surge.endDate, 1), 'resolved'],
    ]);
  }, 120_000);

  it('is not judged before its settle delay, nor under the minimum volume', async () => {
    const rule = surgeRule('threshold', { condition: { kind: 'threshold', above: 1 }, settleHours: 36 });
    // Noon the day after the first surge day: 12 h after it ended, under 36.
    const early = await backtest(
      [rule],
      surge.startDate,
      surge.startDate,
      `${addDays(surge.startDate, 1)}T12:00:00.000Z`,
      [
        `rule threshold: nothing to judge between ${surge.startDate} and ${addDays(surge.startDate, -1)} (periods are judged 36 h after they end)`,
      ],
    );
    expect(early).toEqual([]);
    const settled = await backtest(
      [rule],
      surge.startDate,
      surge.startDate,
      `${addDays(surge.startDate, 2)}T12:00:00.000Z`,
    );
    expect(settled).toEqual([['threshold', surge.startDate, 'firing']]);
    const quiet = await backtest([{ ...rule, minVolume: 10_000_000 }], surge.startDate, surge.endDate);
    expect(quiet).toEqual([]);
  }, 120_000);
});

describe('the version that loses half its clients', () => {
  it('fires in its first week as a share of active clients and resolves after it', async () => {
    const rule = {
      ...base,
      id: 'version-share',
      productIds: [drop.productId],
      period: { unit: 'week' },
      metric: { kind: 'segmentShare', property: 'prodVersion', value: drop.version },
      condition: { kind: 'deviation', baselinePeriods: 4, k: 3, direction: 'down' },
    };
    const changes = await backtest([rule], addDays(drop.startDate, -35), addDays(drop.endDate, 14));
    const firing = changes.filter(([, , s]) => s === 'firing').map(([, p]) => p as string);
    const resolved = changes.filter(([, , s]) => s === 'resolved').map(([, p]) => p as string);
    // The first week holding drop days fires (or the next, when the drop began on a Sunday).
    expect(firing[0]! >= addDays(drop.startDate, -6)).toBe(true);
    expect(firing[0]! <= addDays(drop.startDate, 7)).toBe(true);
    expect(resolved.some((p) => p > firing[0]!)).toBe(true);
  }, 120_000);
});

describe('the exception type that spikes', () => {
  const spikeRule = (id: string, over: Record<string, unknown>) => ({
    ...base,
    id,
    productIds: [spike.productId],
    metric: { kind: 'exceptionCount', exception: { type: spike.exceptionType } },
    ...over,
  });
  /** The emulator's own lines of the type on a day (the data its exception files are written from). */
  const linesOn = (date: string) => {
    const picks = dayPicks(emu.state.products.get(spike.productId)!, FAMILIES.exceptions, parseDay(date)!);
    return [...picks.hash].filter((h) => EXCEPTION_TYPES[h % EXCEPTION_TYPES.length] === spike.exceptionType).length;
  };

  it('fires on its first day under a deviation and a threshold rule, and resolves the day after it ends', async () => {
    const from = addDays(spike.startDate, -14);
    const to = addDays(spike.endDate, 5);
    const before = Array.from({ length: 14 }, (_, i) => linesOn(addDays(from, i))).sort((a, b) => a - b);
    const usual = before[before.length >> 1]!;
    const changes = await backtest(
      [
        spikeRule('deviation', { condition: { kind: 'deviation', baselinePeriods: 8, k: 4, direction: 'up' } }),
        spikeRule('threshold', { condition: { kind: 'threshold', above: usual * 3 }, minVolume: 1 }),
      ],
      from,
      to,
    );
    const expected = [
      [spike.startDate, 'firing'],
      [addDays(spike.endDate, 1), 'resolved'],
    ];
    expect(changes.filter(([r]) => r === 'deviation').map(([, p, s]) => [p, s])).toEqual(expected);
    expect(changes.filter(([r]) => r === 'threshold').map(([, p, s]) => [p, s])).toEqual(expected);
  }, 120_000);

  it('counts what the exception files hold: each day’s figure is the emulator’s lines of the type', async () => {
    const config = parseConfig({
      ...rawConfigFor(emu),
      products: emu.products.map((p) => ({ id: p.productId })),
      usageAlerts: { rules: [spikeRule('counts', { condition: { kind: 'threshold', above: 1e9 } })] },
    });
    const ports = {
      client: reportingClientFor(config.service, () => emu.credentials, logger),
      clock: fixedClock(`${TEST_TODAY}T12:00:00.000Z`),
      logger,
    };
    const from = addDays(spike.startDate, -3);
    const judged = await judgeUsageAlerts(config, ports, { from, to: addDays(spike.endDate, 2) });
    const { counts } = judged.answers.get(judged.plan.sources[0]!.call) as { counts: Record<string, object> };
    const days = Object.keys(counts).filter((d) => d >= from);
    expect(days).toHaveLength(4 + 3 + 2);
    for (const day of days)
      expect((counts[day] as Record<string, number>)[spike.exceptionType] ?? 0, day).toBe(linesOn(day));
    // The spike is there: each of its days has about 6 × the usual count.
    expect(linesOn(spike.startDate)).toBeGreaterThan(3 * linesOn(addDays(spike.startDate, -7)));
  }, 120_000);

  it('is not judged before its settle delay, nor under the minimum volume', async () => {
    const rule = spikeRule('threshold', { condition: { kind: 'threshold', above: 1 }, settleHours: 36 });
    const early = await backtest(
      [rule],
      spike.startDate,
      spike.startDate,
      `${addDays(spike.startDate, 1)}T12:00:00.000Z`,
      [
        `rule threshold: nothing to judge between ${spike.startDate} and ${addDays(spike.startDate, -1)} (periods are judged 36 h after they end)`,
      ],
    );
    expect(early).toEqual([]);
    const settled = await backtest(
      [rule],
      spike.startDate,
      spike.startDate,
      `${addDays(spike.startDate, 2)}T12:00:00.000Z`,
    );
    expect(settled).toEqual([['threshold', spike.startDate, 'firing']]);
    const quiet = await backtest([{ ...rule, minVolume: 100_000 }], spike.startDate, spike.endDate);
    expect(quiet).toEqual([]);
  }, 120_000);
});
