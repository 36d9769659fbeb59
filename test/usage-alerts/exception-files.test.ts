/**
 * Exception rules read the exception files (src/usage-alerts/exception-counts.ts) against the emulator, over real
 * sockets: every exception rule of a product shares one listing and one download per file; days the daily files no
 * longer reach are counted from the monthly file, by each line's UTC day, and agree with the emulator's own lines; a
 * day no file covers has no figure and is not judged; a download that arrives corrupt counts nothing and leaves only
 * the exception rules of that product unjudged, every other rule judged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCEPTION_TYPES } from '../../emulator/data/catalogue.ts';
import { parseDay } from '../../emulator/data/dates.ts';
import { dayPicks } from '../../emulator/families/files/day-lines.ts';
import { FAMILIES } from '../../emulator/families/files/families.ts';
import { type Emulator, type EmulatorExchange, observeExchanges } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { parseConfig } from '../../src/config/load.ts';
import { addDays } from '../../src/core/calendar.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { type ExceptionDays, sourceOf } from '../../src/usage-alerts/exception-counts.ts';
import { judgeUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';
import { seriesOf } from '../../src/usage-alerts/series.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';
import { startTestEmulator, TEST_TODAY } from '../helpers/emulator-session.ts';

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
let emu: Emulator;
let productId: string;
const seen: EmulatorExchange[] = [];
let stopWatching: () => void;
beforeAll(async () => {
  emu = await startTestEmulator();
  productId = emu.products[0]!.productId;
  stopWatching = observeExchanges((x) => seen.push(x));
});
afterAll(async () => {
  stopWatching?.();
  await emu?.close();
});

const rule = (id: string, over: Record<string, unknown>) => ({
  id,
  productIds: [productId],
  period: { unit: 'day' },
  owner: 'owner@example.com',
  recipients: [{ address: 'ops@example.com' }],
  metric: { kind: 'exceptionCount', exception: { type: 'TimeoutError' } },
  condition: { kind: 'threshold', above: 1_000_000 },
  ...over,
});

async function judge(rules: unknown[], from: string, to: string) {
  const config = parseConfig({
    ...rawConfigFor(emu),
    products: emu.products.map((p) => ({ id: p.productId })),
    usageAlerts: { rules },
  });
  const ports = {
    client: reportingClientFor(config.service, () => emu.credentials, logger),
    clock: fixedClock(`${TEST_TODAY}T12:00:00.000Z`),
    logger,
  };
  seen.length = 0;
  const judged = await judgeUsageAlerts(config, ports, { from, to });
  return { config, judged };
}

/** The emulator's own exception lines of a product on a day, by type. */
function linesOn(date: string): Record<string, number> {
  const picks = dayPicks(emu.state.products.get(productId)!, FAMILIES.exceptions, parseDay(date)!);
  const out: Record<string, number> = {};
  for (const h of picks.hash) {
    const type = EXCEPTION_TYPES[h % EXCEPTION_TYPES.length]!;
    out[type] = (out[type] ?? 0) + 1;
  }
  return out;
}

const calls = (id: string) => seen.filter((x) => x.operationId === id).length;

