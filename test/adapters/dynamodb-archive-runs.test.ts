/**
 * DynamoDbArchiveRuns against dynalite on 127.0.0.1: an outcome counts once however often it is recorded, exactly
 * one caller gets to finish a run, a finish given back can be claimed again, and only open runs older than the
 * cut-off are stale.
 */
import { randomUUID } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbArchiveRuns, RUNS_PK } from '../../src/adapters/aws/dynamodb-archive-runs.ts';
import { dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { ensureTable, type RunningPeer, startDynalite } from '../../src/adapters/local/peer-servers.ts';
import type { CopyOutcome } from '../../src/archive/copy/copy-file.ts';
import { fixedClock } from '../../src/ports/clock.ts';

const TABLE = 'pulse-runs-test';
let peer: RunningPeer;
let db: DynamoDBDocumentClient;
let runs: DynamoDbArchiveRuns;

beforeAll(async () => {
  peer = await startDynalite();
  db = dynamoDocumentClientFor({ endpoint: peer.endpoint });
  await ensureTable(db, TABLE);
  runs = new DynamoDbArchiveRuns({ client: db, tableName: TABLE, clock: fixedClock('2026-11-23T08:00:00.000Z') });
});
afterAll(async () => {
  db.destroy();
  await peer.close();
});

const archived = (key: string): CopyOutcome => ({
  outcome: 'archived',
  key,
  size: 3,
  sha256: 'a'.repeat(64),
  attempts: 1,
});

async function openRun(total: number, startedAt = '2026-11-23T07:00:00.000Z') {
  const runId = `${startedAt}-${randomUUID()}`;
  await runs.open({ runId, startedAt, planKey: `pulse/runs/${runId}/plan.json`, total });
  return runId;
}

describe('DynamoDbArchiveRuns', () => {
  it('counts each file once, however often its outcome is recorded', async () => {
    const runId = await openRun(2);
    expect(await runs.record(runId, archived('a.zip'))).toEqual({ first: true, remaining: 1 });
    expect(await runs.record(runId, archived('a.zip'))).toEqual({ first: false, remaining: 1 });
    const failed: CopyOutcome = { outcome: 'failed', key: 'b.zip', reason: 'DownloadError: 503', attempts: 3 };
    expect(await runs.record(runId, failed)).toEqual({ first: true, remaining: 0 });
    expect((await runs.outcomes(runId)).sort((x, y) => x.key.localeCompare(y.key))).toEqual([
      archived('a.zip'),
      failed,
    ]);
  });

  it('lets exactly one of many racing callers finish a run, and a given-back finish be claimed again', async () => {
    const runId = await openRun(0);
    const claims = await Promise.all(Array.from({ length: 8 }, () => runs.claimFinish(runId)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await runs.get(runId)).toMatchObject({ status: 'finished' });
    await runs.releaseFinish(runId);
    expect(await runs.claimFinish(runId)).toBe(true);
  });

  it('opens a run only once', async () => {
    const runId = await openRun(1);
    await expect(runs.open({ runId, startedAt: 'x', planKey: 'y', total: 9 })).rejects.toThrow(/conditional/i);
    expect(await runs.get(runId)).toMatchObject({ total: 1, remaining: 1 });
  });

  it('lists as unfinished only the open runs that started before the cut-off', async () => {
    const old = await openRun(3, '2026-11-01T00:00:00.000Z');
    const oldDone = await openRun(0, '2026-11-01T01:00:00.000Z');
    await runs.claimFinish(oldDone);
    const fresh = await openRun(3, '2026-11-23T07:30:00.000Z');
    const stale = (await runs.unfinished(new Date('2026-11-22T00:00:00.000Z'))).map((r) => r.runId);
    expect(stale).toContain(old);
    expect(stale).not.toContain(oldDone);
    expect(stale).not.toContain(fresh);
  });

  it('gives every record a lifetime (TTL) so the state table does not grow forever', async () => {
    const runId = await openRun(1);
    await runs.record(runId, archived('c.zip'));
    const run = await db.send(new GetCommand({ TableName: TABLE, Key: { pk: RUNS_PK, sk: runId } }));
    const outcome = await db.send(
      new GetCommand({ TableName: TABLE, Key: { pk: `archive-run#${runId}`, sk: 'file#c.zip' } }),
    );
    const in30Days = Date.parse('2026-11-23T08:00:00.000Z') / 1000 + 30 * 86_400;
    expect(run.Item?.expiresAt).toBe(in30Days);
    expect(outcome.Item?.expiresAt).toBe(in30Days);
  });
});
