/**
 * DynamoDbLedger against dynalite on 127.0.0.1 (a real DynamoDB-compatible server, conditional writes included).
 * Each test uses its own keys; time moves through a settable clock, never through sleeps.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimLostError,
  DynamoDbLedger,
  dynamoDocumentClientFor,
  EXPIRED_CLAIM_REASON,
  LEDGER_SORT_KEY,
} from '../../src/adapters/aws/dynamodb-ledger.ts';
import type { Clock } from '../../src/ports/clock.ts';
import { startTestTable, type TestTable } from '../helpers/dynamo-table.ts';

const TABLE = 'pulse-state-test';
let table: TestTable;
let db: DynamoDBDocumentClient;

class TestClock implements Clock {
  ms = Date.parse('2026-11-23T08:00:00.000Z');
  now = () => new Date(this.ms);
  advance = (seconds: number) => {
    this.ms += seconds * 1000;
  };
}

beforeAll(async () => {
  table = await startTestTable(TABLE);
  db = table.db;
});
afterAll(() => table.close());

const newKey = () => `digest#exec-weekly#2026-W47#${randomUUID()}@example.com`;
const ledgerAt = (clock: Clock) => new DynamoDbLedger({ client: db, tableName: TABLE, clock });

describe('DynamoDbLedger', () => {
  it('claims, completes and reads a key; a second claim sees it done with the recorded detail', async () => {
    const clock = new TestClock();
    const ledger = ledgerAt(clock);
    const key = newKey();
    expect(await ledger.get(key)).toBeUndefined();
    expect(await ledger.claim(key, { expiresInDays: 30 })).toEqual({ outcome: 'claimed' });
    expect(await ledger.get(key)).toEqual({ state: 'in-progress', claimedAt: clock.now().toISOString() });
    await ledger.complete(key, { messageId: '<m1@example.com>', recipients: 2, skipped: undefined });
    expect(await ledger.get(key)).toEqual({ state: 'done', detail: { messageId: '<m1@example.com>', recipients: 2 } });
    expect(await ledgerAt(clock).claim(key)).toEqual({
      outcome: 'done',
      detail: { messageId: '<m1@example.com>', recipients: 2 },
    });

    const raw = await db.send(new GetCommand({ TableName: TABLE, Key: { pk: key, sk: LEDGER_SORT_KEY } }));
    expect(raw.Item?.expiresAt).toBe(Math.floor(clock.ms / 1000) + 30 * 86_400);
    expect(raw.Item?.token).toBeUndefined();
  });

  it('answers busy while the claim is held, and unknown once the lease has run out: never taken over by a claim', async () => {
    const clock = new TestClock();
    const first = ledgerAt(clock);
    const second = ledgerAt(clock);
    const key = newKey();
    const claimedAt = clock.now().toISOString();
    expect(await first.claim(key, { leaseSeconds: 60 })).toEqual({ outcome: 'claimed' });
    clock.advance(59);
    expect(await second.claim(key, { leaseSeconds: 60 })).toEqual({ outcome: 'busy', claimedAt });
    clock.advance(2);
    // Its holder died between claiming and recording: the message may have gone out.
    const unknown = { outcome: 'unknown', claimedAt, reason: EXPIRED_CLAIM_REASON };
    expect(await second.claim(key, { leaseSeconds: 60 })).toEqual(unknown);
    expect(await second.get(key, { leaseSeconds: 60 })).toEqual({
      state: 'unknown',
      claimedAt,
      reason: EXPIRED_CLAIM_REASON,
    });
    clock.advance(86_400);
    expect(await second.claim(key, { leaseSeconds: 60 })).toEqual(unknown);

    // A deliberate resend takes it over; the first holder can then neither complete nor release.
    expect(await second.claim(key, { leaseSeconds: 60, takeOverUnknown: true })).toEqual({ outcome: 'claimed' });
    await expect(first.complete(key, { by: 'first' })).rejects.toBeInstanceOf(ClaimLostError);
    await expect(first.release(key)).rejects.toBeInstanceOf(ClaimLostError);
    await second.complete(key, { by: 'second' });
    expect(await first.get(key)).toEqual({ state: 'done', detail: { by: 'second' } });
  });

  it('keeps a send marked unknown with its reason; only takeOverUnknown claims it, and only one of many', async () => {
    const clock = new TestClock();
    const holder = ledgerAt(clock);
    const key = newKey();
    const claimedAt = clock.now().toISOString();
    await holder.claim(key);
    await holder.markUnknown(key, 'connection lost after DATA');
    const record = { state: 'unknown', claimedAt, reason: 'connection lost after DATA' };
    expect(await holder.get(key)).toEqual(record);
    // Marking gave the claim up: the marker cannot complete it later either.
    await expect(holder.complete(key, { late: true })).rejects.toBeInstanceOf(ClaimLostError);
    expect(await ledgerAt(clock).claim(key)).toEqual({ outcome: 'unknown', claimedAt, reason: record.reason });

    const resenders = Array.from({ length: 5 }, () => ledgerAt(clock));
    const results = await Promise.all(resenders.map((l) => l.claim(key, { takeOverUnknown: true })));
    expect(results.filter((r) => r.outcome === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'busy')).toHaveLength(4);

    // takeOverUnknown never touches a record that is done or a live claim.
    const done = newKey();
    await holder.claim(done);
    await holder.complete(done, { messageId: '<d@x>' });
    expect(await ledgerAt(clock).claim(done, { takeOverUnknown: true })).toEqual({
      outcome: 'done',
      detail: { messageId: '<d@x>' },
    });
    const live = newKey();
    await holder.claim(live);
    expect(await ledgerAt(clock).claim(live, { takeOverUnknown: true })).toEqual({ outcome: 'busy', claimedAt });
  });

  it('lets exactly one of ten concurrent claimers win', async () => {
    const clock = new TestClock();
    const key = newKey();
    const results = await Promise.all(Array.from({ length: 10 }, () => ledgerAt(clock).claim(key)));
    const outcomes = results.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'busy')).toHaveLength(9);
  });

  it('lets a later claim win after a release', async () => {
    const clock = new TestClock();
    const first = ledgerAt(clock);
    const key = newKey();
    await first.claim(key);
    await first.release(key);
    expect(await first.get(key)).toBeUndefined();
    const later = ledgerAt(clock);
    expect(await later.claim(key)).toEqual({ outcome: 'claimed' });
    await later.complete(key, { attempt: 2 });
    expect(await first.claim(key)).toEqual({ outcome: 'done', detail: { attempt: 2 } });
  });

  it('refuses complete and release from a caller that never held the claim, and leaves the record alone', async () => {
    const clock = new TestClock();
    const key = newKey();
    await ledgerAt(clock).claim(key);
    const stranger = ledgerAt(clock);
    await expect(stranger.complete(key, { forged: true })).rejects.toThrow(/holds no claim/);
    await expect(stranger.release(key)).rejects.toBeInstanceOf(ClaimLostError);
    await expect(stranger.markUnknown(key, 'forged')).rejects.toBeInstanceOf(ClaimLostError);
    expect(await stranger.get(key)).toEqual({ state: 'in-progress', claimedAt: clock.now().toISOString() });
  });

  it('passes errors other than a failed condition through, and a holder may retry complete after one', async () => {
    const missingTable = new DynamoDbLedger({ client: db, tableName: 'no-such-table' });
    await expect(missingTable.claim(newKey())).rejects.toMatchObject({ name: 'ResourceNotFoundException' });

    // A client of the same peer whose first UpdateItem dies before it is sent (a network fault dynalite can't make).
    const flaky = dynamoDocumentClientFor({ endpoint: table.endpoint });
    let failures = 1;
    flaky.middlewareStack.add(
      (next, context) => async (args) => {
        if (/^Update/.test(context.commandName ?? '') && failures-- > 0) throw new Error('socket hang up');
        return next(args);
      },
      { step: 'initialize' },
    );
    const ledger = new DynamoDbLedger({ client: flaky, tableName: TABLE, clock: new TestClock() });
    const key = newKey();
    await ledger.claim(key);
    await expect(ledger.complete(key, { try: 1 })).rejects.toThrow('socket hang up');
    await ledger.complete(key, { try: 2 });
    expect(await ledger.get(key)).toEqual({ state: 'done', detail: { try: 2 } });
    flaky.destroy();
  });
});
