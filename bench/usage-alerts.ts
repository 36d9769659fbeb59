/**
 * The usage alerts' targets (`node bench/usage-alerts.ts`; readable lines on stderr, one JSON line last), against
 * an emulator on 127.0.0.1 (5,000 clients in the first product, the second and third smaller): the report calls a
 * run of 20 rules over 3 products makes (target: one per product and metric family, 3 × 3 = 9, not one per rule),
 * and a year's backtest of 10 rules (target ≤ 5 s), each judged over every day or week of it.
 */
import { startEmulator } from '../emulator/index.ts';
import { ConsoleLogger } from '../src/adapters/console-logger.ts';
import { reportingClientFor } from '../src/app/service-client.ts';
import { parseConfig } from '../src/config/load.ts';
import { addDays } from '../src/core/calendar.ts';
import { fixedClock } from '../src/ports/clock.ts';
import { judgeUsageAlerts } from '../src/usage-alerts/run-usage-alerts.ts';
import { median, round } from './measure.ts';

const TODAY = '2026-11-20';
const BACKTEST_RUNS = 3;
const logger = new ConsoleLogger({ service: 'bench', level: 'error', write: () => undefined });

const emu = await startEmulator({ clients: 5000, seed: 7, today: TODAY, maxSessionsPerUser: 100 });
try {
  const products = emu.products.map((p) => p.productId);
  const base = { owner: 'owner@example.com', recipients: [{ address: 'ops@example.com' }], productIds: products };
  const day = { unit: 'day' };
  const rules = [
    ...(['active', 'new', 'lost'] as const).flatMap((status, i) => [
      {
        ...base,
        id: `${status}-deviation`,
        period: day,
        metric: { kind: 'clients', status },
        condition: { kind: 'deviation' },
      },
      {
        ...base,
        id: `${status}-change`,
        period: day,
        metric: { kind: 'clients', status },
        condition: { kind: 'change', percent: 25 },
      },
      {
        ...base,
        id: `${status}-floor`,
        period: day,
        metric: { kind: 'clients', status },
        condition: { kind: 'threshold', below: i },
      },
    ]),
    ...Array.from({ length: 8 }, (_, i) => ({
      ...base,
      id: `event-${i}`,
      period: day,
      metric: { kind: 'eventCount', event: { category: null, name: `event-${i % 6}` } },
      condition: { kind: 'deviation', k: 4 },
    })),
    {
      ...base,
      id: 'share-a',
      period: day,
      metric: { kind: 'segmentShare', property: 'prodVersion', value: '4.0' },
      condition: { kind: 'change', percent: 20 },
    },
    {
      ...base,
      id: 'share-b',
      period: day,
      metric: { kind: 'segmentShare', property: 'prodVersion', value: '4.1' },
      condition: { kind: 'change', percent: 20 },
    },
    {
      ...base,
      id: 'by-version',
      period: day,
      metric: { kind: 'clients', status: 'active' },
      segment: { property: 'prodVersion' },
      condition: { kind: 'deviation' },
    },
  ];
  const config = parseConfig({
    service: {
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      headerPrefix: emu.headerPrefix,
      credentials: { source: 'env' },
    },
    products: products.map((id) => ({ id })),
    mail: { from: 'pulse@example.com' },
    usageAlerts: { rules },
  });
  const ports = () => ({
    client: reportingClientFor(config.service, () => emu.credentials, logger),
    clock: fixedClock(`${TODAY}T12:00:00.000Z`),
    logger,
  });
  const run = await judgeUsageAlerts(config, ports());
  if (!run.result.ok) throw new Error(run.result.errors.join('; '));
  process.stderr.write(`20 rules over ${products.length} products: ${run.result.counts.calls} report calls\n`);

  const ten = rules.slice(0, 10).map((r) => r.id);
  const times: number[] = [];
  let changes = 0;
  for (let i = 0; i < BACKTEST_RUNS; i++) {
    const t = performance.now();
    const year = await judgeUsageAlerts(config, ports(), { ruleIds: ten, from: addDays(TODAY, -365) });
    times.push(performance.now() - t);
    if (!year.result.ok) throw new Error(year.result.errors.join('; '));
    changes = year.changes.length;
  }
  process.stderr.write(`a year's backtest of 10 rules: ${times.map((t) => Math.round(t)).join(', ')} ms\n`);
  console.log(
    JSON.stringify({
      rules: rules.length,
      products: products.length,
      calls: run.result.counts.calls,
      callTarget: products.length * 3,
      backtestMs: round(median(times), 0),
      backtestRuns: BACKTEST_RUNS,
      backtestChanges: changes,
      backtestTargetMs: 5000,
    }),
  );
} finally {
  await emu.close();
}
