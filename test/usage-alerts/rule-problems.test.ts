/**
 * A rule the service cannot judge, in the local runtime (emulator, dynalite, SMTP sink on 127.0.0.1): a segment by a
 * property the product lacks is refused (400), a lasting problem, so the rule's owner gets one short email naming the
 * reason, what to check and the config field, and a rerun (still refused) sends none; a report call that keeps
 * failing with a 5xx is a passing problem, so the run fails and nobody is emailed.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { UsageAlerts } from '../../src/config/usage-alerts-schema.ts';
import { runUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';

const PRODUCT = '12345678901';
const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
let tmp: string;
let rt: LocalRuntime;
let config: PulseConfig;

const rule = (id: string, owner: string, over: Record<string, unknown>) => ({
  id,
  productIds: [PRODUCT],
  metric: { kind: 'clients', status: 'active' },
  period: { unit: 'day' },
  condition: { kind: 'threshold', above: 0 },
  owner,
  recipients: [{ address: 'ops@example.com' }],
  ...over,
});

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-usage-problems-'));
  const example = loadConfig(EXAMPLE_CONFIG);
  const rules = [
    rule('no-such-property', 'refused-owner@example.com', { segment: { property: 'noSuchProperty', limit: 3 } }),
    rule('find-surge', 'passing-owner@example.com', {
      metric: { kind: 'eventCount', event: { category: 'Edit', name: 'Find' } },
    }),
  ];
  config = {
    ...example,
    service: { ...example.service, maxRetries: 0 },
    usageAlerts: UsageAlerts.parse({ rules }),
  };
  rt = await startLocalRuntime({ workDir: join(tmp, 'work'), config, logger, emulator: { clients: 300 } });
  config = rt.config;
  // The event rule's call fails the way a service in trouble does: every time, with a 503.
  rt.peers.emulator.faults.set({ rules: [{ operations: ['basicTimeline'], serverErrorRate: 1 }] });
}, 60_000);
afterAll(async () => {
  await rt?.close();
  await rm(tmp, { recursive: true, force: true });
});

const mailsTo = (address: string) => rt.peers.sink.messages().filter((m) => m.to.includes(address));

it('the owner of a refused rule is emailed once per problem; a passing problem emails nobody', async () => {
  const first = await runUsageAlerts(config, rt.ports);
  expect(first.result.ok).toBe(false);
  expect(first.result.errors).toEqual([
    expect.stringMatching(/^rule no-such-property, product 12345678901: not judged: BadRequestError: /),
    expect.stringMatching(/^rule find-surge, product 12345678901: not judged: \w+Error: basicTimeline: 503/),
  ]);
  const notices = mailsTo('refused-owner@example.com');
  expect(notices.map((m) => m.subject)).toEqual([
    'Usage rule no-such-property cannot be judged for Example Desktop (12345678901)',
  ]);
  const eml = await readFile(notices[0]!.emlFile, 'utf8');
  const mail = await simpleParser(eml);
  expect(mail.headers.get('x-pulse-notice')).toBe('usage-rule-problem');
  const text = mail.text ?? '';
  expect(text).toMatch(/The service answered: BadRequestError: dateRangeReport: .*noSuchProperty/);
  expect(text).toMatch(/Check the rule's metric, filters and segment/);
  expect(text).toMatch(/Config: usageAlerts\.rules\[0\] \(id "no-such-property"\)/);
  expect(text).toMatch(/pulse usage-alerts --dry-run --rule no-such-property/);
  expect(eml).not.toContain(rt.peers.emulator.credentials.password);
  expect(mailsTo('passing-owner@example.com')).toHaveLength(0);
  expect(first.result.outputs).toEqual([
    'rule no-such-property, product 12345678901: owner refused-owner@example.com told it cannot be judged',
  ]);

  const again = await runUsageAlerts(config, rt.ports);
  expect(again.result.ok).toBe(false);
  expect(again.result.outputs).toEqual([]);
  expect(mailsTo('refused-owner@example.com')).toHaveLength(1);
  expect(mailsTo('passing-owner@example.com')).toHaveLength(0);
}, 120_000);
