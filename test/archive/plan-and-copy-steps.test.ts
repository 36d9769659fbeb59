/**
 * The archive job as it runs in AWS, split into a plan step and copiers, over the real peers (emulator, s3rver,
 * dynalite for the run records) and an in-process queue: the copies arrive in batches, some twice, in any order,
 * and the run's manifest is written once, by whoever records the last outcome, with the same content an in-process
 * run would have. A refused task, a bad message and a copier that never reports are all accounted for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbArchiveRuns, RUNS_PK } from '../../src/adapters/aws/dynamodb-archive-runs.ts';
import { dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { BadCopyMessageError, parseCopyMessage, runCopyStep } from '../../src/archive/copy-step.ts';
import type { Coverage } from '../../src/archive/coverage.ts';
import { type Manifest, verifyManifestChain } from '../../src/archive/manifest.ts';
import { type PlanStepPorts, runPlanStep } from '../../src/archive/plan-step.ts';
import { loadPlan, StoredPlanError } from '../../src/archive/plan-store.ts';
import { ReportingClient } from '../../src/client/index.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { MemoryCopyQueue } from '../helpers/memory-copy-queue.ts';
import { type ArchivePeers, NO_RAW_PRODUCT, RAW_PRODUCT, RUN_AT, startArchivePeers } from './archive-peers.ts';

let ap: ArchivePeers;
beforeAll(async () => {
  ap = await startArchivePeers();
});
afterAll(async () => {
  await ap?.close();
});

const HOUR = 3_600_000;
const at = (hoursAfterRun: number) => new Date(Date.parse(RUN_AT) + hoursAfterRun * HOUR).toISOString();

function planStepPorts(queue: MemoryCopyQueue, when = RUN_AT): PlanStepPorts {
  const clock = fixedClock(when);
  const db = dynamoDocumentClientFor({ endpoint: ap.peers.dynamodbEndpoint });
  return {
    ...ap.ports(),
    clock,
    queue,
    runs: new DynamoDbArchiveRuns({ client: db, tableName: ap.config.state!.tableName, clock }),
  };
}

/** Drains the queue as Lambda would: batches of `size`, each message of every `dupEvery`th batch delivered twice. */
async function drain(ports: PlanStepPorts, queue: MemoryCopyQueue, size: number, dupEvery = 0) {
  const finished = [];
  const retried = [];
  for (let n = 1; queue.messages.length > 0; n++) {
    const batch = queue.take(size);
    const again = dupEvery > 0 && n % dupEvery === 0 ? batch : [];
    const res = await runCopyStep(ap.config, ports, [...batch, ...again]);
    finished.push(...res.finished);
    retried.push(...res.retry);
  }
  return { finished, retried };
}

describe('the archive fanned out to copiers', () => {
  let queue: MemoryCopyQueue;
  let ports: PlanStepPorts;
  let planned: Awaited<ReturnType<typeof runPlanStep>>;

  it('plans, keeps the plan in the archive and queues one task per file, client data first', async () => {
    queue = new MemoryCopyQueue();
    ports = planStepPorts(queue);
    planned = await runPlanStep(ap.config, ports);
    expect(planned.errors).toEqual([]);
    expect(planned.ok).toBe(true);
    expect(planned.counts.listed).toBeGreaterThan(300);
    expect(planned.counts).toMatchObject({ queued: planned.counts.listed, notQueued: 0, notEnabled: 1 });
    expect(planned.outputs).toEqual(['pulse/runs/2026-11-20T12-00-00.000Z/plan.json']);
    expect(queue.messages).toHaveLength(planned.counts.listed);
    const kinds = queue.messages.map((m) => JSON.parse(m.body).file.kind);
    expect(kinds.slice(0, 2)).toEqual(['clientData', 'clientData']);
    // Nothing is finished while copies are outstanding.
    expect(await ap.keys('pulse/manifests/')).toEqual([]);
  });

  it('copies in batches, some delivered twice, and the last copier writes the manifest once', async () => {
    const { finished, retried } = await drain(ports, queue, 7, 3);
    expect(retried).toEqual([]);
    expect(finished).toHaveLength(1);
    const [run] = finished;
    expect(run!.errors).toEqual([]);
    const listed = planned.counts.listed;
    expect(run!.counts).toMatchObject({ listed, archived: listed, skippedSame: 0, failed: 0, notEnabled: 1 });
    expect(run!.outputs).toEqual([
      'pulse/manifests/2026-11-20T12-00-00.000Z.json',
      'pulse/coverage/2026-11-20T12-00-00.000Z.json',
    ]);
    const manifest = await ap.json<Manifest>(run!.outputs[0]!);
    expect(manifest.files).toHaveLength(listed);
    expect(manifest.files.every((f) => f.outcome === 'archived' && f.sha256?.length === 64)).toBe(true);
    expect(manifest.startedAt).toBe(RUN_AT);
    const coverage = await ap.json<Coverage>(run!.outputs[1]!);
    expect(coverage.kinds.every((k) => k.missing.length === 0 && k.failed.length === 0)).toBe(true);
  }, 120_000); // a whole fanned-out run over real peers: about 30 s on a loaded 2-CPU machine

  it('a second run copies nothing new, its manifest chained to the first', async () => {
    const q = new MemoryCopyQueue();
    const p = planStepPorts(q, at(24));
    const plan = await runPlanStep(ap.config, p);
    expect(plan.counts).toMatchObject({ present: plan.counts.listed - 2, missing: 2 }); // a new day's client data
    const { finished } = await drain(p, q, 10);
    expect(finished[0]!.counts).toMatchObject({ archived: 2, skippedSame: plan.counts.listed - 2, failed: 0 });
    expect(await verifyManifestChain(ap.peers.archive, 'pulse')).toMatchObject({ ok: true, manifests: 2 });
  });
});

