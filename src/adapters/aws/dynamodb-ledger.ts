/**
 * The Ledger port over DynamoDB (and, unchanged, over dynalite locally). One item per ledger key in the state table
 * of lib/stacks/pulse-stack.ts: `pk` = the ledger key, `sk` = LEDGER_SORT_KEY (the table is shared with other state,
 * which uses other sort keys), `expiresAt` = TTL in epoch seconds.
 *
 * Claims are conditional PutItems, so of any number of racing claimers exactly one wins. Every claim carries this
 * instance's random token; `complete`, `release` and `markUnknown` are conditional on it, so a claimer whose record
 * was taken over (a deliberate resend of an `unknown` send, by another run) cannot overwrite the new holder's record.
 * One token per instance rather than per claim: the instance keeps nothing per claim, so a run that holds a hundred
 * thousand license alert claims holds no memory for them.
 * An in-progress record older than its lease is never taken over by a plain claim: it reads as `unknown`.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type {
  ClaimOptions,
  ClaimResult,
  Ledger,
  LedgerRecord,
  MailEventNote,
  MailEventRecorder,
} from '../../ports/ledger.ts';

export const LEDGER_SORT_KEY = 'ledger';
const IN_PROGRESS = 'in-progress';
const DONE = 'done';
const UNKNOWN = 'unknown';
/** Why a claim that outlived its lease is `unknown`. */
export const EXPIRED_CLAIM_REASON =
  'claimed but never recorded as sent: the run stopped between claiming and recording (the message may have gone out)';

/** Thrown by `complete`/`release` when this instance does not (or no longer) hold the claim on the key. */
export class ClaimLostError extends Error {
  override name = 'ClaimLostError';
}

export interface DynamoDbLedgerOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock?: Clock;
  /** How long a claim counts as a live send when called without `leaseSeconds`; later it is `unknown`. @default 900 */
  defaultLeaseSeconds?: number;
  /** Record lifetime (TTL) when `claim` is called without `expiresInDays`. @default 400 */
  defaultExpiresInDays?: number;
}

interface LedgerItem {
  state: typeof IN_PROGRESS | typeof DONE | typeof UNKNOWN;
  claimedAt: string;
  detail?: Record<string, unknown>;
  reason?: string;
  mailEvents?: MailEventNote[];
}

