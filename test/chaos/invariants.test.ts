/**
 * The chaos invariants catch what they name. The archive's read s3rver's files as s3rver-recovery does: an entry a
 * killed run left half-written was never committed, so the object the next run writes there is its first, not an
 * overwrite. The channels' (below) pass a clean outbox and catch each planted violation.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkArchiveEvents,
  checkChannelLedger,
  checkChannelPosts,
  type EpochChannels,
} from '../../scripts/chaos/channel-invariants.ts';
import { ChaosState, checkArchive } from '../../scripts/chaos/invariants.ts';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { HttpChannelPoster } from '../../src/adapters/http/channel-poster.ts';
import { startChannelSink } from '../../src/adapters/local/channel-sink.ts';
import { ensureTable, startDynalite } from '../../src/adapters/local/peer-servers.ts';
import { Channel } from '../../src/config/channels-schema.ts';
import { type LedgerItem, readLedger } from '../../src/console/ledger-snapshot.ts';
import type { ChannelMessage } from '../../src/core/channels/channel-message.ts';
import { deliverToChannel } from '../../src/core/channels/deliver-to-channel.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { archiveEventLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import type { ChannelKind } from '../../src/ports/channels.ts';
import type { Logger } from '../../src/ports/logger.ts';

const root = mkdtempSync(join(tmpdir(), 'pulse-chaos-invariants-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bucketDir = join(root, 's3', 'pulse-archive');
const folder = join(bucketDir, 'chaos-e0', 'p');
mkdirSync(folder, { recursive: true });
const bytes = Buffer.from('the service bytes');
const sha = createHash('sha256').update(bytes).digest('hex');
const expected = new Map([
  ['a.zip', sha],
  ['b.zip', sha],
]);

/** An s3rver entry: the object, and its metadata file (`''` = the empty one a SIGKILL mid-write leaves). */
function entry(name: string, metadata: string, mtime: number): void {
  writeFileSync(join(folder, `${name}._S3rver_object`), bytes);
  writeFileSync(join(folder, `${name}._S3rver_metadata.json`), metadata);
  utimesSync(join(folder, `${name}._S3rver_object`), mtime, mtime);
}

it('a half-written entry is not an object; the write after it is not an overwrite', async () => {
  const state = new ChaosState();
  entry('a.zip', '{"content-type":"application/zip"}', 1000);
  entry('b.zip', '', 1000);
  const archived = await checkArchive(state, bucketDir, 'chaos-e0', expected);
  expect([...archived]).toEqual(['a.zip']);
  // The next start moves b.zip aside and the run archives it anew; a.zip is rewritten behind the job's back.
  entry('b.zip', '{"content-type":"application/zip"}', 2000);
  entry('a.zip', '{"content-type":"application/zip"}', 2000);
  const after = await checkArchive(state, bucketDir, 'chaos-e0', expected);
  expect([...after].sort()).toEqual(['a.zip', 'b.zip']);
  expect(state.violations).toEqual([
    {
      run: 0,
      invariant: 'archive: object never overwritten',
      detail: `chaos-e0/p/a.zip changed (sha ${sha} → ${sha})`,
    },
  ]);
});

/**
 * The channel invariants (scripts/chaos/channel-invariants.ts) over what the real local channel sink wrote and a real
 * ledger (DynamoDbLedger on dynalite, read back as the chaos runner does): Pulse's own deliverToChannel posts, the
 * sink plays the faults, and each case plants one violation the way a broken sender would make it.
 */