describe('nothing is lost on the way', () => {
  it('a task the queue refuses is recorded as failed with the queue’s reason, and the run still finishes', async () => {
    const refused = (key: string) => key.includes(`/${RAW_PRODUCT}/rawEvents/`);
    const queue = new MemoryCopyQueue((m) => (refused(m.file.key) ? 'ThrottlingException: slow down' : undefined));
    const ports = planStepPorts(queue, at(48));
    const plan = await runPlanStep(ap.config, ports, { productIds: [RAW_PRODUCT] });
    expect(plan.counts.notQueued).toBeGreaterThan(0);
    const { finished } = await drain(ports, queue, 10);
    const manifest = await ap.json<Manifest>(finished[0]!.outputs[0]!);
    const failed = manifest.files.filter((f) => f.outcome === 'failed');
    expect(failed).toHaveLength(plan.counts.notQueued);
    expect(failed.every((f) => refused(f.key!))).toBe(true);
    expect(failed[0]!.reason).toBe('not copied: the copy queue did not take the task (ThrottlingException: slow down)');
    expect(finished[0]!.ok).toBe(false);
  });

  it('a message that is not a copy task is handed back (to be dead-lettered) and logged, nothing copied', async () => {
    const queue = new MemoryCopyQueue();
    const ports = planStepPorts(queue, at(72));
    const hostile = {
      runId: 'x',
      file: {
        productId: NO_RAW_PRODUCT,
        kind: 'customEvents',
        fileName: '../../etc/passwd',
        fileDate: '2026-11-01',
        key: 'pulse/x',
        state: 'missing',
        backfill: false,
      },
    };
    const res = await runCopyStep(ap.config, ports, [
      { id: 'not-json', body: '{' },
      { id: 'hostile', body: JSON.stringify(hostile) },
    ]);
    expect(res.retry).toEqual(['not-json', 'hostile']);
    expect(res.outcomes).toEqual([]);
    expect(await ap.keys('pulse/x')).toEqual([]);
    expect(ap.logLines.some((l) => l.includes('bad message') && l.includes('hostile'))).toBe(true);
  });

  it('refuses a message of the wrong shape by its first bad field', () => {
    const body = JSON.stringify({ runId: 'r', file: { productId: NO_RAW_PRODUCT, kind: 'customEvents' } });
    expect(() => parseCopyMessage(body)).toThrow(
      new BadCopyMessageError(
        'copy message is malformed at file.fileName: Invalid input: expected string, received undefined',
      ),
    );
    expect(() => parseCopyMessage('{')).toThrow(new BadCopyMessageError('copy message is not valid JSON'));
  });

  it('reads a stored plan back through its schema: missing, not JSON or malformed is a StoredPlanError', async () => {
    const key = 'pulse/runs/2026-11-20T12-00-00.000Z/plan.json';
    expect((await loadPlan(ap.peers.archive, key)).kinds.length).toBeGreaterThan(0);
    await expect(loadPlan(ap.peers.archive, 'pulse/runs/none/plan.json')).rejects.toThrow(
      new StoredPlanError('plan pulse/runs/none/plan.json is missing from the archive'),
    );
    await ap.overwrite('pulse/runs/bad/plan.json', '{"runDate":"2026-11-20"');
    await expect(loadPlan(ap.peers.archive, 'pulse/runs/bad/plan.json')).rejects.toThrow(
      /^plan pulse\/runs\/bad\/plan.json is not valid JSON$/,
    );
    await ap.overwrite('pulse/runs/bad/plan.json', '{"runDate":"2026-11-20","kinds":[{"productId":1}]}');
    await expect(loadPlan(ap.peers.archive, 'pulse/runs/bad/plan.json')).rejects.toThrow(
      /^plan pulse\/runs\/bad\/plan.json is malformed at kinds\[0\]\.productId: /,
    );
  });

  it('a run whose copier never reports is finished by a later plan step, and the files are backfilled', async () => {
    const deleted = (await ap.keys(`pulse/${NO_RAW_PRODUCT}/customEvents/`))
      .filter((k) => k.endsWith('.zip'))
      .slice(0, 3);
    for (const key of deleted) {
      await ap.remove(key);
      await ap.remove(`${key}.sha256`);
    }
    const queue = new MemoryCopyQueue();
    const ports = planStepPorts(queue, at(96));
    const lost = await runPlanStep(ap.config, ports, { productIds: [NO_RAW_PRODUCT] });
    expect(lost.counts.missing).toBe(3 + 1);
    queue.take(queue.messages.length); // the copier crashed on every delivery: the messages went to the dead-letter queue

    // Within the stale window the run is left alone; after it, the next plan step finishes it and queues the files again.
    const soon = await runPlanStep(ap.config, planStepPorts(new MemoryCopyQueue(), at(97)), {
      productIds: [NO_RAW_PRODUCT],
    });
    expect(soon.counts.staleRunsFinished).toBe(0);
    const retryQueue = new MemoryCopyQueue();
    const later = planStepPorts(retryQueue, at(96 + 14));
    const next = await runPlanStep(ap.config, later, { productIds: [NO_RAW_PRODUCT] });
    expect(next.counts.staleRunsFinished).toBe(2);
    expect(next.ok).toBe(false);
    const staleManifest = await ap.json<Manifest>(next.outputs.find((o) => o.includes('manifests/'))!);
    const notCopied = staleManifest.files.filter((f) => f.outcome === 'failed');
    expect(notCopied.map((f) => f.key).sort()).toEqual(expect.arrayContaining(deleted.sort()));
    expect(notCopied[0]!.reason).toBe('not copied: the copier never reported (see the dead-letter queue)');

    const { finished } = await drain(later, retryQueue, 10);
    const final = finished[0]!;
    expect(final.counts).toMatchObject({ failed: 0, archived: 3 + 1 });
    for (const key of deleted) expect(await ap.keys(key)).toEqual([key, `${key}.sha256`]);
    expect(await verifyManifestChain(ap.peers.archive, 'pulse')).toMatchObject({ ok: true });
  });

  it('keeps its run records in the state table beside the ledger, with a lifetime', async () => {
    const runs = new DynamoDbArchiveRuns({
      client: dynamoDocumentClientFor({ endpoint: ap.peers.dynamodbEndpoint }),
      tableName: ap.config.state!.tableName,
    });
    const run = await runs.get('2026-11-20T12-00-00.000Z');
    expect(run).toMatchObject({
      status: 'finished',
      remaining: 0,
      planKey: 'pulse/runs/2026-11-20T12-00-00.000Z/plan.json',
    });
    expect(RUNS_PK).toBe('archive-runs');
  });
});

