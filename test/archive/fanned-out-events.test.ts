/**
 * The archive's run events as they go in AWS, over the real peers (emulator, s3rver, dynalite for the run records
 * and the ledger) and the local channel sink: the copier that records a run's last outcome tells the run's webhook,
 * once however the copies were batched or delivered twice; a run whose copiers never all report is told by the
 * plan step that finishes it, and a run whose event the webhook did not take is told by the next finish.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbArchiveRuns } from '../../src/adapters/aws/dynamodb-archive-runs.ts';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { HttpChannelPoster } from '../../src/adapters/http/channel-poster.ts';
import { type ChannelSink, startChannelSink } from '../../src/adapters/local/channel-sink.ts';
import { runCopyStep } from '../../src/archive/copy-step.ts';
import type { Manifest } from '../../src/archive/manifest.ts';
import { type PlanStepPorts, runPlanStep } from '../../src/archive/plan-step.ts';
import { Channel } from '../../src/config/channels-schema.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { archiveEventLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { MemoryCopyQueue } from '../helpers/memory-copy-queue.ts';
import { type ArchivePeers, NO_RAW_PRODUCT, RUN_AT, startArchivePeers } from './archive-peers.ts';

const HOOK = 'archive-hook';
const HOUR = 3_600_000;
const at = (hours: number) => new Date(Date.parse(RUN_AT) + hours * HOUR).toISOString();

let ap: ArchivePeers;
let sink: ChannelSink;
let outbox: string;
let config: PulseConfig;
/** The runs' time, which the sink's clock follows: it judges a webhook's timestamp by it, as a receiver then would. */
let now = RUN_AT;
beforeAll(async () => {
  ap = await startArchivePeers({ productIds: [NO_RAW_PRODUCT], clients: 60 });
  outbox = await mkdtemp(join(tmpdir(), 'pulse-archive-events-outbox-'));
  sink = await startChannelSink({ outboxDir: outbox, clock: { now: () => new Date(now) } });
  config = {
    ...ap.config,
    channels: [Channel.parse({ id: HOOK, kind: 'webhook', timeoutMs: 1000, maxAttempts: 1 })],
    archive: { ...ap.config.archive!, kinds: ['exceptions'], channels: [HOOK] },
  };
});
afterAll(async () => {
  await sink?.close();
  await ap?.close();
  await rm(outbox, { recursive: true, force: true });
});

/** The Lambdas' ports (src/app/lambda/archive-steps.ts) pointed at the peers, at `when`. */
function ports(queue: MemoryCopyQueue, when: string): PlanStepPorts {
  const clock = fixedClock(when);
  now = when;
  const db = dynamoDocumentClientFor({ endpoint: ap.peers.dynamodbEndpoint });
  const tableName = ap.config.state!.tableName;
  return {
    ...ap.ports(),
    clock,
    queue,
    runs: new DynamoDbArchiveRuns({ client: db, tableName, clock }),
    ledger: new DynamoDbLedger({ client: db, tableName, clock }),
    channels: { secrets: sink.secrets, poster: new HttpChannelPoster() },
  };
}

async function drain(p: PlanStepPorts, queue: MemoryCopyQueue) {
  const finished = [];
  for (let n = 1; queue.messages.length > 0; n++) {
    const batch = queue.take(3);
    // Every other batch delivered twice, as SQS may.
    finished.push(...(await runCopyStep(config, p, n % 2 === 0 ? [...batch, ...batch] : batch)).finished);
  }
  return finished;
}

type Event = { type: string; data: { runId: string } };
const taken = () => sink.received.filter((p) => p.channel === HOOK && p.delivered);
const runIdOf = async (outputs: string[]) =>
  (await ap.json<Manifest>(outputs.find((o) => o.includes('/manifests/'))!)).runId;

describe('the run events of a fanned-out archive', () => {
  it('the copier that finishes a run tells the webhook once, under the id of the run’s ledger key', async () => {
    const queue = new MemoryCopyQueue();
    const p = ports(queue, RUN_AT);
    const planned = await runPlanStep(config, p);
    expect(planned.ok, planned.errors.join('\n')).toBe(true);
    expect(taken()).toHaveLength(0); // nothing to tell while copies are outstanding
    const finished = await drain(p, queue);
    expect(finished).toHaveLength(1);
    expect(finished[0]!.ok, finished[0]!.errors.join('\n')).toBe(true);
    const runId = await runIdOf(finished[0]!.outputs);
    expect(taken().map((t) => t.body as Event)).toMatchObject([{ type: 'archive.completed', data: { runId } }]);
    expect(taken()[0]!.webhook).toMatchObject({
      id: channelEventId(archiveEventLedgerKey(runId, `channel:${HOOK}`)),
      verified: true,
    });
  }, 120_000);

  it('a run finished late by the plan step is told by it; the webhook missing it then gets it from the next finish', async () => {
    const before = taken().length;
    const lostQueue = new MemoryCopyQueue();
    await runPlanStep(config, ports(lostQueue, at(24)));
    lostQueue.take(lostQueue.messages.length); // the copier crashed on every delivery
    // The plan step that finishes the stale run posts its event; the webhook answers 503 (one attempt).
    sink.faults.script(HOOK, [{ kind: 'serverError', status: 503 }]);
    const queue = new MemoryCopyQueue();
    const p = ports(queue, at(24 + 14));
    const next = await runPlanStep(config, p);
    expect(next.counts.staleRunsFinished).toBe(1);
    expect(next.errors.join('\n')).toMatch(/archive event not delivered: run \S+ to webhook archive-hook: failed/);
    expect(taken()).toHaveLength(before);
    const stale = await runIdOf(next.outputs);

    const finished = await drain(p, queue);
    const runId = await runIdOf(finished[0]!.outputs);
    expect(
      taken()
        .slice(before)
        .map((t) => [(t.body as Event).type, (t.body as Event).data.runId]),
    ).toEqual([
      ['archive.failed', stale],
      ['archive.completed', runId],
    ]);
  }, 120_000);
});
