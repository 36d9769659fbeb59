/**
 * `pulse licenses sync` (docs/licenses.md "License registry sync"): a CSV of keys made true in the registry of one
 * product.
 *
 * Streamed end to end, so memory holds a few batches whatever the file's size (plus one entry per key read, to refuse
 * repeats): rows are read and validated as the bytes arrive (sync-csv.ts) and cut into batches of up to 1000 valid rows
 * (with the invalid rows between them, to keep the input order). Each batch looks its keys up with one
 * searchLicenseKeys (a `licenseKey` stringArray filter), diffs them (sync-diff.ts) and sends only what changes with one
 * updateLicenseKeys; up to `concurrency` batches are in flight, and their results are handed to `write` in input
 * order as they complete.
 *
 * The update is not repeated automatically (docs/interface.md "Safe-to-repeat requests"): a batch whose answer was lost
 * (5xx, timeout, network) may or may not have been applied, so its rows are `failed` with that reason. Running the same
 * file again is the recovery: the upsert is idempotent and the diff sends only what the registry does not hold yet.
 * After MAX_FAILED_IN_A_ROW batches fail one after another, the rest is not sent (the service is down, not a batch
 * bad).
 */
import type { LicenseKeyUpdate, ReportingClient } from '../../client/index.ts';
import type { JobResult } from '../../core/job-result.ts';
import type { Logger } from '../../ports/logger.ts';
import type { RegistryKey } from '../shared/registry-key.ts';
import { streamRegistry } from '../shared/registry-stream.ts';
import { SyncCsvError, SyncCsvReader, type SyncRow } from './sync-csv.ts';
import { diffRow } from './sync-diff.ts';

export const MAX_BATCH = 1000;
export const MAX_FAILED_IN_A_ROW = 3;
/** Invalid and failed rows named in the job's errors; the result file lists them all. */
const ROWS_NAMED = 20;

export type SyncOutcome = 'inserted' | 'updated' | 'unchanged' | 'invalid' | 'failed';

/** One line of the result file. */
export interface SyncRowResult {
  line: number;
  key: string;
  outcome: SyncOutcome;
  /** Changed fields, the problems of an invalid row, or why a row failed. */
  detail: string;
}

export interface SyncCounts {
  [name: string]: number;
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  invalid: number;
  failed: number;
  /** Update calls sent (with --dry-run: that would be sent). */
  batches: number;
}

export interface SyncPorts {
  client: Pick<ReportingClient, 'searchLicenseKeys' | 'updateLicenseKeys'>;
  logger: Logger;
}

export interface SyncOptions {
  productId: string;
  /** Batches in flight at once (the config's `service.concurrency`). */
  concurrency: number;
  /** Look up and diff, send nothing. */
  dryRun?: boolean;
  /** @default 1000, the most the service takes */
  batchSize?: number;
  /** Receives the results in input order, a batch at a time; the next batch waits for it. */
  write(rows: SyncRowResult[]): Promise<void> | void;
}

type Batch = SyncRow[];

export async function runLicenseSync(
  input: AsyncIterable<Uint8Array>,
  ports: SyncPorts,
  opts: SyncOptions,
): Promise<JobResult<SyncCounts>> {
  const batchSize = Math.min(opts.batchSize ?? MAX_BATCH, MAX_BATCH);
  const counts: SyncCounts = { rows: 0, inserted: 0, updated: 0, unchanged: 0, invalid: 0, failed: 0, batches: 0 };
  const errors: string[] = [];
  const state = { failedInARow: 0 };
  const rowErrors: string[] = [];
  let named = 0;
  const inFlight: Promise<SyncRowResult[]>[] = [];
  const settle = async (): Promise<void> => {
    const rows = await inFlight.shift()!;
    for (const r of rows) {
      counts[r.outcome]++;
      if ((r.outcome === 'invalid' || r.outcome === 'failed') && named++ < ROWS_NAMED)
        rowErrors.push(`line ${r.line}: ${r.outcome}: ${r.detail}`);
    }
    counts.rows += rows.length;
    await opts.write(rows);
  };
  let batch: Batch = [];
  let valid = 0;
  let read = 0;
  const dispatch = async (): Promise<void> => {
    if (batch.length === 0) return;
    inFlight.push(runBatch(batch, ports, opts, { counts, errors, state }));
    batch = [];
    valid = 0;
    if (inFlight.length >= Math.max(1, opts.concurrency)) await settle();
  };
  const take = async (rows: SyncRow[]): Promise<void> => {
    for (const row of rows) {
      read++;
      batch.push(row);
      if ('update' in row) valid++;
      // Invalid rows ride along in input order; a long run of them still goes out, so memory stays bounded.
      if (valid >= batchSize || batch.length >= 2 * batchSize) await dispatch();
    }
  };

  const reader = new SyncCsvReader();
  try {
    for await (const chunk of input) {
      await take(reader.push(chunk));
      if (reader.failure) throw reader.failure;
    }
    await take(reader.end());
    if (reader.failure) throw reader.failure;
  } catch (e) {
    // A file unreadable from the start is the caller's to report (nothing was sent); later, what was read is
    // completed and written, and the run fails naming the line.
    if (!(e instanceof SyncCsvError) || read === 0) {
      await Promise.allSettled(inFlight);
      throw e;
    }
    errors.push(`input ${e.message}: the rows after it were not read`);
  }
  await dispatch();
  while (inFlight.length > 0) await settle();
  if (named > ROWS_NAMED)
    rowErrors.push(`… and ${named - ROWS_NAMED} more invalid or failed rows (the result file lists them all)`);
  ports.logger.info('license sync finished', { productId: opts.productId, dryRun: opts.dryRun === true, ...counts });
  return {
    job: 'licenses-sync',
    ok: errors.length === 0 && counts.invalid === 0 && counts.failed === 0,
    counts,
    outputs: [],
    errors: [...errors, ...rowErrors],
  };
}

