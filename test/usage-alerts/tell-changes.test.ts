/**
 * Telling usage alert changes (src/usage-alerts/tell-changes.ts) over the real local peers (dynalite ledger, SMTP
 * sink, channel sink on 127.0.0.1): each email lists the ledger keys it tells in X-Pulse-Usage-Alert-Keys; a change
 * whose claim failed holds back its series' later changes to that recipient, so a `resolved` never reaches anyone
 * before its `firing` (the ledger's failure is injected: dynalite cannot be told to fail one claim), nor does a
 * change another live run is telling; and a webhook takes over a claim left unknown by a run that died, posting the
 * change at least once under the same event id.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { HttpChannelPoster } from '../../src/adapters/http/channel-poster.ts';
import { Channel } from '../../src/config/channels-schema.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { UsageAlertRule } from '../../src/config/usage-alerts-schema.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { usageAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { systemClock } from '../../src/ports/clock.ts';
import type { Ledger } from '../../src/ports/ledger.ts';
import { judge, type Point } from '../../src/usage-alerts/conditions.ts';
import type { StateChange } from '../../src/usage-alerts/evaluate.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';
import { tellChanges, USAGE_ALERT_KEYS_HEADER } from '../../src/usage-alerts/tell-changes.ts';
import { type LocalDigest, startLocalDigest } from '../helpers/local-digest.ts';

let local: LocalDigest;
let config: PulseConfig;
let rule: UsageAlertRule;
beforeAll(async () => {
  local = await startLocalDigest({ digests: [] });
  rule = UsageAlertRule.parse({
    id: 'active-drop',
    productIds: [local.config.products[0]!.id],
    metric: { kind: 'clients', status: 'active' },
    period: { unit: 'day' },
    condition: { kind: 'change', percent: 25, direction: 'down' },
    owner: 'owner@example.com',
    recipients: [{ address: 'ops@example.com' }, { address: 'cto@example.com' }],
    channels: ['hooks'],
  });
  config = {
    ...local.config,
    channels: [Channel.parse({ id: 'hooks', kind: 'webhook', timeoutMs: 2000, maxAttempts: 1 })],
    usageAlerts: { rules: [rule] },
  };
}, 60_000);
afterAll(() => local?.close());

/** A change as the judge makes it: 1000 the day before, `value` on `period`. */
function change(period: string, state: 'firing' | 'resolved', value: number): StateChange {
  const before: Point = { period: '2026-11-01', value: 1000, volume: 1000 };
  const point: Point = { period, value, volume: value };
  return {
    ruleId: rule.id,
    productId: rule.productIds[0]!,
    segment: null,
    period,
    state,
    repeat: false,
    verdict: judge(rule.condition, point, [before], rule.minVolume),
    evidence: [before, point],
  };
}
const series = () => seriesKey(change('2026-11-20', 'firing', 500));
const key = (period: string, state: string, to: string) => usageAlertLedgerKey(series(), period, state, to);

/** The ports of a run, with the ledger given (the real one by default) and the local channel sink. */
const ports = (ledger: Ledger = local.peers.ledger) => ({
  // The real time: the webhook sink refuses a signature whose timestamp is far from its clock.
  ...local.ports(systemClock),
  ledger,
  channels: { secrets: local.peers.channels.secrets, poster: new HttpChannelPoster() },
});

/** Usage alert emails the sink took since `after` messages, each as its recipient and the keys it lists. */
async function usageMails(after: number) {
  const mails = (await local.mails()).slice(after);
  return mails.map((m) => ({ to: m.to, keys: String(m.parsed.headers.get(USAGE_ALERT_KEYS_HEADER.toLowerCase())) }));
}