describe('integrity in the fanned-out run', () => {
  it('a copier reports a crash leftover as repaired and a rewritten checksum file, as an in-process run does', async () => {
    const keys = (await ap.keys(`pulse/${NO_RAW_PRODUCT}/exceptions/`)).filter((k) => k.endsWith('.zip'));
    const [leftover, unchecked] = [keys[2]!, keys[3]!];
    const original = (await ap.peers.archive.get(leftover))!;
    await ap.overwrite(leftover, 'PK, cut short');
    await ap.remove(`${unchecked}.sha256`);
    const queue = new MemoryCopyQueue();
    const ports = planStepPorts(queue, at(200));
    await runPlanStep(ap.config, ports, { productIds: [NO_RAW_PRODUCT], kinds: ['exceptions'] });
    const { finished } = await drain(ports, queue, 10);
    expect(finished[0]!.counts).toMatchObject({ repaired: 1, checksumsRepaired: 1, republished: 0, failed: 0 });
    const manifest = await ap.json<Manifest>(finished[0]!.outputs[0]!);
    expect(manifest.files.find((f) => f.key === leftover)).toMatchObject({ outcome: 'repaired' });
    expect(manifest.files.find((f) => f.key === unchecked)).toMatchObject({
      outcome: 'skippedSame',
      checksumRepaired: true,
    });
    expect(Buffer.from((await ap.peers.archive.get(leftover))!).equals(Buffer.from(original))).toBe(true);
    const coverage = await ap.json<Coverage>(finished[0]!.outputs[1]!);
    expect(coverage.kinds[0]!.repaired).toHaveLength(1);
  });

  it('a plan step that cannot sign in writes a manifest saying the run could not look, and fails', async () => {
    const emu = ap.peers.emulator;
    const queue = new MemoryCopyQueue();
    const wrong = new ReportingClient({
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      credentials: { userName: emu.credentials.userName, password: 'not-the-password' },
      maxRetries: 0,
    });
    const planned = await runPlanStep(ap.config, { ...planStepPorts(queue, at(201)), client: wrong });
    expect(planned.ok).toBe(false);
    expect(queue.messages).toEqual([]);
    const kinds = ap.config.products.length * ap.config.archive!.kinds.length;
    expect(planned.counts).toMatchObject({ listed: 0, failed: kinds, queued: 0 });
    const manifest = await ap.json<Manifest>(planned.outputs.find((o) => o.includes('/manifests/'))!);
    expect(manifest).toMatchObject({ complete: false, problems: [expect.stringMatching(/^nothing was listed: /)] });
    expect(manifest.kinds.every((k) => k.status === 'notListed')).toBe(true);
    expect(await verifyManifestChain(ap.peers.archive, 'pulse')).toMatchObject({ ok: true });
  });
});
