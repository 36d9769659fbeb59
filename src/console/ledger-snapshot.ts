/**
 * The state table's ledger records, read from a copy: dynalite's LevelDB (`<workDir>/dynamodb`) cannot be opened
 * read-only (opening it takes its LOCK and rewrites its log and manifest), and a run may hold it. So the console
 * copies the folder to a temporary one, starts dynalite on the copy (the same peer local runs use, so the on-disk
 * format is read by its own code), scans every table for ledger records (and the usage alert states beside them,
 * which the chaos runner checks against the ledger), and deletes the copy. Kept while the folder's files are
 * unchanged, so browsing costs one copy per change.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoDocumentClientFor, LEDGER_SORT_KEY } from '../adapters/aws/dynamodb-ledger.ts';
import { USAGE_ALERT_STATE_PREFIX } from '../adapters/aws/dynamodb-usage-alert-states.ts';
import { startDynalite } from '../adapters/local/peer-servers.ts';
import type { MailEventNote } from '../ports/ledger.ts';
import type { SeriesState } from '../ports/usage-alert-states.ts';
import { folderFingerprint } from './work-dir-state.ts';

/** A ledger item as DynamoDbLedger stores it (src/adapters/aws/dynamodb-ledger.ts). */
export interface LedgerItem {
  table: string;
  key: string;
  state: 'in-progress' | 'done' | 'unknown' | string;
  claimedAt?: string;
  completedAt?: string;
  markedAt?: string;
  reason?: string;
  detail?: Record<string, unknown>;
  mailEvents?: MailEventNote[];
}

/** The state table's records that say what was told: the ledger, and each usage alert series' state by its key. */
export interface StateTableSnapshot {
  ledger: LedgerItem[];
  usageAlertStates: Map<string, SeriesState>;
}

let cached: { fingerprint: string; snapshot: StateTableSnapshot } | undefined;

/** Every ledger record in the LevelDB at `dynamoDir`; [] when there is none. */
export async function readLedger(dynamoDir: string): Promise<LedgerItem[]> {
  return (await readStateTable(dynamoDir)).ledger;
}

/** The ledger records and usage alert states in the LevelDB at `dynamoDir`; empty when there is none. */
export async function readStateTable(dynamoDir: string): Promise<StateTableSnapshot> {
  const fingerprint = await folderFingerprint(dynamoDir);
  if (fingerprint === '') return { ledger: [], usageAlertStates: new Map() };
  if (cached?.fingerprint === fingerprint) return cached.snapshot;
  const copy = await mkdtemp(join(tmpdir(), 'pulse-console-ledger-'));
  try {
    await cp(dynamoDir, copy, { recursive: true });
    const snapshot = await scanCopy(copy);
    cached = { fingerprint, snapshot };
    return snapshot;
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

async function scanCopy(dir: string): Promise<StateTableSnapshot> {
  const dynalite = await startDynalite({ path: dir });
  const doc = dynamoDocumentClientFor({ endpoint: dynalite.endpoint });
  try {
    const tables = (await doc.send(new ListTablesCommand({}))).TableNames ?? [];
    const snapshot: StateTableSnapshot = { ledger: [], usageAlertStates: new Map() };
    for (const table of tables) {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new ScanCommand({
            TableName: table,
            FilterExpression: 'sk = :ledger OR begins_with(pk, :states)',
            ExpressionAttributeValues: { ':ledger': LEDGER_SORT_KEY, ':states': USAGE_ALERT_STATE_PREFIX },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        for (const item of page.Items ?? []) {
          const pk = String(item.pk);
          if (item.sk === LEDGER_SORT_KEY) snapshot.ledger.push(toLedgerItem(table, item));
          else snapshot.usageAlertStates.set(pk.slice(USAGE_ALERT_STATE_PREFIX.length), toSeriesState(item));
        }
        start = page.LastEvaluatedKey;
      } while (start);
    }
    return snapshot;
  } finally {
    doc.destroy();
    await dynalite.close();
  }
}

function toLedgerItem(table: string, item: Record<string, unknown>): LedgerItem {
  const text = (k: string) => (typeof item[k] === 'string' ? (item[k] as string) : undefined);
  const optional = {
    claimedAt: text('claimedAt'),
    completedAt: text('completedAt'),
    markedAt: text('markedAt'),
    reason: text('reason'),
  };
  return {
    table,
    key: String(item.pk),
    state: text('state') ?? '',
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    ...(typeof item.detail === 'object' && item.detail !== null
      ? { detail: item.detail as Record<string, unknown> }
      : {}),
    ...(Array.isArray(item.mailEvents) ? { mailEvents: item.mailEvents as MailEventNote[] } : {}),
  };
}

function toSeriesState(item: Record<string, unknown>): SeriesState {
  const text = (k: string) => (typeof item[k] === 'string' ? { [k]: item[k] as string } : {});
  return { firing: item.firing === true, lastJudged: String(item.lastJudged), ...text('since'), ...text('lastTold') };
}
