/**
 * The `NewFailures` count of an hourly mailing job (src/app/new-failures.ts), against a real ledger in dynalite: a
 * failure counts once, however many hourly runs report it again; another failure during the same week counts as
 * new; a failure whose line differs only in a timestamp or an id is the same failure; without a ledger, or with one
 * that cannot be written, every failure counts (one notification too many, never one too few).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, LEDGER_SORT_KEY } from '../../src/adapters/aws/dynamodb-ledger.ts';
import {
  countNewFailures,
  FAILURE_SEEN_DAYS,
  failureSeenKey,
  metricLineWithNewFailures,
} from '../../src/app/new-failures.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import type { Ledger } from '../../src/ports/ledger.ts';
import { startTestTable, type TestTable } from '../helpers/dynamo-table.ts';

const TABLE = 'pulse-new-failures-test';
let table: TestTable;
let db: TestTable['db'];
const clock = { now: () => new Date('2026-11-23T09:05:00Z') };
const ledger = () => new DynamoDbLedger({ client: db, tableName: TABLE, clock });

beforeAll(async () => {
  table = await startTestTable(TABLE);
  db = table.db;
});
afterAll(() => table.close());

const run = (job: string, errors: string[]): JobResult => ({
  job,
  ok: errors.length === 0,
  counts: {},
  outputs: [],
  errors,
});
const held = 'exec-weekly 2026-W47 held: active clients 5× above the trailing 8-week range';
const refused = (at: string) =>
  `exec-weekly 2026-W47 to ceo@example.com: failed: MailNotSentError: 550 mailbox unavailable (queued ${at}, id 3f2a9c4e-1b7d-4e0a-9c1d-2b3e4f5a6b7c)`;

describe('countNewFailures', () => {
  it('counts a held digest once over many hourly runs, and a second failure that week as new', async () => {
    // Each hourly run has its own ledger instance (its own claims), as in Lambda.
    expect(await countNewFailures(run('digest', [held]), { ledger: ledger(), clock })).toBe(1);
    expect(await countNewFailures(run('digest', [held]), { ledger: ledger(), clock })).toBe(0);
    expect(await countNewFailures(run('digest', [held]), { ledger: ledger(), clock })).toBe(0);
    const second = refused('2026-11-23T10:05:00Z');
    expect(await countNewFailures(run('digest', [held, second]), { ledger: ledger(), clock })).toBe(1);
    expect(await countNewFailures(run('digest', [held, second]), { ledger: ledger(), clock })).toBe(0);
  });

  it('reads a line that differs only in its time or an id as the same failure', async () => {
    const job = 'license-alerts';
    expect(await countNewFailures(run(job, [refused('2026-11-23T10:05:00Z')]), { ledger: ledger(), clock })).toBe(1);
    const later = refused('2026-11-23T11:05:12.345Z').replace('3f2a9c4e', '9e8d7c6b');
    expect(await countNewFailures(run(job, [later]), { ledger: ledger(), clock })).toBe(0);
  });

  it("keeps each job's failures apart, under keys the stack grants per job", async () => {
    expect(await countNewFailures(run('license-report', [held]), { ledger: ledger(), clock })).toBe(1);
    const key = failureSeenKey('license-report', held);
    expect(key).toMatch(/^failure-seen#license-report#[0-9a-f]{32}$/);
    const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: { pk: key, sk: LEDGER_SORT_KEY } }));
    // Kept FAILURE_SEEN_DAYS (TTL), holding when it was first seen and nothing of the line itself.
    expect(Item?.expiresAt).toBe(Math.floor(clock.now().getTime() / 1000) + FAILURE_SEEN_DAYS * 86_400);
    expect(JSON.stringify(Item)).toContain('2026-11-23T09:05:00.000Z');
    expect(JSON.stringify(Item)).not.toContain('held');
  });

  it('counts nothing for a run that failed nothing, and one for a failed run without lines', async () => {
    expect(await countNewFailures(run('digest', []), { ledger: ledger(), clock })).toBe(0);
    expect(await countNewFailures({ ...run('digest', []), ok: false }, { ledger: ledger(), clock })).toBe(1);
  });

  it('without a ledger, or with one that cannot be written, counts every failure as new', async () => {
    expect(await countNewFailures(run('digest', [held, 'other']), { clock })).toBe(2);
    const broken: Ledger = {
      claim: () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
      complete: () => Promise.resolve(),
      release: () => Promise.resolve(),
      markUnknown: () => Promise.resolve(),
      get: () => Promise.resolve(undefined),
    };
    expect(await countNewFailures(run('digest', [held]), { ledger: broken, clock })).toBe(1);
  });

  it('puts the count in the metric line the stack alarms on', async () => {
    const line = JSON.parse(
      await metricLineWithNewFailures(run('digest', ['a third failure']), { ledger: ledger(), clock }),
    );
    expect(line).toMatchObject({ job: 'digest', JobFailed: 1, NewFailures: 1 });
  });
});
