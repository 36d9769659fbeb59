/**
 * The ArchiveRuns port over DynamoDB (and dynalite locally), in the shared state table:
 * - one item per run: `pk` = RUNS_PK, `sk` = run id, with the remaining-tasks counter and the status;
 * - one item per recorded outcome: `pk` = `archive-run#<run id>`, `sk` = `file#<archive key>`.
 * An outcome is written only if none exists for its key (conditional put), and only then is the counter taken down,
 * so a task delivered twice counts once. If a copier dies between the two writes the counter never reaches zero;
 * the next plan step then finishes the run as stale, from the outcome items, which are complete.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { CopyOutcome } from '../../archive/copy/copy-file.ts';
import type { ArchiveRun, ArchiveRuns } from '../../ports/archive-runs.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import { isConditionFailure } from './dynamodb-ledger.ts';

export const RUNS_PK = 'archive-runs';
const outcomesPk = (runId: string): string => `archive-run#${runId}`;
const OUTCOME_PREFIX = 'file#';

export interface DynamoDbArchiveRunsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock?: Clock;
  /** Lifetime (TTL) of the run's records; the manifest in the archive is the lasting record. @default 30 */
  expiresInDays?: number;
}

export class DynamoDbArchiveRuns implements ArchiveRuns {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #clock: Clock;
  readonly #expiresInDays: number;

  constructor(opts: DynamoDbArchiveRunsOptions) {
    this.#db = opts.client;
    this.#table = opts.tableName;
    this.#clock = opts.clock ?? systemClock;
    this.#expiresInDays = opts.expiresInDays ?? 30;
  }

  #expiresAt(): number {
    return Math.floor(this.#clock.now().getTime() / 1000) + this.#expiresInDays * 86_400;
  }

  async open(run: Omit<ArchiveRun, 'remaining' | 'status'>): Promise<void> {
    await this.#db.send(
      new PutCommand({
        TableName: this.#table,
        Item: {
          pk: RUNS_PK,
          sk: run.runId,
          ...run,
          remaining: run.total,
          status: 'open',
          expiresAt: this.#expiresAt(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async record(runId: string, outcome: CopyOutcome): Promise<{ first: boolean; remaining: number }> {
    try {
      await this.#db.send(
        new PutCommand({
          TableName: this.#table,
          Item: { pk: outcomesPk(runId), sk: `${OUTCOME_PREFIX}${outcome.key}`, outcome, expiresAt: this.#expiresAt() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      return { first: false, remaining: (await this.get(runId))?.remaining ?? 0 };
    }
    const res = await this.#db.send(
      new UpdateCommand({
        TableName: this.#table,
        Key: { pk: RUNS_PK, sk: runId },
        UpdateExpression: 'SET remaining = remaining - :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { first: true, remaining: Number(res.Attributes?.remaining ?? 0) };
  }

  async outcomes(runId: string): Promise<CopyOutcome[]> {
    const items = await this.#queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': outcomesPk(runId), ':prefix': OUTCOME_PREFIX },
    });
    return items.map((item) => item.outcome as CopyOutcome);
  }

  async claimFinish(runId: string): Promise<boolean> {
    return this.#setStatus(runId, 'open', 'finished');
  }

  async releaseFinish(runId: string): Promise<void> {
    await this.#setStatus(runId, 'finished', 'open');
  }

  async #setStatus(runId: string, from: ArchiveRun['status'], to: ArchiveRun['status']): Promise<boolean> {
    try {
      await this.#db.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk: RUNS_PK, sk: runId },
          UpdateExpression: 'SET #status = :to',
          ConditionExpression: '#status = :from',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':from': from, ':to': to },
        }),
      );
      return true;
    } catch (e) {
      if (isConditionFailure(e)) return false;
      throw e;
    }
  }

  async get(runId: string): Promise<ArchiveRun | undefined> {
    const res = await this.#db.send(
      new GetCommand({ TableName: this.#table, Key: { pk: RUNS_PK, sk: runId }, ConsistentRead: true }),
    );
    return res.Item ? toRun(res.Item) : undefined;
  }

  async unfinished(before: Date): Promise<ArchiveRun[]> {
    const items = await this.#queryAll({
      KeyConditionExpression: 'pk = :pk',
      // ISO-8601 UTC timestamps of one format compare correctly as strings.
      FilterExpression: '#status = :open AND startedAt < :before',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':pk': RUNS_PK, ':open': 'open', ':before': before.toISOString() },
    });
    return items.map(toRun);
  }

  /** Every item a query matches, page after page, read consistently (a copier may have just written it). */
  async #queryAll(query: Omit<QueryCommandInput, 'TableName'>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery({ client: this.#db }, { ...query, TableName: this.#table, ConsistentRead: true });
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }
}

function toRun(item: Record<string, unknown>): ArchiveRun {
  return {
    runId: String(item.sk),
    startedAt: String(item.startedAt),
    planKey: String(item.planKey),
    total: Number(item.total),
    remaining: Number(item.remaining),
    status: item.status === 'finished' ? 'finished' : 'open',
  };
}
