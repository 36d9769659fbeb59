/**
 * Usage alert deliveries whose outcome is unknown, in the local runtime (emulator, dynalite, SMTP and channel sinks
 * on 127.0.0.1): an email whose connection dropped after the whole message, or a Slack post that timed out after the
 * sink took it. Either is unknown (exit 1, with what to run), counts as told (a plain rerun sends nothing), and is
 * kept: `--resend-unknown` sends its change once, in the recipient's message, and records it sent under the same
 * key; a second one sends nothing; `--confirm-unknown` records it without sending.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { UsageAlerts } from '../../src/config/usage-alerts-schema.ts';
import { usageAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { runUsageAlerts } from '../../src/usage-alerts/run-usage-alerts.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import { startScriptedSmtp } from '../helpers/scripted-smtp.ts';

const PRODUCT = '12345678901';
const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
let tmp: string;
let rt: LocalRuntime;

/** A rule that fires on the first period it judges (every day has active clients), told to `to`. */
const firingRule = (id: string, to: { address?: string; channel?: string }) => ({
  id,
  productIds: [PRODUCT],
  metric: { kind: 'clients', status: 'active' },
  period: { unit: 'day' },
  condition: { kind: 'threshold', above: 0 },
  owner: 'rule-owner@example.com',
  recipients: to.address ? [{ address: to.address }] : [],
  channels: to.channel ? [to.channel] : [],
});

let config: PulseConfig;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-usage-unknown-'));
  const example = loadConfig(EXAMPLE_CONFIG);
  config = {
    ...example,
    usageAlerts: UsageAlerts.parse({
      rules: [
        firingRule('mail-resend', { address: 'resend@example.com' }),
        firingRule('mail-confirm', { address: 'confirm@example.com' }),
        firingRule('slack-resend', { channel: 'product-slack' }),
      ],
    }),
  };
  rt = await startLocalRuntime({ workDir: join(tmp, 'work'), config, logger, emulator: { clients: 300 } });
  config = rt.config;
}, 60_000);
afterAll(async () => {
  await rt?.close();
  await rm(tmp, { recursive: true, force: true });
});

const run = (ruleId: string, opts: { unknownDeliveries?: 'resend' | 'confirm' } = {}, ports = rt.ports) =>
  runUsageAlerts(config, ports, { ruleIds: [ruleId], ...opts });
const mailsTo = (address: string) => rt.peers.sink.messages().filter((m) => m.to.includes(address));

/** The rule's one run with its email dropped after the whole message arrived; returns its one change's key. */
async function dropped(ruleId: string, address: string): Promise<string> {
  const smtp = await startScriptedSmtp({ afterData: 'drop' });
  try {
    const mailer = smtpMailer({ host: smtp.host, port: smtp.port, secure: false });
    const { result, changes } = await run(ruleId, {}, { ...rt.ports, mailer });
    expect(smtp.received).toBe(1);
    expect(result.ok).toBe(false);
    expect(result.counts).toMatchObject({ emails: 0, unknown: 1 });
    expect(result.errors.join('\n')).toMatch(/unknown: .*--resend-unknown.*--confirm-unknown/);
    expect(changes).toHaveLength(1);
    const change = changes[0]!;
    const key = usageAlertLedgerKey(seriesKey(change), change.period, change.state, address);
    expect(await rt.ports.ledger.get(key)).toMatchObject({ state: 'unknown' });
    return key;
  } finally {
    await smtp.close();
  }
}

describe('an email whose delivery is unknown', () => {
  it('is not sent by a plain rerun; --resend-unknown sends it once and records it sent; a second sends nothing', async () => {
    const address = 'resend@example.com';
    const key = await dropped('mail-resend', address);

    const plain = await run('mail-resend');
    expect(plain.result).toMatchObject({ ok: true, counts: { emails: 0, unknown: 0 } });
    expect(plain.changes).toEqual([]);
    expect(mailsTo(address)).toHaveLength(0);

    const resent = await run('mail-resend', { unknownDeliveries: 'resend' });
    expect(resent.result.errors).toEqual([]);
    expect(resent.result.counts).toMatchObject({ emails: 1, resent: 1, unknown: 0 });
    // The kept change, rebuilt: its product and its chart.
    expect(mailsTo(address)).toEqual([
      expect.objectContaining({ subject: expect.stringContaining('Example Desktop') }),
    ]);
    expect(mailsTo(address)[0]!.attachments).toBe(1);
    expect(await rt.ports.ledger.get(key)).toMatchObject({ state: 'done', detail: { resentAfterUnknown: true } });

    const again = await run('mail-resend', { unknownDeliveries: 'resend' });
    expect(again.result).toMatchObject({ ok: true, counts: { emails: 0, resent: 0 } });
    expect(mailsTo(address)).toHaveLength(1);
  }, 120_000);

  it('--confirm-unknown records it as delivered without sending; a later --resend-unknown sends nothing', async () => {
    const address = 'confirm@example.com';
    const key = await dropped('mail-confirm', address);

    const confirmed = await run('mail-confirm', { unknownDeliveries: 'confirm' });
    expect(confirmed.result).toMatchObject({ ok: true, counts: { emails: 0, confirmed: 1 } });
    expect(await rt.ports.ledger.get(key)).toMatchObject({ state: 'done', detail: { confirmedByOperator: true } });
    const resent = await run('mail-confirm', { unknownDeliveries: 'resend' });
    expect(resent.result).toMatchObject({ ok: true, counts: { emails: 0, resent: 0, confirmed: 0 } });
    expect(mailsTo(address)).toHaveLength(0);
  }, 120_000);
});

describe('a Slack post whose delivery is unknown', () => {
  it('is not posted by a plain rerun; --resend-unknown posts it once', async () => {
    const slack = config.channels.find((c) => c.id === 'product-slack')!;
    const timeoutMs = slack.timeoutMs;
    slack.timeoutMs = 1000;
    rt.peers.channels.faults.script('product-slack', [{ kind: 'timeout' }]);
    const posts = () => rt.peers.channels.received.filter((p) => p.channel === 'product-slack' && p.delivered);
    try {
      const first = await run('slack-resend');
      expect(first.result.counts).toMatchObject({ posts: 0, unknown: 1 });
      expect(first.result.errors.join('\n')).toMatch(/Slack channel product-slack: unknown: .*--resend-unknown/);
      expect(posts()).toHaveLength(1);

      expect((await run('slack-resend')).result).toMatchObject({ ok: true, counts: { posts: 0 } });
      expect(posts()).toHaveLength(1);

      const resent = await run('slack-resend', { unknownDeliveries: 'resend' });
      expect(resent.result.errors).toEqual([]);
      expect(resent.result.counts).toMatchObject({ posts: 1, resent: 1 });
      expect(posts()).toHaveLength(2);
      expect((await run('slack-resend', { unknownDeliveries: 'resend' })).result.counts).toMatchObject({ posts: 0 });
      expect(posts()).toHaveLength(2);
    } finally {
      slack.timeoutMs = timeoutMs;
    }
  }, 120_000);
});