describe('channel invariants', () => {
  const WEEK = '2026-W47';
  const DIGEST = 'exec-weekly-e0';
  const TITLE = 'Chaos digest e0';
  const EMAIL = 'ceo+e0@example.com';
  const CHANNELS = { 'slack-e0': 'slack', 'teams-e0': 'teams', 'hooks-e0': 'webhook' } as const;
  type Cid = keyof typeof CHANNELS;
  const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
  const digestKey = (cid: string, week = WEEK) => `digest#${DIGEST}#${week}#channel:${cid}`;
  const digest: ChannelMessage = {
    event: 'digest.sent',
    title: `${TITLE} · Week 47 · 16–22 Nov 2026`,
    summary: 'Active clients rose 1.9% to 216',
    lines: ['Active clients rose 1.9% to 216'],
    facts: [{ label: 'Active clients', value: '216' }],
    sections: [],
    occurredAt: '2026-11-23T07:00:00.000Z',
    data: { digestId: DIGEST, isoWeek: WEEK },
  };
  const alerts = (licenseKey: string): ChannelMessage => ({
    ...digest,
    event: 'license.alerts',
    title: 'License alerts: 1 key needs action (2026-11-27)',
    data: { shown: [{ productId: '9876543210', licenseKey, stage: 'before-7', expiryDate: '2026-12-03' }] },
  });
  const epoch = (channels: readonly Cid[] = ['slack-e0', 'teams-e0', 'hooks-e0']): EpochChannels => ({
    channels: new Map(Object.entries(CHANNELS) as [Cid, ChannelKind][]),
    weekly: [
      {
        prefix: `digest#${DIGEST}#`,
        emails: [EMAIL],
        channels,
        webhookSubject: (week) => `digest.sent#${DIGEST}#${week}`,
      },
    ],
  });

  /** A work directory with a ledger persisted like a local run's and the channel sink writing its outbox. */
  async function workDir() {
    const dir = mkdtempSync(join(root, 'channels-'));
    const dynamo = await startDynalite({ path: join(dir, 'dynamodb') });
    const db = dynamoDocumentClientFor({ endpoint: dynamo.endpoint });
    await ensureTable(db, 'pulse-state');
    const ledger = new DynamoDbLedger({ client: db, tableName: 'pulse-state' });
    const sink = await startChannelSink({ outboxDir: join(dir, 'outbox') });
    const ports = {
      ledger,
      logger: quiet,
      channels: { secrets: sink.secrets, poster: new HttpChannelPoster() },
      sleep: async () => {},
    };
    // The digest's email went out: the week is due in its channels.
    await ledger.claim(`digest#${DIGEST}#${WEEK}#${EMAIL}`);
    await ledger.complete(`digest#${DIGEST}#${WEEK}#${EMAIL}`, { messageId: '<digest@example.com>' });
    return {
      dir,
      sink,
      ledger,
      db,
      outbox: join(dir, 'outbox'),
      deliver: (key: string, cid: Cid, message: ChannelMessage, opts: { resendUnknown?: boolean } = {}) =>
        deliverToChannel(ports, key, Channel.parse({ id: cid, kind: CHANNELS[cid], timeoutMs: 1000 }), message, opts),
      /** Stops the sink and the ledger, and reads the ledger back from its folder. */
      async close(): Promise<LedgerItem[]> {
        await sink.close();
        db.destroy();
        await dynamo.close();
        return readLedger(join(dir, 'dynamodb'));
      },
    };
  }

  /** The delivered post files of a channel, as the chaos checks name them. */
  const postsOf = (w: { outbox: string }, cid: string) =>
    readdirSync(join(w.outbox, 'channels', cid)).filter((f) => f.endsWith('.json'));

  it('a clean outbox passes, with a webhook redelivered under its id and a chat post left unknown, never again', async () => {
    const w = await workDir();
    w.sink.faults.script('hooks-e0', [{ kind: 'timeout' }]);
    w.sink.faults.script('slack-e0', [{ kind: 'rateLimit', retryAfterSeconds: 1 }]);
    w.sink.faults.script('teams-e0', [{ kind: 'drop' }]);
    for (const cid of ['slack-e0', 'teams-e0', 'hooks-e0'] as const) await w.deliver(digestKey(cid), cid, digest);
    expect((await w.deliver(digestKey('teams-e0'), 'teams-e0', digest)).outcome).toBe('unknown');
    expect(
      (await w.deliver('license-alert#9876543210#K-1#before-7#2026-12-03#channel:hooks-e0', 'hooks-e0', alerts('K-1')))
        .outcome,
    ).toBe('sent');
    const items = await w.close();
    const state = new ChaosState();
    state.weeklyTitles.add(TITLE);
    await checkChannelPosts(state, w.outbox);
    const tally = checkChannelLedger(state, items, epoch());
    expect(state.violations).toEqual([]);
    // The webhook took the event twice (the first answer held back), under one id; Teams took the dropped post once.
    const hooks = [...state.channelPosts.values()].filter((p) => p.channel === 'hooks-e0');
    expect(hooks.map((p) => p.type)).toEqual(['digest.sent', 'digest.sent', 'license.alerts']);
    expect(hooks[0]!.id).toBe(hooks[1]!.id);
    expect(hooks.every((p) => p.signed)).toBe(true);
    expect(postsOf(w, 'teams-e0')).toHaveLength(1);
    expect(tally).toEqual({ chatUnknownRecords: 1, chatUnknownPosted: 1, webhookPending: 0 });
  });

  it('two chat posts with one delivery id: an unknown post posted again', async () => {
    const w = await workDir();
    w.sink.faults.script('slack-e0', [{ kind: 'timeout' }]);
    expect((await w.deliver(digestKey('slack-e0'), 'slack-e0', digest)).outcome).toBe('unknown');
    // What Pulse must never do by itself: post a chat message whose outcome is unknown again.
    expect((await w.deliver(digestKey('slack-e0'), 'slack-e0', digest, { resendUnknown: true })).outcome).toBe('sent');
    await w.close();
    const state = new ChaosState();
    state.weeklyTitles.add(TITLE);
    await checkChannelPosts(state, w.outbox);
    const [first, second] = postsOf(w, 'slack-e0');
    const id = channelEventId(digestKey('slack-e0'));
    expect(state.violations.map((v) => [v.invariant, v.detail])).toEqual([
      [
        'channel: at most one chat post per (subject, channel)',
        `slack-e0: delivery ${id} posted twice: slack-e0/${first} and slack-e0/${second}`,
      ],
      [
        'channel: at most one chat post per (subject, channel)',
        `slack-e0: "${digest.title}" twice: slack-e0/${first} and slack-e0/${second}`,
      ],
    ]);
  });

  it("one digest week posted to a chat channel under two ids: the title's week catches it", async () => {
    const w = await workDir();
    await w.deliver(digestKey('teams-e0'), 'teams-e0', digest);
    await w.deliver(digestKey('teams-e0', '2026-w47'), 'teams-e0', digest);
    await w.close();
    const state = new ChaosState();
    state.weeklyTitles.add(TITLE);
    await checkChannelPosts(state, w.outbox);
    expect(state.violations.map((v) => v.invariant)).toEqual(['channel: at most one chat post per (subject, channel)']);
    expect(state.violations[0]!.detail).toContain(`"${digest.title}" twice`);
  });

  it('one webhook event under two ids: a digest week, and a license alert in two batches', async () => {
    const w = await workDir();
    await w.deliver(digestKey('hooks-e0'), 'hooks-e0', digest);
    await w.deliver(digestKey('hooks-e0', '2026-w47'), 'hooks-e0', digest);
    await w.deliver('license-alert#9876543210#K-1#before-7#2026-12-03#channel:hooks-e0', 'hooks-e0', alerts('K-1'));
    await w.deliver('license-alert#9876543210#K-2#before-7#2026-12-03#channel:hooks-e0', 'hooks-e0', alerts('K-1'));
    await w.close();
    const state = new ChaosState();
    await checkChannelPosts(state, w.outbox);
    expect(state.violations.map((v) => v.invariant)).toEqual([
      'channel: one webhook id per event',
      'channel: one webhook id per event',
    ]);
    expect(state.violations[0]!.detail).toMatch(`hooks-e0: digest.sent#${DIGEST}#${WEEK} under `);
    expect(state.violations[1]!.detail).toMatch('hooks-e0: license.alert#9876543210#K-1#before-7#2026-12-03 under ');
  });

  it('a webhook event whose body was changed after signing fails the signature check', async () => {
    const w = await workDir();
    await w.deliver(digestKey('hooks-e0'), 'hooks-e0', digest);
    await w.close();
    const [file] = postsOf(w, 'hooks-e0');
    const path = join(w.outbox, 'channels', 'hooks-e0', file!);
    writeFileSync(path, readFileSync(path, 'utf8').replace(`"isoWeek": "${WEEK}"`, '"isoWeek": "2026-W48"'));
    const state = new ChaosState();
    await checkChannelPosts(state, w.outbox);
    expect(state.violations).toEqual([
      { run: 0, invariant: 'channel: webhook signature verified', detail: expect.stringContaining(`hooks-e0/${file}`) },
    ]);
  });

  it('a webhook delivery recorded done that the channel never got', async () => {
    const w = await workDir();
    await w.deliver(digestKey('hooks-e0'), 'hooks-e0', digest);
    const items = await w.close();
    // The receiver lost it (or Pulse recorded a post that never happened): no file for the done delivery.
    for (const f of readdirSync(join(w.outbox, 'channels', 'hooks-e0')))
      rmSync(join(w.outbox, 'channels', 'hooks-e0', f));
    const state = new ChaosState();
    await checkChannelPosts(state, w.outbox);
    checkChannelLedger(state, items, epoch(['hooks-e0']));
    const id = channelEventId(digestKey('hooks-e0'));
    expect(state.violations.map((v) => [v.invariant, v.detail])).toEqual([
      ['channel: every done delivery posted', `${digestKey('hooks-e0')}: done as ${id}, no such post in hooks-e0`],
      [
        'channel: every due webhook event delivered',
        `${digestKey('hooks-e0')}: done, no digest.sent#${DIGEST}#${WEEK} event posted`,
      ],
    ]);
  });

  it('a chat post whose ledger record is gone, and a due channel with no delivery at all', async () => {
    const w = await workDir();
    await w.deliver(digestKey('slack-e0'), 'slack-e0', digest);
    // As if the claim were released after Slack took the message: the next run would post it again.
    await w.db.send(new DeleteCommand({ TableName: 'pulse-state', Key: { pk: digestKey('slack-e0'), sk: 'ledger' } }));
    const items = await w.close();
    const state = new ChaosState();
    state.weeklyTitles.add(TITLE);
    await checkChannelPosts(state, w.outbox);
    checkChannelLedger(state, items, epoch(['slack-e0', 'teams-e0']));
    expect(state.violations.map((v) => v.invariant)).toEqual([
      'channel: every chat post has its ledger record',
      'channel: every due chat post sent or unknown',
      'channel: every due chat post sent or unknown',
    ]);
    expect(state.violations.map((v) => v.detail).slice(1)).toEqual([
      `${digestKey('slack-e0')}: no delivery`,
      `${digestKey('teams-e0')}: no delivery`,
    ]);
  });
  it('an archive run told every channel passes; one a webhook never got, and one with no chat delivery, do not', async () => {
    const w = await workDir();
    const RUN = '2026-11-27T02-20-00.000Z';
    const MISSED = '2026-11-28T02-20-00.000Z';
    const run = (runId: string): ChannelMessage => ({
      ...digest,
      event: 'archive.completed',
      title: 'Export archive · run',
      data: { runId },
    });
    const key = (runId: string, cid: string) => archiveEventLedgerKey(runId, `channel:${cid}`);
    for (const cid of ['slack-e0', 'hooks-e0'] as const) await w.deliver(key(RUN, cid), cid, run(RUN));
    // The missed run's webhook event was recorded done, but no post reached the channel; Slack has no record.
    await w.ledger.claim(key(MISSED, 'hooks-e0'));
    await w.ledger.complete(key(MISSED, 'hooks-e0'), { messageId: channelEventId(key(MISSED, 'hooks-e0')) });
    const items = await w.close();
    const state = new ChaosState();
    await checkChannelPosts(state, w.outbox);
    const channels = ['slack-e0', 'hooks-e0'];
    expect(checkArchiveEvents(state, [{ runId: RUN, channels }], items, epoch())).toBe(1);
    expect(state.violations).toEqual([]);
    checkArchiveEvents(state, [{ runId: MISSED, channels }], items, epoch());
    expect(state.violations.map((v) => [v.invariant, v.detail])).toEqual([
      ['channel: every archive run told', `${key(MISSED, 'slack-e0')}: no delivery`],
      ['channel: every archive run told', `${key(MISSED, 'hooks-e0')}: no event posted`],
    ]);
  });
});
