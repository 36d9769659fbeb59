/**
 * The channel guarantees end to end: the digest and the license report of the bundled example (two recipients and
 * a Slack, a Teams and a webhook channel) run in the local runtime against the local channel sinks, with the
 * sinks' scripted faults standing in for what the services do. Slack and Teams are at most once (429 waited out,
 * a refusal released for the next run, a timeout unknown and never posted again, told to the owner's notice
 * channels once); webhooks at least once with one id (5xx retried under the same webhook-id, signatures verified
 * by the Standard Webhooks library in the sink).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import type { ReceivedPost } from '../../src/adapters/local/channel-sink.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import { loadConfig } from '../../src/config/load.ts';
import { DELIVERY_ID_HEADER } from '../../src/core/channels/deliver-to-channel.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { digestLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { runDigest } from '../../src/digest/run-digest.ts';

const WEEK = '2026-W46';
const SLACK = 'product-slack';
const TEAMS = 'product-teams';
const HOOK = 'pulse-events';
const lines: string[] = [];
const logger = new ConsoleLogger({ service: 'test', level: 'info', write: (l) => lines.push(l) });

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-channel-guarantees-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function withRuntime(dir: string, fn: (rt: LocalRuntime) => Promise<void>): Promise<void> {
  const config = loadConfig(EXAMPLE_CONFIG);
  const rt = await startLocalRuntime({ workDir: join(tmp, dir), config, logger, emulator: { clients: 300 } });
  try {
    await fn(rt);
  } finally {
    await rt.close();
  }
}

const delivered = (rt: LocalRuntime, channel: string): ReceivedPost[] =>
  rt.peers.channels.received.filter((p) => p.channel === channel && p.delivered);
const posts = (rt: LocalRuntime, channel: string): ReceivedPost[] =>
  rt.peers.channels.received.filter((p) => p.channel === channel);
const digest = (rt: LocalRuntime, opts: { unknownDeliveries?: 'resend' | 'confirm' } = {}) =>
  runDigest(rt.config, rt.ports, { week: WEEK, ...opts });
const key = (channel: string) => digestLedgerKey('exec-weekly', WEEK, `channel:${channel}`);

describe('Slack and Teams: at most once', () => {
  it('429 then success: the Retry-After is waited out and one message is posted', async () => {
    await withRuntime('rate-limit', async (rt) => {
      rt.peers.channels.faults.script(SLACK, [{ kind: 'rateLimit', retryAfterSeconds: 1 }]);
      const started = Date.now();
      const result = await digest(rt);
      expect(result).toMatchObject({ ok: true, counts: { sent: 5, failed: 0, unknown: 0 } });
      expect(posts(rt, SLACK).map((p) => p.status)).toEqual([429, 200]);
      expect(delivered(rt, SLACK)).toHaveLength(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    });
  }, 120_000);

  it('refused: failed and named, nothing posted, the others still delivered; the next run posts it once', async () => {
    await withRuntime('refused', async (rt) => {
      rt.peers.channels.faults.script(TEAMS, [
        { kind: 'refuse', status: 404, body: '{"error":{"code":"WorkflowNotFound"}}' },
      ]);
      const first = await digest(rt);
      expect(first).toMatchObject({ ok: false, counts: { sent: 4, failed: 1 } });
      expect(first.errors.join('\n')).toMatch(/to Teams channel product-teams: failed: ChannelRefusedError: .*404/);
      expect(delivered(rt, TEAMS)).toHaveLength(0);
      expect(delivered(rt, SLACK)).toHaveLength(1);
      expect(delivered(rt, HOOK)).toHaveLength(1);
      expect(await rt.ports.ledger.get(key(TEAMS))).toBeUndefined();

      const second = await digest(rt);
      expect(second).toMatchObject({ ok: true, counts: { sent: 1, skippedAlreadySent: 4 } });
      expect(delivered(rt, TEAMS)).toHaveLength(1);
      expect(delivered(rt, SLACK)).toHaveLength(1);
    });
  }, 120_000);

  it('a timeout after the post was taken: unknown, never posted again, the owner told once; --resend-unknown posts it', async () => {
    await withRuntime('timeout', async (rt) => {
      rt.peers.channels.faults.script(SLACK, [{ kind: 'timeout' }]);
      const slack = rt.config.channels.find((c) => c.id === SLACK)!;
      slack.timeoutMs = 1000;
      const first = await digest(rt);
      expect(first).toMatchObject({ ok: false, counts: { sent: 4, unknown: 1 } });
      const digestPosts = () =>
        delivered(rt, SLACK).filter((p) => p.headers[DELIVERY_ID_HEADER] === channelEventId(key(SLACK)));
      expect(digestPosts()).toHaveLength(1); // the sink took it: the worst case
      expect((await rt.ports.ledger.get(key(SLACK)))?.state).toBe('unknown');
      // The owner's notice of it went to every notice channel (Slack included) and to the owner's email.
      const notices = (channel: string) =>
        delivered(rt, channel).filter((p) => JSON.stringify(p.body).includes('Delivery unknown'));
      expect(notices(TEAMS)).toHaveLength(1);
      expect(notices(SLACK)).toHaveLength(1);
      const unknownEvents = delivered(rt, HOOK).filter((p) => (p.body as { type: string }).type === 'delivery.unknown');
      expect(unknownEvents).toHaveLength(1);
      expect((unknownEvents[0]!.body as { data: { to: string } }).data.to).toBe('Slack channel product-slack');

      const again = await digest(rt);
      expect(again).toMatchObject({ ok: false, counts: { sent: 0, unknown: 1, skippedAlreadySent: 4 } });
      expect(digestPosts()).toHaveLength(1);
      expect(notices(TEAMS)).toHaveLength(1); // told once

      const resent = await digest(rt, { unknownDeliveries: 'resend' });
      expect(resent).toMatchObject({ ok: true, counts: { sent: 1, unknown: 0 } });
      expect(digestPosts()).toHaveLength(2); // a person asked for it
      expect((await rt.ports.ledger.get(key(SLACK)))?.state).toBe('done');
    });
  }, 120_000);

  it('every chat post names its delivery, one id per (subject, channel)', async () => {
    await withRuntime('ids', async (rt) => {
      await digest(rt);
      await digest(rt);
      for (const channel of [SLACK, TEAMS]) {
        expect(delivered(rt, channel).map((p) => p.headers[DELIVERY_ID_HEADER])).toEqual([
          channelEventId(key(channel)),
        ]);
      }
    });
  }, 120_000);
});

describe('webhooks: at least once, one id', () => {
  it('503, 503, then taken: three attempts under one webhook-id, each signed and verified', async () => {
    await withRuntime('webhook-retries', async (rt) => {
      rt.peers.channels.faults.script(HOOK, [
        { kind: 'serverError', status: 503 },
        { kind: 'serverError', status: 503 },
      ]);
      const result = await digest(rt);
      expect(result).toMatchObject({ ok: true, counts: { sent: 5 } });
      const attempts = posts(rt, HOOK);
      expect(attempts.map((p) => p.status)).toEqual([503, 503, 204]);
      expect(new Set(attempts.map((p) => p.headers['webhook-id']))).toEqual(new Set([channelEventId(key(HOOK))]));
      expect(new Set(attempts.map((p) => p.headers['webhook-timestamp'])).size).toBeGreaterThanOrEqual(1);
      expect(delivered(rt, HOOK)[0]!.webhook).toMatchObject({ verified: true, duplicate: false });
    });
  }, 120_000);

  it('taken but unanswered on every attempt: reported, released, and the next run delivers it again with the same id', async () => {
    await withRuntime('webhook-dropped', async (rt) => {
      const hook = rt.config.channels.find((c) => c.id === HOOK)!;
      hook.maxAttempts = 2;
      rt.peers.channels.faults.script(HOOK, [{ kind: 'drop' }, { kind: 'drop' }]);
      const first = await digest(rt);
      expect(first).toMatchObject({ ok: false, counts: { sent: 4, failed: 1 } });
      expect(first.errors.join('\n')).toMatch(/webhook pulse-events: failed: WebhookUndeliveredError: .* 2 attempt/);
      expect(await rt.ports.ledger.get(key(HOOK))).toBeUndefined();

      const second = await digest(rt);
      expect(second).toMatchObject({ ok: true, counts: { sent: 1 } });
      const taken = delivered(rt, HOOK);
      expect(taken).toHaveLength(3); // twice dropped after reading, once answered
      expect(new Set(taken.map((p) => p.webhook?.id))).toEqual(new Set([channelEventId(key(HOOK))]));
      expect(rt.peers.channels.duplicates(HOOK)).toBe(2);
    });
  }, 120_000);
});

it('no log line holds a channel URL', () => {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(line).not.toMatch(/127\.0\.0\.1:\d+\/(slack|teams|webhook)\//);
});
