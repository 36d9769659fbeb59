/**
 * The UsageAlertStates port over DynamoDB (and dynalite locally), in the shared state table: one item per rule,
 * product and segment, `pk` = `usage-alert-state#<key>`, `sk` = `state`, overwritten by each run that judged newer
 * periods (a run that judged older ones, racing a newer one, does not go back: the write is conditional).
 *
 * A recipient's unknown deliveries (`UnknownUsageAlerts`) are one item under the same prefix and another sort key
 * (`usage-alert-state#unknown#<recipient>`, `sk` = `unknown`: no series item has it), so the function's grant on
 * its states (a get, a put) covers them: read, changed and put back only if no other run wrote it meanwhile (a
 * version number), tried again otherwise. The item expires with the ledger records it points at.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type {
  SeriesState,
  UnknownUsageAlert,
  UnknownUsageAlerts,
  UsageAlertStates,
} from '../../ports/usage-alert-states.ts';
import { isConditionFailure } from './dynamodb-ledger.ts';

export const USAGE_ALERT_STATE_PREFIX = 'usage-alert-state#';
const SK = 'state';
/** The pk of a recipient's unknown deliveries (sort key UNKNOWN_SK). */
export const unknownUsageAlertsPk = (recipient: string) => `${USAGE_ALERT_STATE_PREFIX}unknown#${recipient}`;
const UNKNOWN_SK = 'unknown';
/** As long as the ledger keeps a delivery's record (dynamodb-ledger.ts `defaultExpiresInDays`). */
const UNKNOWN_EXPIRES_IN_DAYS = 400;
const UPDATE_ATTEMPTS = 5;

interface UnknownItem {
  /** Ledger key → the change (JSON). */
  entries: Record<string, string>;
  version: number;
}

export class DynamoDbUsageAlertStates implements UsageAlertStates, UnknownUsageAlerts {
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

  async unknownOf(recipient: string): Promise<UnknownUsageAlert[]> {
    const item = await this.#unknownItem(recipient);
    return Object.entries(item?.entries ?? {}).map(([key, change]) => ({ key, change }));
  }

  async updateUnknown(recipient: string, add: readonly UnknownUsageAlert[], drop: readonly string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const item = await this.#unknownItem(recipient);
      const entries = { ...item?.entries };
      for (const key of drop) delete entries[key];
      for (const entry of add) entries[entry.key] = entry.change;
      try {
        await this.#db.send(
          new PutCommand({
            TableName: this.#table,
            Item: {
              pk: unknownUsageAlertsPk(recipient),
              sk: UNKNOWN_SK,
              entries,
              version: (item?.version ?? 0) + 1,
              expiresAt: Math.floor(Date.now() / 1000) + UNKNOWN_EXPIRES_IN_DAYS * 86_400,
            },
            ...(item
              ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': item.version } }
              : { ConditionExpression: 'attribute_not_exists(pk)' }),
          }),
        );
        return;
      } catch (e) {
        // Another run changed the list between our read and our write: read it again.
        if (!isConditionFailure(e) || attempt >= UPDATE_ATTEMPTS) throw e;
      }
    }
  }

  async #unknownItem(recipient: string): Promise<UnknownItem | undefined> {
    const out = await this.#db.send(
      new GetCommand({
        TableName: this.#table,
        Key: { pk: unknownUsageAlertsPk(recipient), sk: UNKNOWN_SK },
        ConsistentRead: true,
      }),
    );
    return out.Item as UnknownItem | undefined;
  }
}