describe('exception rules against the emulator', () => {
  it('share one listing and one download per file across rules, and count every day as the emulator wrote it', async () => {
    const from = addDays(TEST_TODAY, -20);
    // The last day judged at noon today, 24 h after it ended.
    const to = addDays(TEST_TODAY, -2);
    const { config, judged } = await judge(
      [
        rule('timeouts', {}),
        rule('npe', { metric: { kind: 'exceptionCount', exception: { type: 'java.lang.NullPointerException' } } }),
        rule('java', {
          metric: { kind: 'exceptionCount', exception: { type: '^java\\.', match: 'regex' } },
          period: { unit: 'week' },
        }),
      ],
      from,
      to,
    );
    expect(judged.result.errors).toEqual([]);
    expect(calls('exceptionsListFiles')).toBe(1);
    const downloads = calls('exceptionsDownloadUrl');
    // One address per file, each file once: the days the weekly rule needs (from its Monday) and the daily ones.
    expect(downloads).toBeGreaterThan(10);
    expect(
      new Set(seen.filter((x) => x.operationId === 'exceptionsDownloadUrl').map((x) => JSON.stringify(x.requestBody)))
        .size,
    ).toBe(downloads);
    expect(judged.result.counts.calls).toBe(1 + downloads);
    const answer = judged.answers.get(judged.plan.sources[0]!.call) as ExceptionDays;
    for (let day = from; day <= to; day = addDays(day, 1)) expect(answer.counts[day], day).toEqual(linesOn(day));
    // The regex rule sums every java.* type of each week's days.
    const java = config.usageAlerts!.rules.find((r) => r.id === 'java')!;
    const source = judged.plan.sources.find((s) => s.ruleId === 'java')!;
    const [series] = seriesOf(java, source, judged.answers);
    expect(series!.points.length).toBeGreaterThanOrEqual(3);
    for (const point of series!.points) {
      let sum = 0;
      for (let i = 0; i < 7; i++)
        for (const [type, n] of Object.entries(linesOn(addDays(point.period, i))))
          if (type.startsWith('java.')) sum += n;
      expect(point, point.period).toEqual({ period: point.period, value: sum, volume: sum });
    }
  }, 120_000);

  it('counts the days the daily files no longer reach from the monthly files, and leaves days no file covers unjudged', async () => {
    // Daily files reach 90 days back, monthly ones 12 months (the current month up to yesterday).
    const from = addDays(TEST_TODAY, -100);
    const to = addDays(TEST_TODAY, -85);
    const { judged } = await judge([rule('timeouts', {})], from, to);
    expect(judged.result.errors).toEqual([]);
    const months = seen.filter(
      (x) => x.operationId === 'exceptionsDownloadUrl' && /_to_/.test(JSON.stringify(x.requestBody)),
    );
    expect(months.length).toBe(1);
    const answer = judged.answers.get(judged.plan.sources[0]!.call) as ExceptionDays;
    for (let day = from; day <= to; day = addDays(day, 1)) expect(answer.counts[day], day).toEqual(linesOn(day));

    const old = await judge(
      [rule('timeouts', { condition: { kind: 'threshold', below: 1_000_000 } })],
      '2024-06-03',
      '2024-06-09',
    );
    const none = old.judged.answers.get(old.judged.plan.sources[0]!.call) as ExceptionDays;
    expect(none.missing['2024-06-05']).toBe('no exception file covers 2024-06-05');
    // Every day would fire "below" if it counted as 0: none is judged.
    expect(old.judged.changes).toEqual([]);
  }, 120_000);

  it('leaves only the exception rules of a product unjudged when a file arrives corrupt', async () => {
    emu.faults.set({ rules: [{ path: '_exc_', corruptDownloadRate: 1, times: 1 }] });
    try {
      const from = addDays(TEST_TODAY, -3);
      const { judged } = await judge(
        [
          rule('timeouts', { condition: { kind: 'threshold', above: 0 } }),
          rule('active', { metric: { kind: 'clients', status: 'active' }, condition: { kind: 'threshold', above: 0 } }),
        ],
        from,
        addDays(TEST_TODAY, -1),
      );
      expect(judged.problems).toEqual([
        { ruleId: 'timeouts', productId, reason: expect.stringMatching(/^ZipVerificationError: /), lasting: false },
      ]);
      expect(judged.result.ok).toBe(false);
      expect(new Set(judged.changes.map((c) => c.ruleId))).toEqual(new Set(['active']));
    } finally {
      emu.faults.clear();
    }
  }, 120_000);
});

describe('where a day is counted from', () => {
  const file = (fileDate: string) => ({
    fileName: `p_exc_${fileDate}.zip`,
    fileDate,
    uncompressedSizeKB: 1,
    compressedSizeKB: 1,
  });
  const listing = {
    openDailyFiles: [{ ...file('2026-11-20'), isAvailable: true }],
    dailyFiles: [file('2026-08-22'), file('2026-11-17'), file('2026-11-19')],
    monthlyFiles: [
      {
        fileName: 'p_exc_2026-07-01_to_2026-07-31.zip',
        fileStartDate: '2026-07-01',
        fileStopDate: '2026-07-31',
        uncompressedSizeKB: 1,
        compressedSizeKB: 1,
      },
    ],
  };

  it('takes the daily file, then 0 between files, then the monthly file; else the day has no figure', () => {
    expect(sourceOf('2026-11-19', listing)).toEqual({ kind: 'file', fileName: 'p_exc_2026-11-19.zip' });
    // No file for the 18th, but files on both sides: a day without exceptions.
    expect(sourceOf('2026-11-18', listing)).toEqual({ kind: 'quiet' });
    expect(sourceOf('2026-07-15', listing)).toEqual({ kind: 'file', fileName: 'p_exc_2026-07-01_to_2026-07-31.zip' });
    expect(sourceOf('2026-06-30', listing)).toEqual({ kind: 'none', reason: 'no exception file covers 2026-06-30' });
    expect(sourceOf('2026-11-20', listing)).toMatchObject({ kind: 'none', reason: expect.stringMatching(/open day/) });
  });
});
