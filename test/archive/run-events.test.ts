/**
 * The archive's run events end to end: `pulse archive`'s run (runArchive) in the local runtime, over the emulator,
 * s3rver, the ledger and the local channel sinks, with `archive.channels` naming the example's Slack, Teams and
 * webhook channels. Each finished run is told once per channel, as `archive.completed` or `archive.failed`, from its
 * manifest; a webhook that missed a run's event gets it from the next run under the same webhook-id; a chat post
 * whose outcome is unknown is never posted again; runs from before the archive had channels are never told.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import type { ReceivedPost } from '../../src/adapters/local/channel-sink.ts';
import { EXAMPLE_CONFIG, type LocalRuntime, startLocalRuntime } from '../../src/app/local-runtime.ts';
import type { Manifest } from '../../src/archive/manifest.ts';
import { type ArchiveRunOptions, runArchive } from '../../src/archive/run-archive.ts';
import { loadConfig } from '../../src/config/load.ts';
import { DELIVERY_ID_HEADER } from '../../src/core/channels/deliver-to-channel.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { archiveEventLedgerKey } from '../../src/core/delivery/ledger-keys.ts';

const SLACK = 'product-slack';
const TEAMS = 'product-teams';
const HOOK = 'pulse-events';
const lines: string[] = [];
const logger = new ConsoleLogger({ service: 'test', level: 'info', write: (l) => lines.push(l) });

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-archive-events-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

async function withRuntime(
  dir: string,
  channels: string[] | undefined,
  fn: (rt: LocalRuntime) => Promise<void>,
): Promise<void> {
  const config = loadConfig(EXAMPLE_CONFIG);
  const rt = await startLocalRuntime({ workDir: join(tmp, dir), config, logger, emulator: { clients: 120 } });
  if (channels !== undefined) rt.config.archive!.channels = channels;
  // One product and its exports only: the events are what is under test, not the copy.
  rt.config.archive!.kinds = ['exceptions'];
  try {
    await fn(rt);
  } finally {
    await rt.close();
  }
}

const archive = (rt: LocalRuntime, opts: ArchiveRunOptions = {}) => {
  const { client, archive, clock, logger, ledger, channels } = rt.ports;
  return runArchive(
    rt.config,
    { client, archive: archive!, clock, logger, ledger, ...(channels ? { channels } : {}) },
    { productIds: [rt.config.products[0]!.id], ...opts },
  );
};

type Event = { type: string; id: string; data: { runId: string; manifestKey: string; problems: string[] } };
const delivered = (rt: LocalRuntime, channel: string): ReceivedPost[] =>
  rt.peers.channels.received.filter((p) => p.channel === channel && p.delivered);
const events = (rt: LocalRuntime): Event[] => delivered(rt, HOOK).map((p) => p.body as Event);
const manifestOf = async (rt: LocalRuntime, key: string): Promise<Manifest> =>
  JSON.parse(Buffer.from((await rt.ports.archive!.get(key))!).toString('utf8')) as Manifest;
const manifestKeyOf = (outputs: string[]) => outputs.find((o) => o.includes('/manifests/'))!;
const eventKey = (runId: string, channel: string) => archiveEventLedgerKey(runId, `channel:${channel}`);

describe('each finished run is told once to each archive channel', () => {
  it('archive.completed from the manifest, one post per channel; the next run tells its own run only', async () => {
    await withRuntime('completed', [SLACK, TEAMS, HOOK], async (rt) => {
      const first = await archive(rt);
      expect(first.ok, first.errors.join('\n')).toBe(true);
      const manifest = await manifestOf(rt, manifestKeyOf(first.outputs));
      expect(manifest.channels).toEqual([SLACK, TEAMS, HOOK]);
      for (const channel of [SLACK, TEAMS, HOOK]) expect(delivered(rt, channel)).toHaveLength(1);

      const [event] = events(rt);
      expect(event).toMatchObject({
        type: 'archive.completed',
        id: channelEventId(eventKey(manifest.runId, HOOK)),
        data: { runId: manifest.runId, manifestKey: manifestKeyOf(first.outputs), complete: true, problems: [] },
      });
      expect(delivered(rt, HOOK)[0]!.webhook).toMatchObject({ verified: true, duplicate: false });
      const slack = JSON.stringify(delivered(rt, SLACK)[0]!.body);
      expect(slack).toContain('Archive run complete');
      expect(delivered(rt, SLACK)[0]!.headers[DELIVERY_ID_HEADER]).toBe(
        channelEventId(eventKey(manifest.runId, SLACK)),
      );
      expect(JSON.stringify(delivered(rt, TEAMS)[0]!.body)).toContain('AdaptiveCard');
      expect((await rt.ports.ledger.get(eventKey(manifest.runId, TEAMS)))?.state).toBe('done');

      const second = await archive(rt);
      expect(second.ok, second.errors.join('\n')).toBe(true);
      const secondRun = (await manifestOf(rt, manifestKeyOf(second.outputs))).runId;
      expect(secondRun).not.toBe(manifest.runId);
      for (const channel of [SLACK, TEAMS, HOOK]) expect(delivered(rt, channel)).toHaveLength(2);
      expect(events(rt).map((e) => e.data.runId)).toEqual([manifest.runId, secondRun]);
      expect(delivered(rt, HOOK).every((p) => p.webhook?.duplicate === false)).toBe(true);
    });
  }, 120_000);

  it('a run with problems is archive.failed and names them', async () => {
    await withRuntime('failed', [HOOK, SLACK], async (rt) => {
      const result = await archive(rt, { productIds: [rt.config.products[0]!.id, '99999999999'] });
      expect(result.ok).toBe(false);
      const [event] = events(rt);
      expect(event!.type).toBe('archive.failed');
      expect(event!.data.problems).toContain('unknown product 99999999999');
      const slack = JSON.stringify(delivered(rt, SLACK)[0]!.body);
      expect(slack).toContain('Archive run failed');
      expect(slack).toContain('unknown product 99999999999');
    });
  }, 120_000);
});

describe('what a channel missed', () => {
  it('a webhook down past its attempts fails the run by name; the next run delivers it under the same webhook-id', async () => {
    await withRuntime('webhook-down', [HOOK], async (rt) => {
      rt.config.channels.find((c) => c.id === HOOK)!.maxAttempts = 2;
      rt.peers.channels.faults.script(HOOK, [
        { kind: 'serverError', status: 503 },
        { kind: 'serverError', status: 503 },
      ]);
      const first = await archive(rt);
      expect(first.ok).toBe(false);
      expect(first.errors.join('\n')).toMatch(
        /archive event not delivered: run \S+ to webhook pulse-events: failed: WebhookUndeliveredError: .* in 2 attempt\(s\)/,
      );
      const missed = (await manifestOf(rt, manifestKeyOf(first.outputs))).runId;
      expect(delivered(rt, HOOK)).toHaveLength(0);
      // The manifest is written all the same: the run's record does not wait for a receiver.
      expect(first.outputs.some((o) => o.includes('/manifests/'))).toBe(true);

      const second = await archive(rt);
      expect(second.ok, second.errors.join('\n')).toBe(true);
      const secondRun = (await manifestOf(rt, manifestKeyOf(second.outputs))).runId;
      expect(events(rt).map((e) => e.data.runId)).toEqual([missed, secondRun]);
      // The late one carries the id its failed attempts carried.
      const attempts = rt.peers.channels.received.filter((p) => p.channel === HOOK).map((p) => p.headers['webhook-id']);
      expect(attempts).toEqual([
        channelEventId(eventKey(missed, HOOK)),
        channelEventId(eventKey(missed, HOOK)),
        channelEventId(eventKey(missed, HOOK)),
        channelEventId(eventKey(secondRun, HOOK)),
      ]);
      expect(lines.some((l) => l.includes('archive event delivered late') && l.includes(missed))).toBe(true);

      // Told: a third run looks back no further than the run before it, and posts its own only.
      await archive(rt);
      expect(delivered(rt, HOOK)).toHaveLength(3);
    });
  }, 120_000);

  it('a run told while an older one failed again does not hide the older one: the run after delivers it', async () => {
    await withRuntime('flaky-webhook', [HOOK], async (rt) => {
      rt.config.channels.find((c) => c.id === HOOK)!.maxAttempts = 2;
      // Run 1's own event, then run 2's retry of it, fail; everything after is taken.
      rt.peers.channels.faults.script(HOOK, Array(4).fill({ kind: 'serverError', status: 503 }));
      const runIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const result = await archive(rt);
        runIds.push((await manifestOf(rt, manifestKeyOf(result.outputs))).runId);
        expect(result.ok, `run ${i + 1}: ${result.errors.join('\n')}`).toBe(i === 2);
      }
      expect(events(rt).map((e) => e.data.runId)).toEqual([runIds[1], runIds[0], runIds[2]]);
    });
  }, 120_000);

  it('a channel taken out of archive.channels is told of no run, older ones included', async () => {
    await withRuntime('channel-removed', [HOOK, SLACK], async (rt) => {
      rt.config.channels.find((c) => c.id === HOOK)!.maxAttempts = 1;
      rt.peers.channels.faults.script(HOOK, [{ kind: 'serverError', status: 503 }]);
      expect((await archive(rt)).ok).toBe(false);
      rt.config.archive!.channels = [SLACK];
      const after = await archive(rt);
      expect(after.ok, after.errors.join('\n')).toBe(true);
      expect(delivered(rt, HOOK)).toHaveLength(0);
      expect(delivered(rt, SLACK)).toHaveLength(2);
    });
  }, 120_000);

  it('a chat post whose outcome is unknown is reported and never posted again, by this run or the next', async () => {
    await withRuntime('chat-unknown', [SLACK], async (rt) => {
      rt.config.channels.find((c) => c.id === SLACK)!.timeoutMs = 1000;
      rt.peers.channels.faults.script(SLACK, [{ kind: 'timeout' }]);
      const first = await archive(rt);
      expect(first.ok).toBe(false);
      expect(first.errors.join('\n')).toMatch(
        /archive event not delivered: .* to Slack channel product-slack: unknown/,
      );
      const runId = (await manifestOf(rt, manifestKeyOf(first.outputs))).runId;
      expect((await rt.ports.ledger.get(eventKey(runId, SLACK)))?.state).toBe('unknown');
      const postsOfFirst = () =>
        rt.peers.channels.received.filter(
          (p) => p.headers[DELIVERY_ID_HEADER] === channelEventId(eventKey(runId, SLACK)),
        );
      expect(postsOfFirst()).toHaveLength(1);

      const second = await archive(rt);
      expect(second.ok, second.errors.join('\n')).toBe(true);
      expect(postsOfFirst()).toHaveLength(1);
      expect(delivered(rt, SLACK)).toHaveLength(2); // the first (taken, unknown to Pulse) and the second run's
    });
  }, 120_000);

  it('runs from before the archive had channels are never told', async () => {
    await withRuntime('added-later', [], async (rt) => {
      const before = await archive(rt);
      expect((await manifestOf(rt, manifestKeyOf(before.outputs))).channels).toBeUndefined();
      rt.config.archive!.channels = [HOOK];
      const after = await archive(rt);
      expect(after.ok, after.errors.join('\n')).toBe(true);
      expect(events(rt).map((e) => e.data.runId)).toEqual([(await manifestOf(rt, manifestKeyOf(after.outputs))).runId]);
    });
  }, 120_000);

  it('a runtime without channels fails each archive channel by name, after writing the manifest', async () => {
    await withRuntime('no-channel-ports', [HOOK], async (rt) => {
      const { client, archive: store, clock, ledger } = rt.ports;
      const result = await runArchive(
        rt.config,
        { client, archive: store!, clock, logger, ledger },
        { productIds: [rt.config.products[0]!.id] },
      );
      expect(result.ok).toBe(false);
      expect(result.errors.join('\n')).toMatch(/to webhook pulse-events: failed: .*no channels in this runtime/);
      expect(result.outputs.some((o) => o.includes('/manifests/'))).toBe(true);
    });
  }, 120_000);
});