it("a failed claim of a firing holds back its series' resolved for that recipient; the next run tells both", async () => {
  const firing = change('2026-11-20', 'firing', 500);
  const resolved = change('2026-11-21', 'resolved', 520);
  const failing = key('2026-11-20', 'firing', 'ops@example.com');
  // The ledger's claim of one key fails (a throttled or lost DynamoDB call): nothing was claimed for it.
  const real = local.peers.ledger;
  const ledger: Ledger = {
    claim: (k, opts) => (k === failing ? Promise.reject(new Error('ThrottlingException')) : real.claim(k, opts)),
    complete: (k, detail) => real.complete(k, detail),
    release: (k) => real.release(k),
    markUnknown: (k, reason) => real.markUnknown(k, reason),
    get: (k, opts) => real.get(k, opts),
  };
  const seen = (await local.mails()).length;
  const first = await tellChanges(config, ports(ledger), [firing, resolved]);
  expect(first.failed).toBe(1);
  expect([...first.untold]).toEqual([series()]);
  // cto got both; ops got nothing of the series (not the resolved alone), so ops's resolved is not even claimed.
  expect(await usageMails(seen)).toEqual([
    {
      to: 'cto@example.com',
      keys: `${key('2026-11-20', 'firing', 'cto@example.com')} ${key('2026-11-21', 'resolved', 'cto@example.com')}`,
    },
  ]);
  expect(await local.peers.ledger.get(key('2026-11-21', 'resolved', 'ops@example.com'))).toBeUndefined();

  const second = await tellChanges(config, ports(), [firing, resolved]);
  expect(second).toMatchObject({ emails: 1, failed: 0, alreadyTold: 4, untold: new Set() });
  expect(await usageMails(seen + 1)).toEqual([
    { to: 'ops@example.com', keys: `${failing} ${key('2026-11-21', 'resolved', 'ops@example.com')}` },
  ]);
}, 60_000);

it('a webhook claim a dead run left unknown is taken over and posted under the same event id', async () => {
  const firing = change('2026-11-23', 'firing', 400);
  const webhook = key('2026-11-23', 'firing', 'channel:hooks');
  // A run claimed the webhook's key and died before it posted: its claim is unknown now.
  const dead = new DynamoDbLedger({
    client: dynamoDocumentClientFor({ endpoint: local.peers.dynamodbEndpoint }),
    tableName: local.peers.tableName,
  });
  expect((await dead.claim(webhook)).outcome).toBe('claimed');
  await dead.markUnknown(webhook, 'the run died holding it');
  const emailKey = key('2026-11-23', 'firing', 'ops@example.com');
  expect((await dead.claim(emailKey)).outcome).toBe('claimed');
  await dead.markUnknown(emailKey, 'the run died holding it');

  const before = local.peers.channels.received.length;
  const told = await tellChanges(config, ports(), [firing]);
  // The email's unknown claim is never sent again; the webhook's is taken over and delivered.
  expect(told).toMatchObject({ posts: 1, unknown: 1, emails: 1 });
  await local.peers.channels.idle();
  const posts = local.peers.channels.received.slice(before);
  expect(posts.map((p) => p.headers['webhook-id'])).toEqual([channelEventId(webhook)]);
  expect((await local.peers.ledger.get(webhook))?.state).toBe('done');
  expect((await local.peers.ledger.get(emailKey))?.state).toBe('unknown');
}, 60_000);

it("another live run telling a change: this run holds its series' later changes back and leaves the state to it", async () => {
  const firing = change('2026-11-25', 'firing', 450);
  const resolved = change('2026-11-26', 'resolved', 600);
  // Two invocations at once, each with the functions' 15-minute lease: the other one has claimed ops's firing.
  const ledgerOf = () =>
    new DynamoDbLedger({
      client: dynamoDocumentClientFor({ endpoint: local.peers.dynamodbEndpoint }),
      tableName: local.peers.tableName,
    });
  const other = ledgerOf();
  const opsFiring = key('2026-11-25', 'firing', 'ops@example.com');
  expect((await other.claim(opsFiring)).outcome).toBe('claimed');

  const seen = (await local.mails()).length;
  const told = await tellChanges(config, ports(ledgerOf()), [firing, resolved]);
  // Not counted as a failure: the other run is telling it. Its series' state is the other run's to write.
  expect(told).toMatchObject({ failed: 0, unknown: 0 });
  expect([...told.untold]).toEqual([series()]);
  const mails = await usageMails(seen);
  expect(mails.map((m) => m.to)).toEqual(['cto@example.com']);
  // ops's resolved was not claimed: the run holding the firing tells both, in that order.
  expect(await local.peers.ledger.get(key('2026-11-26', 'resolved', 'ops@example.com'))).toBeUndefined();
}, 60_000);
