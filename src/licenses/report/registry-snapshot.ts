/**
 * The registry snapshot: every key of one product as a gzip CSV (csv-cells.ts: RFC 4180, formula cells
 * neutralized), in key order, at `<prefix>/license-registry/<product>/<date>.csv.gz`, with its SHA-256 and key count
 * in the object metadata, written once. `<date>` is the Sunday that ends the ISO week the report covers (the run
 * reads the registry as it is when the report is due, just after that week): one snapshot per week, a rerun finds it
 * (write-once), and next week's run finds it at its own date − 7 days without listing the bucket. The metadata's
 * `taken-at` is the instant the registry was read.
 *
 * Beside it, `<date>.figures.json` keeps the product's figures as reported, which next week's report compares with
 * (a small read instead of streaming and recounting the whole previous snapshot).
 */
import { createGunzip } from 'node:zlib';
import { keyUnder } from '../../core/archive-key.ts';
import type { ArchiveStore } from '../../ports/archive-store.ts';
import { csvRow, neutralizedCellValue } from '../shared/csv-cells.ts';
import type { RegistryKey } from '../shared/registry-key.ts';
import { CsvRecordError, csvRecords } from './csv-records.ts';
import type { RegistryFigures } from './report-figures.ts';

export const snapshotKey = (prefix: string, productId: string, date: string) =>
  keyUnder(prefix, 'license-registry', productId, `${date}.csv.gz`);

export const figuresKey = (prefix: string, productId: string, date: string) =>
  keyUnder(prefix, 'license-registry', productId, `${date}.figures.json`);

export const SNAPSHOT_COLUMNS = [
  'licenseKey',
  'licenseType',
  'activated',
  'allowed',
  'blocked',
  'expired',
  'expiryDate',
  'addedDate',
  'autoCollected',
  'quota',
  'clientCount',
  'overQuotaCount',
  'lastSeenDate',
] as const;

export const SNAPSHOT_HEADER = csvRow(SNAPSHOT_COLUMNS);

export const snapshotRow = (k: RegistryKey): string =>
  csvRow([
    k.licenseKey,
    k.licenseType,
    k.status.activated,
    k.status.allowed,
    k.status.blocked,
    k.status.expired,
    k.expiryDate,
    k.addedDate,
    k.autoCollected,
    k.quota,
    k.clientCount,
    k.overQuotaCount,
    k.lastSeenDate,
  ]);

/** What the trial comparison needs of last week's key. */
export interface SnapshotKey {
  licenseKey: string;
  licenseType: string;
  expired: boolean;
  expiryDate: string | null;
}

/** The keys of a stored snapshot, in its (key) order, streamed; undefined when there is no such object. */
export async function readSnapshot(
  store: ArchiveStore,
  key: string,
): Promise<AsyncGenerator<SnapshotKey, void, undefined> | undefined> {
  const object = await store.read(key);
  if (!object) return undefined;
  return (async function* () {
    const text = object.body.pipe(createGunzip());
    try {
      let column: Record<string, number> | undefined;
      for await (const cells of csvRecords(text)) {
        if (!column) {
          column = Object.fromEntries(cells.map((name, i) => [name, i]));
          for (const name of ['licenseKey', 'licenseType', 'expired', 'expiryDate'])
            if (column[name] === undefined) throw new CsvRecordError(`${key}: no ${name} column`);
          continue;
        }
        const cell = (name: string) => neutralizedCellValue(cells[column![name]!] ?? '');
        yield {
          licenseKey: cell('licenseKey'),
          licenseType: cell('licenseType'),
          expired: cell('expired') === 'true',
          expiryDate: cell('expiryDate') || null,
        };
      }
    } finally {
      object.body.destroy();
    }
  })();
}

/** The small JSON beside a snapshot. */
export interface StoredFigures {
  format: 'pulse-license-figures/1';
  productId: string;
  /** The snapshot's date (the report week's Sunday) and ISO week. */
  date: string;
  isoWeek: string;
  takenAt: string;
  snapshot: { key: string; sha256: string; keys: number };
  /** The previous snapshot the trial changes were counted against, or null. */
  comparedWith: string | null;
  figures: RegistryFigures;
}

export async function readStoredFigures(store: ArchiveStore, key: string): Promise<StoredFigures | undefined> {
  const bytes = await store.get(key);
  if (!bytes) return undefined;
  const doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as StoredFigures;
  if (doc.format !== 'pulse-license-figures/1') throw new Error(`${key}: not a license figures file`);
  return doc;
}