interface Shared {
  counts: SyncCounts;
  errors: string[];
  state: { failedInARow: number };
}

/** Looks a batch up, diffs it, sends what changes; every row of it comes back with its outcome. */
async function runBatch(rows: Batch, ports: SyncPorts, opts: SyncOptions, shared: Shared): Promise<SyncRowResult[]> {
  const results: SyncRowResult[] = rows.map((r) =>
    'problems' in r
      ? { line: r.line, key: r.key, outcome: 'invalid', detail: r.problems.join('; ') }
      : { line: r.line, key: r.key, outcome: 'unchanged', detail: '' },
  );
  const validAt = rows.flatMap((r, i) => ('update' in r ? [i] : []));
  if (validAt.length === 0) return results;
  const lines = `lines ${rows[validAt[0]!]!.line}–${rows[validAt.at(-1)!]!.line}`;
  const fail = (at: number[], reason: string) => {
    for (const i of at) Object.assign(results[i]!, { outcome: 'failed', detail: reason });
  };
  if (shared.state.failedInARow >= MAX_FAILED_IN_A_ROW) {
    fail(validAt, `not sent: ${MAX_FAILED_IN_A_ROW} batches in a row failed; run the file again`);
    return results;
  }
  const onError = (at: number[], what: string, e: unknown) => {
    shared.state.failedInARow++;
    const message = e instanceof Error ? e.message : String(e);
    shared.errors.push(`${lines}: ${what}: ${message}`);
    fail(at, `${what}: ${message}`);
  };

  let existing: Map<string, RegistryKey>;
  try {
    existing = await lookUp(
      validAt.map((i) => rows[i]!.key),
      ports,
      opts.productId,
    );
  } catch (e) {
    onError(validAt, 'not sent, the keys could not be looked up', e);
    return results;
  }
  const sendAt: number[] = [];
  const updates: LicenseKeyUpdate[] = [];
  for (const i of validAt) {
    const row = rows[i] as Extract<SyncRow, { update: unknown }>;
    const diff = diffRow(row.update, existing.get(row.key));
    Object.assign(results[i]!, { outcome: diff.outcome, detail: diff.changes.join('; ') });
    if (diff.send) {
      sendAt.push(i);
      updates.push(diff.send);
    }
  }
  if (updates.length === 0) return results;
  shared.counts.batches++;
  if (opts.dryRun) return results;
  try {
    const res = await ports.client.updateLicenseKeys(opts.productId, { keyUpdates: updates });
    if (!res.view) throw new Error('the service answered without the documented result');
    shared.state.failedInARow = 0;
    const refused = new Map(res.view.failed.map((f) => [f.licenseKey, f.message]));
    for (const i of sendAt) {
      const message = refused.get(rows[i]!.key);
      if (message !== undefined) fail([i], `refused by the service: ${message}`);
    }
    if (refused.size > 0) shared.errors.push(`${lines}: the service refused ${refused.size} of ${updates.length}`);
  } catch (e) {
    onError(sendAt, 'update not confirmed (it may or may not have been applied; run the file again)', e);
  }
  return results;
}

/** The registry's records of `keys` (distinct; at most 1000), by key. */
async function lookUp(keys: string[], ports: SyncPorts, productId: string): Promise<Map<string, RegistryKey>> {
  const found = new Map<string, RegistryKey>();
  const pages = streamRegistry(ports.client, productId, {
    concurrency: 1,
    filters: { licenseKey: { type: 'stringArray', value: keys } },
    onProblem: (problem) => ports.logger.warn('license sync: a registry record left out', { problem }),
  });
  for await (const page of pages) for (const key of page) found.set(key.licenseKey, key);
  return found;
}
