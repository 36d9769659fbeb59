/**
 * functions/archive-copy/handler.ts as Lambda runs it (its bundled config file, names from the environment, the AWS
 * adapters pointed at s3rver and dynalite), against an emulator with the service's own limit of 5 sessions per user.
 * Each "container" is a fresh import of the handler's modules, so it has its own module-scope session, as a Lambda
 * container does. Measured: the sign-ins of a whole run's copies in batches of four over as many containers as the
 * session budget gives the copiers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { copierConcurrency } from '../../lib/stacks/session-budget.ts';
import { DynamoDbArchiveRuns } from '../../src/adapters/aws/dynamodb-archive-runs.ts';
import { dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { WarmSession } from '../../src/app/warm-client.ts';
import { type CopyStepPorts, runCopyStep } from '../../src/archive/copy-step.ts';
import type { Manifest } from '../../src/archive/manifest.ts';
import { type PlanStepPorts, runPlanStep } from '../../src/archive/plan-step.ts';
import type { ArchiveRuns } from '../../src/ports/archive-runs.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { type BundledConfigFile, writeBundledConfig } from '../helpers/bundled-config-file.ts';
import { signedIn, type TestSession } from '../helpers/emulator-session.ts';
import { MemoryCopyQueue } from '../helpers/memory-copy-queue.ts';
import { type ArchivePeers, RUN_AT, startArchivePeers } from './archive-peers.ts';

/** The service's limit (docs/interface.md "Sessions"), not the test emulators' roomy default. */
const SERVICE_SESSION_LIMIT = 5;
const BATCH_SIZE = 4; // as the stack's event source delivers them

type Handler = (event: { Records: { messageId: string; body: string }[] }) => Promise<{
  batchItemFailures: { itemIdentifier: string }[];
}>;

let ap: ArchivePeers;
const saved = { ...process.env };
let configFile: BundledConfigFile | undefined;

beforeAll(async () => {
  ap = await startArchivePeers({ clients: 50, maxSessionsPerUser: SERVICE_SESSION_LIMIT });
  const emu = ap.peers.emulator;
  configFile = await writeBundledConfig({ ...ap.config, state: undefined });
  Object.assign(process.env, {
    PULSE_CONFIG_FILE: configFile.path,
    PULSE_ARCHIVE_BUCKET: ap.peers.bucket,
    PULSE_STATE_TABLE: ap.config.state!.tableName,
    PULSE_USER: emu.credentials.userName,
    PULSE_PASSWORD: emu.credentials.password,
    LOG_LEVEL: 'error',
    // What Lambda's AWS clients would reach in AWS, pointed at s3rver and dynalite.
    AWS_ENDPOINT_URL_S3: ap.peers.s3Endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: ap.peers.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
  });
});
afterEach(() => {
  // The containers' kept sessions end with the test, as a frozen container's end at the service's idle timeout.
  ap.peers.emulator.state.sessions.endAll(ap.peers.emulator.credentials.userName);
});
afterAll(async () => {
  process.env = saved;
  await ap?.close();
  await configFile?.remove();
});

/** A new Lambda container: the handler's modules evaluated afresh, so nothing is shared with other containers. */
async function newContainer(): Promise<Handler> {
  vi.resetModules();
  return (await import('../../functions/archive-copy/handler.ts')).handler as Handler;
}

const sessions = () => ap.peers.emulator.state.sessions;
const liveSessions = () => sessions().liveSessionsOf(ap.peers.emulator.credentials.userName).length;
const event = (batch: { id: string; body: string }[]) => ({
  Records: batch.map((m) => ({ messageId: m.id, body: m.body })),
});

let runsPlanned = 0;
/** Plans a run (an hour after the last: a run of its own, not yet stale) and returns its queued copy tasks. */
async function plannedRun(): Promise<{ queue: MemoryCopyQueue; ports: PlanStepPorts }> {
  const queue = new MemoryCopyQueue();
  const clock = fixedClock(new Date(Date.parse(RUN_AT) + runsPlanned++ * 3_600_000).toISOString());
  const runs = new DynamoDbArchiveRuns({
    client: dynamoDocumentClientFor({ endpoint: ap.peers.dynamodbEndpoint }),
    tableName: ap.config.state!.tableName,
    clock,
  });
  const ports: PlanStepPorts = { ...ap.ports(), clock, queue, runs };
  const planned = await runPlanStep(ap.config, ports);
  expect(planned.errors).toEqual([]);
  return { queue, ports };
}

/** Fills the user's sessions up to the limit, as people and other functions signing in would. */
async function fillSessions(): Promise<TestSession[]> {
  const others: TestSession[] = [];
  while (liveSessions() < SERVICE_SESSION_LIMIT) others.push(await signedIn(ap.peers.emulator));
  return others;
}

