/**
 * The usage rules judged against the emulator over real sockets (src/usage-alerts/run-usage-alerts.ts): rules that
 * need the same report share one call (the emulator counts the calls it answered); every rule is judged on complete
 * periods only; and a backtest over six weeks finds exactly the changes the live job tells when it runs every day of
 * those weeks from its first (each run judging the periods after its stored state's, the states kept in memory).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, type EmulatorExchange, observeExchanges } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { addDays } from '../../src/core/calendar.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import type { SeriesState, UsageAlertStates } from '../../src/ports/usage-alert-states.ts';
import type { StateChange } from '../../src/usage-alerts/evaluate.ts';
import { lastJudgeablePeriod, shiftPeriod } from '../../src/usage-alerts/periods.ts';
import { judgeUsageAlerts, TELL_PERIODS } from '../../src/usage-alerts/run-usage-alerts.ts';
import { rawConfigFor } from '../helpers/emulator-config.ts';
import { startTestEmulator, TEST_TODAY } from '../helpers/emulator-session.ts';

const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
let emu: Emulator;
let config: PulseConfig;
const seen: EmulatorExchange[] = [];
let stopWatching: () => void;

const rule = (id: string, over: Record<string, unknown>) => ({
  id,
  period: { unit: 'day' },
  owner: 'owner@example.com',
  recipients: [{ address: 'ops@example.com' }],
  metric: { kind: 'clients', status: 'active' },
  condition: { kind: 'change', percent: 15 },
  ...over,
});

beforeAll(async () => {
  emu = await startTestEmulator();
  const products = emu.products.map((p) => p.productId);
  const raw = rawConfigFor(emu);
  config = parseConfig({
    ...raw,
    products: products.map((id) => ({ id })),
    usageAlerts: {
      rules: [
        rule('active-change', { productIds: products }),
        rule('new-deviation', {
          productIds: products,
          metric: { kind: 'clients', status: 'new' },
          condition: { kind: 'deviation', k: 2 },
        }),
        rule('lost-floor', {
          productIds: products,
          metric: { kind: 'clients', status: 'lost' },
          condition: { kind: 'threshold', above: 1 },
        }),
        rule('versions', { productIds: [products[0]], segment: { property: 'prodVersion', limit: 3 } }),
        rule('weekly', {
          productIds: products,
          period: { unit: 'week' },
          condition: { kind: 'deviation', baselinePeriods: 4 },
        }),
      ],
    },
  });
  stopWatching = observeExchanges((x) => seen.push(x));
});
afterAll(async () => {
  stopWatching?.();
  await emu?.close();
});

const portsAt = (at: string) => ({
  client: reportingClientFor(config.service, () => emu.credentials, logger),
  clock: fixedClock(at),
  logger,
});
const reportCalls = () => seen.filter((x) => x.operationId === 'dateRangeReport' || x.operationId === 'basicTimeline');
const signIns = () => seen.filter((x) => x.operationId === 'signIn').length;

describe('usage rules against the emulator', () => {
  it('share report calls: one per product and metric family, answered once each', async () => {
    seen.length = 0;
    const { result, windows } = await judgeUsageAlerts(config, portsAt(`${TEST_TODAY}T12:00:00.000Z`));
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    const products = config.products.length;
    // Per product: the daily client report, the weekly one; the first product also its versions split.
    expect(result.counts.calls).toBe(2 * products + 1);
    expect(reportCalls()).toHaveLength(result.counts.calls);
    // The versions rule: every value among the 3 largest in some judged period.
    expect(result.counts.series).toBeGreaterThanOrEqual(4 * products + 3);
    // Judged 24 h after a period ended: on the 20th at noon the 18th is the last complete day.
    expect(windows.get('active-change')).toEqual({ from: addDays(TEST_TODAY, -4), to: addDays(TEST_TODAY, -2) });
  });

  it('a live run asks nothing for rules whose series judged their last settled period; a segmented rule is asked', async () => {
    const kept = new Map<string, SeriesState>();
    const states: UsageAlertStates = { get: async (k) => kept.get(k), put: async (k, v) => void kept.set(k, v) };
    const live = async (at: string) => {
      seen.length = 0;
      const judged = await judgeUsageAlerts(config, portsAt(at), { states });
      for (const [k, v] of judged.states) await states.put(k, v);
      return { ...judged.result.counts, asked: reportCalls().length, signIns: signIns() };
    };
    const noon = `${TEST_TODAY}T12:00:00.000Z`;
    const first = await live(noon);
    expect(first).toMatchObject({ rules: 5, upToDate: 0, asked: first.calls });
    // An hour later nothing new has settled: only the versions rule (its values come with the answer) is asked.
    const later = await live(`${TEST_TODAY}T13:00:00.000Z`);
    expect(later).toMatchObject({ rules: 5, upToDate: 4, calls: 1, asked: 1, firing: 0, resolved: 0 });
    // A day on, a day has settled: every daily rule is asked again (the weekly one waits for its week).
    const nextDay = await live(`${addDays(TEST_TODAY, 1)}T12:00:00.000Z`);
    expect(nextDay.upToDate).toBeLessThan(4);
    expect(nextDay.asked).toBeGreaterThan(1);
    // With only up-to-date rules, the run does not even sign in.
    seen.length = 0;
    const quiet = await judgeUsageAlerts(config, portsAt(`${addDays(TEST_TODAY, 1)}T13:00:00.000Z`), {
      states,
      ruleIds: ['active-change', 'lost-floor'],
    });
    expect(quiet.result.counts).toMatchObject({ rules: 2, upToDate: 2, calls: 0 });
    expect(seen).toEqual([]);
  });

  it('a rule whose call the service refuses goes unjudged, named with why; the other rules are judged', async () => {
    const withBadRule = parseConfig({
      ...rawConfigFor(emu),
      products: config.products.map((p) => ({ id: p.id })),
      usageAlerts: {
        rules: [
          rule('active-change', { productIds: [config.products[0]!.id] }),
          rule('no-such-property', {
            productIds: [config.products[0]!.id],
            segment: { property: 'noSuchProperty', limit: 3 },
          }),
        ],
      },
    });
    const judged = await judgeUsageAlerts(withBadRule, portsAt(`${TEST_TODAY}T12:00:00.000Z`));
    expect(judged.result.ok).toBe(false);
    expect(judged.problems).toEqual([
      expect.objectContaining({ ruleId: 'no-such-property', productId: config.products[0]!.id, lasting: true }),
    ]);
    expect(judged.problems[0]!.reason).toMatch(/^BadRequestError: dateRangeReport: .*noSuchProperty/);
    expect(judged.result.errors).toEqual([
      expect.stringMatching(/^rule no-such-property, product \S+: not judged: BadRequestError/),
    ]);
    // The good rule's series were judged from the one call that answered.
    expect(judged.result.counts.calls).toBe(1);
    expect([...judged.states.keys()]).toEqual([`active-change#${config.products[0]!.id}#-`]);
  });

  it('a backtest over six weeks finds exactly what the live job tells, run every day of them', async () => {
    // The first live run (day -43) judges from 3 periods before its last judgeable one; so does the backtest.
    const firstRun = new Date(`${addDays(TEST_TODAY, -43)}T12:00:00.000Z`);
    const backtestStart = (unit: 'day' | 'week') =>
      shiftPeriod(lastJudgeablePeriod(firstRun, unit, 24), unit, -(TELL_PERIODS - 1));
    const rules = config.usageAlerts!.rules;
    const backtest = { changes: [] as StateChange[] };
    for (const unit of ['day', 'week'] as const) {
      const ruleIds = rules.filter((r) => r.period.unit === unit).map((r) => r.id);
      const at = portsAt(`${TEST_TODAY}T12:00:00.000Z`);
      const judged = await judgeUsageAlerts(config, at, { ruleIds, from: backtestStart(unit) });
      expect(judged.result.ok).toBe(true);
      backtest.changes.push(...judged.changes);
    }
    const key = (c: { ruleId: string; productId: string; segment: string | null; period: string; state: string }) =>
      `${c.ruleId} ${c.productId} ${c.segment ?? '-'} ${c.period} ${c.state}`;
    const kept = new Map<string, SeriesState>();
    const states: UsageAlertStates = { get: async (k) => kept.get(k), put: async (k, v) => void kept.set(k, v) };
    const told: string[] = [];
    for (let d = -43; d <= 0; d++) {
      const live = await judgeUsageAlerts(config, portsAt(`${addDays(TEST_TODAY, d)}T12:00:00.000Z`), { states });
      told.push(...live.changes.map(key));
      for (const [k, v] of live.states) await states.put(k, v);
    }
    const expected = backtest.changes.map(key);
    expect(told.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(3);
  }, 120_000);
});
