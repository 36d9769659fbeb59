/**
 * Engagement rules (src/usage-alerts/engagement-figures.ts) against the emulator, over real sockets: each period's
 * figure is the sum of the histogram's bins from `atLeast` up in a direct `usageDistribution` call for that period
 * (as a count, or as a share of every client in the histogram); rules of the same product, period and filters share
 * one call per period, whatever their measure; a threshold rule fires and resolves where the direct figures say; and
 * a bin the interface does not document is a named config error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, type EmulatorExchange, observeExchanges } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { parseConfig } from '../../src/config/load.ts';
import { ENGAGEMENT_BINS } from '../../src/config/usage-alerts-schema.ts';
import { addDays } from '../../src/core/calendar.ts';
import { fixedClock } from '../../src/ports/clock.ts';
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
  emu = await startTestEmulator({ clients: 1500 });
  productId = emu.products[0]!.productId;
  stopWatching = observeExchanges((x) => seen.push(x));
});
afterAll(async () => {
  stopWatching?.();
  await emu?.close();
});

const FROM = addDays(TEST_TODAY, -15);
const TO = addDays(TEST_TODAY, -2);
const WINDOWS = { prodEdition: { type: 'string', value: 'Professional' } };

const rule = (id: string, over: Record<string, unknown>) => ({
  id,
  productIds: [productId],
  period: { unit: 'day' },
  owner: 'owner@example.com',
  recipients: [{ address: 'ops@example.com' }],
  metric: { kind: 'engagement', measure: 'sessions', atLeast: '6 - 8', as: 'clients' },
  condition: { kind: 'threshold', above: 1_000_000 },
  ...over,
});

const configWith = (rules: unknown[]) =>
  parseConfig({
    ...rawConfigFor(emu),
    products: emu.products.map((p) => ({ id: p.productId })),
    usageAlerts: { rules },
  });

async function judge(rules: unknown[]) {
  const config = configWith(rules);
  const ports = {
    client: reportingClientFor(config.service, () => emu.credentials, logger),
    clock: fixedClock(`${TEST_TODAY}T12:00:00.000Z`),
    logger,
  };
  seen.length = 0;
  const judged = await judgeUsageAlerts(config, ports, { from: FROM, to: TO });
  expect(judged.result.errors).toEqual([]);
  return { config, judged };
}

type Histogram = Record<string, { users: number }>;
/** Per day, the direct answer's histogram of `measure`: clients per bin. */
async function directHistograms(measure: 'sessions' | 'runtime', filters?: unknown) {
  const config = configWith([rule('x', {})]);
  const client = reportingClientFor(config.service, () => emu.credentials, logger);
  const out = new Map<string, Histogram>();
  await client.withSession(async (c) => {
    for (let day = FROM; day <= TO; day = addDays(day, 1)) {
      const answer = (await c.call('usageDistribution', {
        productId,
        body: { startDate: day, stopDate: day, ...(filters ? { globalFilters: filters } : {}) },
      })) as { result: Record<string, Histogram> };
      out.set(day, answer.result[measure]!);
    }
  });
  return out;
}

/** The clients of the bins from `atLeast` up, in the order the interface documents them. */
function fromBin(h: Histogram, measure: 'sessions' | 'runtime', atLeast: string): number {
  const labels = ENGAGEMENT_BINS[measure];
  return labels.slice(labels.indexOf(atLeast as never)).reduce((n, label) => n + h[label]!.users, 0);
}
const total = (h: Histogram) => Object.values(h).reduce((n, b) => n + b.users, 0);

describe('engagement rules against the emulator', () => {
  it('judge the sum of the bins from atLeast up, as clients or as a share, one call per period for all of them', async () => {
    const { config, judged } = await judge([
      rule('sessions', {}),
      rule('runtime-share', {
        metric: { kind: 'engagement', measure: 'runtime', atLeast: '0:31 - 1:00', as: 'share' },
      }),
      rule('windows', { filters: WINDOWS }),
    ]);
    const days = 1 + (Date.parse(TO) - Date.parse(FROM)) / 86_400_000;
    // The two unfiltered rules share a call per day; the filtered one has its own.
    expect(seen.filter((x) => x.operationId === 'usageDistribution')).toHaveLength(2 * days);
    expect(judged.result.counts.calls).toBe(2 * days);
    const seriesOfRule = (id: string) =>
      seriesOf(
        config.usageAlerts!.rules.find((r) => r.id === id)!,
        judged.plan.sources.find((s) => s.ruleId === id)!,
        judged.answers,
      )[0]!.points;
    const sessions = await directHistograms('sessions');
    const runtime = await directHistograms('runtime');
    const windows = await directHistograms('sessions', WINDOWS);
    for (const point of seriesOfRule('sessions')) {
      const want = fromBin(sessions.get(point.period)!, 'sessions', '6 - 8');
      expect(point, point.period).toEqual({ period: point.period, value: want, volume: want });
    }
    for (const point of seriesOfRule('windows'))
      expect(point.value, point.period).toBe(fromBin(windows.get(point.period)!, 'sessions', '6 - 8'));
    for (const point of seriesOfRule('runtime-share')) {
      const h = runtime.get(point.period)!;
      const share = Math.round((fromBin(h, 'runtime', '0:31 - 1:00') / total(h)) * 1000) / 10;
      expect(point, point.period).toEqual({ period: point.period, value: share, volume: total(h) });
    }
    // Figures that say something: clients in those bins on some days.
    const figures = seriesOfRule('sessions').map((p) => p.value);
    expect(Math.max(...figures)).toBeGreaterThan(0);
    expect(Math.max(...seriesOfRule('runtime-share').map((p) => p.value))).toBeGreaterThan(0);
    expect(seriesOfRule('sessions').length).toBe(days);
  }, 120_000);

  it('fire a threshold rule on the days the direct figures pass it, and resolve on the first day they do not', async () => {
    const sessions = await directHistograms('sessions');
    const figures = [...sessions].map(([day, h]) => [day, fromBin(h, 'sessions', '4 - 5')] as const);
    const sorted = figures.map(([, v]) => v).sort((a, b) => a - b);
    const above = sorted[Math.floor(sorted.length * 0.6)]!;
    const expected: [string, string][] = [];
    let firing = false;
    for (const [day, value] of figures) {
      if (value > above && !firing) expected.push([day, 'firing']);
      if (value <= above && firing) expected.push([day, 'resolved']);
      firing = value > above;
    }
    expect(expected.length).toBeGreaterThan(0);
    const { judged } = await judge([
      rule('busy', {
        metric: { kind: 'engagement', measure: 'sessions', atLeast: '4 - 5', as: 'clients' },
        condition: { kind: 'threshold', above },
      }),
    ]);
    expect(judged.changes.map((c) => [c.period, c.state])).toEqual(expected);
  }, 120_000);

  it('refuse a bin the interface does not document, naming the field and the bins', () => {
    expect(() =>
      configWith([rule('x', { metric: { kind: 'engagement', measure: 'sessions', atLeast: '5', as: 'clients' } })]),
    ).toThrow(/usageAlerts\.rules\[0\]\.metric\.atLeast: not a sessions bin: "5" \(one of "≤ 1", "2", "3", "4 - 5"/);
    expect(() =>
      configWith([rule('x', { metric: { kind: 'engagement', measure: 'runtime', atLeast: '6 - 8', as: 'share' } })]),
    ).toThrow(/metric\.atLeast: not a runtime bin: "6 - 8"/);
  });
});
