/**
 * The UsageAlertStates port over DynamoDB (and dynalite locally), in the shared state table: one item per rule,
 * product and segment, `pk` = `usage-alert-state#<key>`, `sk` = `state`, overwritten by each run that judged newer
 * periods (a run that judged older ones, racing a newer one, does not go back: the write is conditional).
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SeriesState, UsageAlertStates } from '../../ports/usage-alert-states.ts';
import { isConditionFailure } from './dynamodb-ledger.ts';

export const USAGE_ALERT_STATE_PREFIX = 'usage-alert-state#';
const SK = 'state';

export class DynamoDbUsageAlertStates implements UsageAlertStates {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(opts: { client: DynamoDBDocumentClient; tableName: string }) {
    this.#db = opts.client;
    this.#table = opts.tableName;
  }

  async get(key: string): Promise<SeriesState | undefined> {
    const out = await this.#db.send(
      new GetCommand({
        TableName: this.#table,
        Key: { pk: `${USAGE_ALERT_STATE_PREFIX}${key}`, sk: SK },
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return undefined;
    const { firing, since, lastTold, lastJudged } = out.Item as SeriesState;
    return { firing, lastJudged, ...(since ? { since } : {}), ...(lastTold ? { lastTold } : {}) };
  }

  async put(key: string, state: SeriesState): Promise<void> {
    try {
      await this.#db.send(
        new PutCommand({
          TableName: this.#table,
          Item: { pk: `${USAGE_ALERT_STATE_PREFIX}${key}`, sk: SK, ...state },
          ConditionExpression: 'attribute_not_exists(pk) OR lastJudged <= :judged',
          ExpressionAttributeValues: { ':judged': state.lastJudged },
        }),
      );
    } catch (e) {
      // A run that judged newer periods wrote first: its state stands.
      if (!isConditionFailure(e)) throw e;
    }
  }
}
