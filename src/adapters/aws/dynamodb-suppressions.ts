/**
 * The SuppressionList port over DynamoDB: one item per address in the state table, `pk` = SUPPRESSED_PK (one
 * partition: the list is short, and the doctor lists it with one Query), `sk` = the lower-cased address. No TTL: an
 * address stays suppressed until an operator clears it. `add` is a conditional put, so of two events about one
 * address (a bounce and a redelivery of it) the first entry stays.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
} from '@aws-sdk/lib-dynamodb';
import type { Suppression, SuppressionList } from '../../ports/suppressions.ts';
import { isConditionFailure } from './dynamodb-ledger.ts';

/** The partition of the suppression list (lib/stacks/grants.ts STATE_KEYS names it for the IAM conditions). */
export const SUPPRESSED_PK = 'mail-suppressed';

export interface DynamoDbSuppressionsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
}

type SuppressionItem = Suppression & { pk: string; sk: string };

export class DynamoDbSuppressionList implements SuppressionList {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(opts: DynamoDbSuppressionsOptions) {
    this.#db = opts.client;
    this.#table = opts.tableName;
  }

  async get(address: string): Promise<Suppression | undefined> {
    const res = await this.#db.send(
      new GetCommand({ TableName: this.#table, Key: this.#key(address), ConsistentRead: true }),
    );
    return res.Item ? entryOf(res.Item as SuppressionItem) : undefined;
  }

  async add(entry: Suppression): Promise<'added' | 'alreadySuppressed'> {
    try {
      await this.#db.send(
        new PutCommand({
          TableName: this.#table,
          Item: { ...this.#key(entry.address), ...entry, address: entry.address.toLowerCase() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return 'added';
    } catch (e) {
      if (isConditionFailure(e)) return 'alreadySuppressed';
      throw e;
    }
  }

  async remove(address: string): Promise<Suppression | undefined> {
    const res = await this.#db.send(
      new DeleteCommand({ TableName: this.#table, Key: this.#key(address), ReturnValues: 'ALL_OLD' }),
    );
    return res.Attributes ? entryOf(res.Attributes as SuppressionItem) : undefined;
  }

  async list(): Promise<Suppression[]> {
    const entries: Suppression[] = [];
    const pages = paginateQuery(
      { client: this.#db },
      {
        TableName: this.#table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': SUPPRESSED_PK },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) for (const item of page.Items ?? []) entries.push(entryOf(item as SuppressionItem));
    return entries;
  }

  #key(address: string) {
    return { pk: SUPPRESSED_PK, sk: address.toLowerCase() };
  }
}

function entryOf(item: SuppressionItem): Suppression {
  return {
    address: item.sk,
    since: item.since,
    reason: item.reason,
    detail: item.detail,
    deliveryKey: item.deliveryKey,
  };
}
