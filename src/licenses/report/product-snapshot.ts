/**
 * One product's part of the weekly report: its figures and its registry snapshot (registry-snapshot.ts), in one
 * pass over the registry stream. Each page of keys is counted (report-figures.ts), compared with last week's
 * snapshot (trial-changes.ts) and written as CSV rows into gzip → SHA-256 → a spool file, with back-pressure from the
 * file to the registry reads; memory holds a few pages, whatever the registry's size. The spool is then uploaded
 * with its SHA-256 and key count in the metadata (known only at the end, and S3 takes metadata at the start),
 * write-once, followed by the figures file.
 *
 * A week whose figures are already stored (a rerun, a later hour, a second recipient) reuses them: every email of a
 * week shows the same figures as the archive, and the registry is read once a week.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ReportingClient } from '../../client/index.ts';
import { addDays } from '../../core/calendar.ts';
import { fileSource } from '../../core/file-source.ts';
import { type ArchiveStore, ObjectExistsError } from '../../ports/archive-store.ts';
import type { Logger } from '../../ports/logger.ts';
import { streamRegistry } from '../shared/registry-stream.ts';
import {
  figuresKey,
  readSnapshot,
  readStoredFigures,
  SNAPSHOT_HEADER,
  type StoredFigures,
  snapshotKey,
  snapshotRow,
} from './registry-snapshot.ts';
import { FigureAccumulator, type FigureRules, isExpired, type RegistryFigures } from './report-figures.ts';
import { TrialChanges } from './trial-changes.ts';

const MAX_PROBLEMS = 20;

export interface ProductSnapshotTask {
  productId: string;
  prefix: string;
  /** The snapshot's date: the report week's Sunday. */
  date: string;
  isoWeek: string;
  rules: FigureRules;
  concurrency: number;
  takenAt: string;
  /** Compute only: read the registry and last week's files, write nothing. */
  dryRun: boolean;
  /** The week just ended: its figures may come from the registry as it is now (else only from stored figures). */
  live: boolean;
}

export interface ProductSnapshotDeps {
  client: Pick<ReportingClient, 'searchLicenseKeys'>;
  store: ArchiveStore;
  logger: Logger;
}

export interface ProductSnapshot {
  stored: StoredFigures;
  /** Last week's figures, for the week-over-week change. */
  previous: RegistryFigures | undefined;
  /** The snapshot was written by this run (not found from an earlier one). */
  written: boolean;
  /** Records left out of the figures and snapshot, with the reason. */
  problems: string[];
}

export async function productSnapshot(task: ProductSnapshotTask, deps: ProductSnapshotDeps): Promise<ProductSnapshot> {
  const { store } = deps;
  const previousDate = addDays(task.date, -7);
  const previous = (await readStoredFigures(store, figuresKey(task.prefix, task.productId, previousDate)))?.figures;
  const figuresAt = figuresKey(task.prefix, task.productId, task.date);
  const already = await readStoredFigures(store, figuresAt);
  if (already) return { stored: already, previous, written: false, problems: [] };
  if (!task.live)
    throw new Error(
      `product ${task.productId}: no stored figures for ${task.isoWeek}, and the registry can only be read as it is now (for the week that just ended)`,
    );

  const key = snapshotKey(task.prefix, task.productId, task.date);
  const previousKey = snapshotKey(task.prefix, task.productId, previousDate);
  const lastWeek = await readSnapshot(store, previousKey);
  const figures = new FigureAccumulator(task.rules);
  const trials =
    lastWeek &&
    new TrialChanges(lastWeek, {
      isTrial: (t) => figures.isTrial(t),
      expiredNow: (k) => isExpired(k, task.rules.today),
      previousDate,
    });
  const problems: string[] = [];
  async function* csv(): AsyncGenerator<string> {
    yield SNAPSHOT_HEADER;
    const pages = streamRegistry(deps.client, task.productId, {
      concurrency: task.concurrency,
      // The first few reasons; a registry full of unreadable records must not fill memory with them.
      onProblem: (p) => {
        if (problems.length < MAX_PROBLEMS) problems.push(p);
        else if (problems.length === MAX_PROBLEMS) problems.push(`product ${task.productId}: more unreadable records`);
      },
    });
    for await (const page of pages) {
      let text = '';
      for (const k of page) {
        figures.add(k);
        const change = await trials?.compare(k);
        if (change) figures.trialChange(change);
        text += snapshotRow(k);
      }
      yield text;
    }
  }

  const dir = task.dryRun ? undefined : await mkdtemp(join(tmpdir(), 'pulse-registry-'));
  try {
    const hash = createHash('sha256');
    const measure = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const spool = dir ? join(dir, `${task.productId}.csv.gz`) : undefined;
    const sink = spool ? createWriteStream(spool) : new Writable({ write: (_c, _e, done) => done() });
    try {
      await pipeline(Readable.from(csv(), { objectMode: false }), createGzip(), measure, sink);
    } finally {
      await trials?.close();
    }
    const count = figures.figures(false).keys;
    let snapshot = { key, sha256: hash.digest('hex'), keys: count };
    let written = false;
    if (spool) ({ snapshot, written } = await putSnapshot(store, spool, snapshot, task));
    const stored: StoredFigures = {
      format: 'pulse-license-figures/1',
      productId: task.productId,
      date: task.date,
      isoWeek: task.isoWeek,
      takenAt: task.takenAt,
      snapshot,
      comparedWith: lastWeek ? previousKey : null,
      figures: figures.figures(lastWeek !== undefined),
    };
    if (task.dryRun) return { stored, previous, written: false, problems };
    try {
      await store.put(figuresAt, JSON.stringify(stored, null, 2), {
        contentType: 'application/json',
        ifNoneMatch: true,
      });
    } catch (e) {
      // Another run stored the week's figures first: every email of the week shows those.
      if (!(e instanceof ObjectExistsError)) throw e;
      const theirs = await readStoredFigures(store, figuresAt);
      if (theirs) return { stored: theirs, previous, written, problems };
    }
    deps.logger.info('license registry snapshot', { productId: task.productId, key, keys: count });
    return { stored, previous, written, problems };
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/** Uploads the spool write-once; when another run stored the week's snapshot first, that one is the week's. */
async function putSnapshot(
  store: ArchiveStore,
  spool: string,
  snapshot: StoredFigures['snapshot'],
  task: ProductSnapshotTask,
): Promise<{ snapshot: StoredFigures['snapshot']; written: boolean }> {
  try {
    await using file = await open(spool);
    await store.put(snapshot.key, fileSource(file), {
      contentType: 'application/gzip',
      maxPartsInFlight: 1,
      ifNoneMatch: true,
      sha256Base64: Buffer.from(snapshot.sha256, 'hex').toString('base64'),
      metadata: {
        product: task.productId,
        kind: 'licenseRegistry',
        'snapshot-date': task.date,
        'iso-week': task.isoWeek,
        sha256: snapshot.sha256,
        'key-count': String(snapshot.keys),
        'taken-at': task.takenAt,
      },
    });
    return { snapshot, written: true };
  } catch (e) {
    if (!(e instanceof ObjectExistsError)) throw e;
    const theirs = await store.head(snapshot.key);
    const sha256 = theirs?.metadata.sha256 ?? '';
    return {
      snapshot: { key: snapshot.key, sha256, keys: Number(theirs?.metadata['key-count'] ?? snapshot.keys) },
      written: false,
    };
  }
}
