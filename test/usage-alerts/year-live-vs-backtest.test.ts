/**
 * A year of the live job against its backtest, over the local runtime's real peers (emulator, dynalite states and
 * ledger, SMTP sink): `runUsageAlerts` runs once a day at noon UTC for 365 days, each run judging the periods after
 * its stored states and telling their changes by email; the backtest of the same 10 rules over the same year must
 * find exactly the changes the live job told, and the live job must have told each one once, in one email per run.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import { loadConfig, parseConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { addDays } from '../../src/core/calendar.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import type { StateChange } from '../../src/usage-alerts/evaluate.ts';
import { lastJudgeablePeriod, shiftPeriod } from '../../src/usage-alerts/periods.ts';
import { judgeUsageAlerts, runUsageAlerts, TELL_PERIODS } from '../../src/usage-alerts/run-usage-alerts.ts';
import { TEST_TODAY } from '../helpers/emulator-session.ts';

const DAYS = 365;
const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
const example = loadConfig(EXAMPLE_CONFIG);
const [desktop, server] = example.products.map((p) => p.id) as [string, string];
const both = [desktop, server];
const rule = (id: string, over: Record<string, unknown>) => ({
  id,
  productIds: both,
  period: { unit: 'day' },
  owner: 'owner@example.com',
  recipients: [{ address: 'ops@example.com' }],
  metric: { kind: 'clients', status: 'active' },
  condition: { kind: 'change', percent: 20 },
  ...over,
});
/** Ten rules of every metric, condition and period kind; one repeats while firing. */
const RULES = [
  rule('active-change', {}),
  rule('new-deviation', { metric: { kind: 'clients', status: 'new' }, condition: { kind: 'deviation', k: 2 } }),
  rule('lost-above', {
    metric: { kind: 'clients', status: 'lost' },
    condition: { kind: 'threshold', above: 2 },
    repeatEvery: 7,
  }),
  rule('active-below', { condition: { kind: 'threshold', below: 60 }, minVolume: 5 }),
  rule('by-version', { productIds: [desktop], segment: { property: 'prodVersion', limit: 3 } }),
  rule('weekly-active', { period: { unit: 'week' }, condition: { kind: 'deviation', baselinePeriods: 4 } }),
  rule('find-deviation', {
    metric: { kind: 'eventCount', event: { category: 'Edit', name: 'Find' } },
    condition: { kind: 'deviation', k: 3, direction: 'up' },
  }),
  rule('edit-weekly', {
    period: { unit: 'week' },
    metric: { kind: 'eventCount', event: { category: 'Edit', name: '^F', match: 'regex' } },
    condition: { kind: 'change', percent: 30, direction: 'either' },
  }),
  rule('share-weekly', {
    productIds: [server],
    period: { unit: 'week' },
    metric: { kind: 'segmentShare', property: 'prodVersion', value: '3.3' },
    condition: { kind: 'deviation', baselinePeriods: 4, direction: 'down' },
  }),
  rule('new-weekly-change', {
    period: { unit: 'week' },
    metric: { kind: 'clients', status: 'new' },
    condition: { kind: 'change', percent: 25, direction: 'down' },
  }),
];

let tmp: string;
let rt: LocalRuntime;
let config: PulseConfig;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-usage-year-'));
  const { usageAlerts: _, ...rest } = example;
  config = parseConfig({ ...JSON.parse(JSON.stringify(rest)), usageAlerts: { rules: RULES } });
  rt = await startLocalRuntime({
    workDir: join(tmp, 'work'),
    config,
    logger,
    emulator: { clients: 400, seed: 7, today: TEST_TODAY },
  });
});
afterAll(async () => {
  await rt?.close();
  await rm(tmp, { recursive: true, force: true });
});

const key = (c: Pick<StateChange, 'ruleId' | 'productId' | 'segment' | 'period' | 'state'>) =>
  `${c.ruleId} ${c.productId} ${c.segment ?? '-'} ${c.period} ${c.state}`;
const noonOf = (day: string) => `${day}T12:00:00.000Z`;

describe('a year of usage alerts: the live job against the backtest', () => {
  it('the backtest of 10 rules finds exactly what the live job told over the same 365 days, each once', async () => {
    const firstDay = addDays(TEST_TODAY, -DAYS);
    const told: string[] = [];
    let runsWithChanges = 0;
    for (let d = 0; d <= DAYS; d++) {
      const at = noonOf(addDays(firstDay, d));
      const { result, changes } = await runUsageAlerts(rt.config, { ...rt.ports, clock: fixedClock(at) });
      expect(result.errors, at).toEqual([]);
      expect(result.counts.emails, at).toBe(changes.length > 0 ? 1 : 0);
      expect(result.counts.alreadyTold, at).toBe(0);
      told.push(...changes.map(key));
      if (changes.length > 0) runsWithChanges++;
    }
    // What the live job told was first judged from its first run's last TELL_PERIODS periods; so is the backtest.
    const backtest: StateChange[] = [];
    for (const unit of ['day', 'week'] as const) {
      const from = shiftPeriod(lastJudgeablePeriod(new Date(noonOf(firstDay)), unit, 24), unit, -(TELL_PERIODS - 1));
      const ruleIds = RULES.filter((r) => r.period.unit === unit).map((r) => r.id);
      const ports = { ...rt.ports, clock: fixedClock(noonOf(TEST_TODAY)) };
      const judged = await judgeUsageAlerts(rt.config, ports, { ruleIds, from });
      expect(judged.result.errors).toEqual([]);
      backtest.push(...judged.changes);
    }
    expect([...told].sort()).toEqual(backtest.map(key).sort());
    expect(new Set(told).size).toBe(told.length);
    // Every rule had its say over a year, and firing-again came from the rule that repeats.
    expect(new Set(backtest.map((c) => c.ruleId)).size).toBeGreaterThanOrEqual(8);
    expect(backtest.filter((c) => c.state === 'firing').length).toBeGreaterThan(20);
    expect(backtest.filter((c) => c.state === 'resolved').length).toBeGreaterThan(20);
    // One email per run that had changes, each naming its changes' periods.
    const eml = (await readdir(rt.peers.outboxDir)).filter((f) => f.endsWith('.eml'));
    expect(eml).toHaveLength(runsWithChanges);
    const subjects = await Promise.all(eml.map((f) => readFile(join(rt.peers.outboxDir, f), 'utf8')));
    expect(subjects.every((m) => /^X-Pulse-Usage-Alerts: \d+ firing, \d+ resolved/m.test(m))).toBe(true);
  }, 300_000);
});