/** A document client with the marshalling the ledger needs (`detail` may carry undefined fields). */
export function dynamoDocumentClientFor(opts: { endpoint?: string; region?: string } = {}): DynamoDBDocumentClient {
  const local = opts.endpoint !== undefined;
  const client = new DynamoDBClient({
    ...(opts.region || local ? { region: opts.region ?? 'us-east-1' } : {}),
    // dynalite accepts any signature; the SDK just needs something to sign with.
    ...(local ? { endpoint: opts.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** A conditional write refused because its condition did not hold (also used by the archive run records). */
export const isConditionFailure = (e: unknown): boolean => (e as Error)?.name === 'ConditionalCheckFailedException';

export class DynamoDbLedger implements Ledger, MailEventRecorder {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #clock: Clock;
  readonly #leaseSeconds: number;
  readonly #expiresInDays: number;
  /** The token of every claim this instance makes (see the top). */
  readonly #token = randomUUID();

  constructor(opts: DynamoDbLedgerOptions) {
    this.#db = opts.client;
    this.#table = opts.tableName;
    this.#clock = opts.clock ?? systemClock;
    this.#leaseSeconds = opts.defaultLeaseSeconds ?? 900;
    this.#expiresInDays = opts.defaultExpiresInDays ?? 400;
  }

  async claim(key: string, opts: ClaimOptions = {}): Promise<ClaimResult> {
    const leaseMs = this.#leaseMs(opts);
    const expiresInDays = opts.expiresInDays ?? this.#expiresInDays;
    // Only a deliberate resend may replace an unknown record (marked, or a claim whose lease ran out).
    const condition = opts.takeOverUnknown
      ? 'attribute_not_exists(pk) OR #state = :unknown OR (#state = :inProgress AND #claimedAt < :staleBefore)'
      : 'attribute_not_exists(pk)';
    // A competing record can vanish (released) or change between our write and our read; try again then.
    for (let attempt = 0; attempt < 5; attempt++) {
      const now = this.#clock.now();
      try {
        await this.#db.send(
          new PutCommand({
            TableName: this.#table,
            Item: {
              pk: key,
              sk: LEDGER_SORT_KEY,
              state: IN_PROGRESS,
              token: this.#token,
              claimedAt: now.toISOString(),
              expiresAt: Math.floor(now.getTime() / 1000) + Math.round(expiresInDays * 86_400),
            },
            ConditionExpression: condition,
            ...(opts.takeOverUnknown
              ? {
                  ExpressionAttributeNames: { '#state': 'state', '#claimedAt': 'claimedAt' },
                  ExpressionAttributeValues: {
                    ':unknown': UNKNOWN,
                    ':inProgress': IN_PROGRESS,
                    // ISO-8601 UTC timestamps of one format compare correctly as strings.
                    ':staleBefore': new Date(now.getTime() - leaseMs).toISOString(),
                  },
                }
              : {}),
          }),
        );
        return { outcome: 'claimed' };
      } catch (e) {
        if (!isConditionFailure(e)) throw e;
      }
      const existing = this.#recordOf(await this.#read(key), leaseMs);
      if (existing === undefined) continue; // released in between
      if (existing.state === DONE) return { outcome: 'done', detail: existing.detail };
      if (existing.state === IN_PROGRESS) return { outcome: 'busy', claimedAt: existing.claimedAt };
      if (!opts.takeOverUnknown) return { outcome: 'unknown', claimedAt: existing.claimedAt, reason: existing.reason };
    }
    throw new Error(`ledger: could not claim ${key}: the record kept changing`);
  }

  async complete(key: string, detail: Record<string, unknown>): Promise<void> {
    await this.#settle(key, 'complete', DONE, { detail, completedAt: this.#clock.now().toISOString() });
  }

  async release(key: string): Promise<void> {
    try {
      await this.#db.send(
        new DeleteCommand({
          TableName: this.#table,
          Key: { pk: key, sk: LEDGER_SORT_KEY },
          ConditionExpression: '#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': this.#token },
        }),
      );
    } catch (e) {
      throw this.#lostOr(e, key, 'release');
    }
  }

  async markUnknown(key: string, reason: string): Promise<void> {
    await this.#settle(key, 'mark as unknown', UNKNOWN, { reason, markedAt: this.#clock.now().toISOString() });
  }

  /** Ends a claim this instance holds: in-progress → `state`, with `fields` set and the token removed. */
  async #settle(key: string, action: string, state: string, fields: Record<string, unknown>): Promise<void> {
    const names = Object.keys(fields);
    try {
      await this.#db.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk: key, sk: LEDGER_SORT_KEY },
          UpdateExpression: `SET #state = :state, ${names.map((n) => `#${n} = :${n}`).join(', ')} REMOVE #token`,
          ConditionExpression: '#token = :token AND #state = :inProgress',
          // Names for every attribute: DynamoDB reserves hundreds of words, and `state` is one of them.
          ExpressionAttributeNames: {
            '#state': 'state',
            '#token': 'token',
            ...Object.fromEntries(names.map((n) => [`#${n}`, n])),
          },
          ExpressionAttributeValues: {
            ':state': state,
            ':token': this.#token,
            ':inProgress': IN_PROGRESS,
            ...Object.fromEntries(names.map((n) => [`:${n}`, fields[n]])),
          },
        }),
      );
    } catch (e) {
      throw this.#lostOr(e, key, action);
    }
  }

  async get(key: string, opts: Pick<ClaimOptions, 'leaseSeconds'> = {}): Promise<LedgerRecord | undefined> {
    const item = await this.#read(key);
    const record = this.#recordOf(item, this.#leaseMs(opts));
    return record && item?.mailEvents ? { ...record, mailEvents: item.mailEvents } : record;
  }

  /**
   * One UpdateItem: the event is appended and its id added to a string set, both only while the record exists and
   * the set lacks the id; a refused condition is then told apart by reading the record.
   */
  async recordMailEvent(key: string, event: MailEventNote): Promise<'recorded' | 'alreadyRecorded' | 'noRecord'> {
    try {
      await this.#db.send(
        new UpdateCommand({
          TableName: this.#table,
          Key: { pk: key, sk: LEDGER_SORT_KEY },
          UpdateExpression: 'SET #events = list_append(if_not_exists(#events, :none), :event) ADD #ids :ids',
          ConditionExpression: 'attribute_exists(pk) AND NOT contains(#ids, :id)',
          ExpressionAttributeNames: { '#events': 'mailEvents', '#ids': 'mailEventIds' },
          ExpressionAttributeValues: { ':none': [], ':event': [event], ':ids': new Set([event.id]), ':id': event.id },
        }),
      );
      return 'recorded';
    } catch (e) {
      if (!isConditionFailure(e)) throw e;
      return (await this.#read(key)) === undefined ? 'noRecord' : 'alreadyRecorded';
    }
  }

  /** A stored item as the port's record: a claim older than its lease is `unknown`. */
  #recordOf(item: LedgerItem | undefined, leaseMs: number): LedgerRecord | undefined {
    if (!item) return undefined;
    if (item.state === DONE) return { state: DONE, detail: item.detail ?? {} };
    if (item.state === UNKNOWN) return { state: UNKNOWN, claimedAt: item.claimedAt, reason: item.reason ?? '' };
    if (Date.parse(item.claimedAt) < this.#clock.now().getTime() - leaseMs) {
      return { state: UNKNOWN, claimedAt: item.claimedAt, reason: EXPIRED_CLAIM_REASON };
    }
    return { state: IN_PROGRESS, claimedAt: item.claimedAt };
  }

  #leaseMs(opts: Pick<ClaimOptions, 'leaseSeconds'>): number {
    return (opts.leaseSeconds ?? this.#leaseSeconds) * 1000;
  }

  async #read(key: string): Promise<LedgerItem | undefined> {
    const res = await this.#db.send(
      new GetCommand({ TableName: this.#table, Key: { pk: key, sk: LEDGER_SORT_KEY }, ConsistentRead: true }),
    );
    return res.Item as LedgerItem | undefined;
  }

  /** A failed condition means the claim is gone for good; anything else (e.g. a timeout) may be retried. */
  #lostOr(e: unknown, key: string, action: string): unknown {
    if (!isConditionFailure(e)) return e;
    return new ClaimLostError(
      `ledger: cannot ${action} ${key}: this caller holds no claim on it (never claimed here, taken over, or settled)`,
    );
  }
}