describe('the archive copier Lambda and the session budget', () => {
  it('a warm container signs in once for two invocations and keeps the session for the next', async () => {
    const { queue } = await plannedRun();
    const handler = await newContainer();
    const before = sessions().signIns;
    for (const batch of [queue.take(BATCH_SIZE), queue.take(BATCH_SIZE)])
      expect(await handler(event(batch))).toEqual({ batchItemFailures: [] });
    expect(sessions().signIns - before).toBe(1);
    expect(liveSessions()).toBe(1);
  });

  it('at the session limit the batch is handed back as item failures, then copied once sessions are free', async () => {
    const { queue } = await plannedRun();
    const others = await fillSessions();
    const handler = await newContainer();
    const batch = queue.take(BATCH_SIZE);
    // No throw (which would redeliver the batch towards the dead-letter queue for nothing it did wrong).
    const refused = await handler(event(batch));
    expect(refused.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(batch.map((m) => m.id));
    // A person signs out; SQS delivers the messages again after the visibility timeout.
    await others[0]!.call('POST', '/v3/auth/logout', {});
    expect(await handler(event(batch))).toEqual({ batchItemFailures: [] });
    expect(liveSessions()).toBe(SERVICE_SESSION_LIMIT);
  });

  it('a session lost mid-batch that cannot be replaced hands back the file it failed and the rest', async () => {
    const { queue, ports } = await plannedRun();
    const warm = new WarmSession(ports.client);
    let recorded = 0;
    // After the first outcome is recorded, someone ends all the user's sessions and others take every place.
    const runs = new Proxy(ports.runs, {
      get: (target, prop, receiver) => {
        if (prop !== 'record') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<ArchiveRuns['record']>) => {
          const res = await target.record(...args);
          if (++recorded === 1) {
            sessions().endAll(ap.peers.emulator.credentials.userName);
            await fillSessions();
          }
          return res;
        };
      },
    });
    const copier: CopyStepPorts = { ...ports, runs, session: (fn) => warm.use(fn) };
    // Files not archived yet, so each copy needs the service (one already archived may be judged without it).
    const batch = queue.messages.filter((m) => JSON.parse(m.body).file.state === 'missing').slice(0, BATCH_SIZE);
    const res = await runCopyStep(ap.config, copier, batch);
    expect(res.outcomes.map((o) => o.outcome)).toEqual(['archived']);
    expect(res.retry).toEqual(batch.slice(1).map((m) => m.id));
    expect(ap.logLines.some((l) => l.includes('session lost during a copy'))).toBe(true);
    expect(ap.logLines.some((l) => l.includes('session limit reached; tasks handed back'))).toBe(true);
    sessions().endAll(ap.peers.emulator.credentials.userName);
    const again = await runCopyStep(ap.config, copier, batch.slice(1));
    expect(again.retry).toEqual([]);
    expect(again.outcomes.map((o) => o.outcome)).toEqual(['archived', 'archived', 'archived']);
  });

  it('a whole run in batches of four over the copiers the default budget allows: one sign-in per container', async () => {
    const containers = copierConcurrency(3);
    const { queue } = await plannedRun();
    const files = queue.messages.length;
    const handlers: Handler[] = [];
    // One after the other: imports that overlap would share one module registry, so one "container".
    for (let i = 0; i < containers; i++) handlers.push(await newContainer());
    expect(new Set(handlers).size).toBe(containers);
    sessions().peakSessionsPerUser = 0;
    const before = sessions().signIns;
    const failures: string[] = [];
    // Each container takes the next batch as soon as it is free, as the event source's pollers hand them out.
    await Promise.all(
      handlers.map(async (handler) => {
        for (let batch = queue.take(BATCH_SIZE); batch.length > 0; batch = queue.take(BATCH_SIZE)) {
          const res = await handler(event(batch));
          failures.push(...res.batchItemFailures.map((f) => f.itemIdentifier));
        }
      }),
    );
    const signIns = sessions().signIns - before;
    console.log(`archive copier: ${signIns} sign-ins for ${files} files over ${containers} containers`);
    expect(failures).toEqual([]);
    expect(files).toBeGreaterThan(400);
    // Each container signed in once, on its first batch (the issue counted 119 for 476 files: one per batch).
    expect(signIns).toBe(containers);
    expect(sessions().peakSessionsPerUser).toBe(containers);
    // The last copier wrote the run's manifest: every file archived.
    const manifests = await ap.keys('pulse/manifests/');
    const manifest = await ap.json<Manifest>(manifests.at(-1)!);
    expect(manifest.files).toHaveLength(files);
    expect(manifest.files.every((f) => f.outcome === 'archived' || f.outcome === 'skippedSame')).toBe(true);
  }, 120_000);
});
