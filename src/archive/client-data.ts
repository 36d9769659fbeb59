/**
 * The client data archive: every client of a product with the configured properties, written as gzip-compressed
 * NDJSON (one object per client, values as the service sent them, `"<NULL>"` included). The clients come from the
 * export operation's CSV stream, or page by page from the client property list (client-ndjson.ts). One file per
 * product and UTC day; an existing one is left alone, unless it fails its own check (a leftover of an interrupted
 * write): then a new version is written, reported as 'repaired'.
 *
 * The object's metadata carries its SHA-256 and client count, which are only known at the end of the stream, while
 * S3 takes metadata at the start of an upload. So the stream is spooled through a temporary file (back-pressure from
 * the file to the service's stream), then uploaded with its checksum, which the store verifies before the object
 * is committed. The upload reads the file straight into the store's part buffers, one part at a time. Any failure
 * on the way (a malformed CSV, a broken stream) fails the file before anything is put.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { ReportingClient } from '../client/index.ts';
import { fileSource } from '../core/file-source.ts';
import { type ArchiveStore, ObjectExistsError, type StoredObject } from '../ports/archive-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import { type ClientSource, clientNdjson } from './client-ndjson.ts';
import { metadataProblem } from './copy/archived-check.ts';
import type { CopyOutcome } from './copy/copy-file.ts';

export const clientDataFileName = (productId: string, date: string): string => `${productId}_clients_${date}.ndjson.gz`;

export interface ClientDataTask {
  productId: string;
  fileName: string;
  fileDate: string;
  key: string;
  properties: string[];
  /**
   * Where the clients come from (client-ndjson.ts): the export (exportClientPropertyList) by default, else the paged
   * list (clientPropertyList).
   */
  source?: ClientSource;
}

export interface ClientDataDeps {
  client: ReportingClient;
  store: ArchiveStore;
  clock: Clock;
  logger: Logger;
  onBytes?: ((n: number) => void) | undefined;
}

export async function archiveClientData(task: ClientDataTask, deps: ClientDataDeps): Promise<CopyOutcome> {
  const existing = await deps.store.head(task.key);
  const problem = existing && clientDataProblem(existing);
  if (existing && problem === undefined) return skippedSame(existing);
  const dir = await mkdtemp(join(tmpdir(), 'pulse-clients-'));
  const spool = join(dir, task.fileName);
  try {
    const hash = createHash('sha256');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        size += chunk.byteLength;
        deps.onBytes?.(chunk.byteLength);
        done(null, chunk);
      },
    });
    const source = clientNdjson(deps.client, task.productId, task.properties, task.source);
    // Byte mode: the readable holds one chunk ahead, not sixteen.
    await pipeline(Readable.from(source.lines, { objectMode: false }), createGzip(), measure, createWriteStream(spool));
    const clients = source.count();
    const digest = hash.digest();
    const sha256 = digest.toString('hex');
    await using file = await open(spool);
    const stored = await deps.store.put(task.key, fileSource(file), {
      contentType: 'application/gzip',
      // The spool is read at disk speed, so one part at a time costs little time and keeps the memory of the upload
      // at one part whatever the number of clients (a million clients make about 36 MB).
      maxPartsInFlight: 1,
      // Over a broken object, a new version; else never over another run's file.
      ifNoneMatch: problem === undefined,
      sha256Base64: digest.toString('base64'),
      metadata: {
        product: task.productId,
        kind: 'clientData',
        'file-name': task.fileName,
        'file-date': task.fileDate,
        size: String(size),
        sha256,
        'client-count': String(clients),
        ...propertiesMetadata(task.properties),
        'retrieved-at': deps.clock.now().toISOString(),
      },
    });
    deps.logger.info('client data archived', { productId: task.productId, key: task.key, clients, size, problem });
    const written = { key: task.key, size: stored.size, sha256, attempts: 1 };
    return problem === undefined
      ? { outcome: 'archived', ...written }
      : { outcome: 'repaired', ...written, reason: problem };
  } catch (e) {
    // Another run wrote today's file first: it is the day's file, ours is not needed.
    if (e instanceof ObjectExistsError) {
      const now = await deps.store.head(task.key);
      if (now && clientDataProblem(now) === undefined) return skippedSame(now);
    }
    const reason = `${(e as Error).name}: ${(e as Error).message}`;
    deps.logger.warn('client data not archived', { productId: task.productId, key: task.key, error: reason });
    return { outcome: 'failed', key: task.key, reason, attempts: 1 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The property list, when it fits S3's 2 KB of ASCII user metadata with room for the rest. */
function propertiesMetadata(properties: string[]): Record<string, string> {
  const list = properties.join(',');
  return list.length <= 1024 && /^[\x20-\x7e]*$/.test(list) ? { properties: list } : {};
}

/**
 * Why an object at the day's key is not a sound client data file, if it is not: every Pulse version spooled the file
 * first and so recorded its SHA-256 in the metadata, which is trusted (as for exports, archived-check.ts); an object
 * without it, or failing the metadata checks, was left by an interrupted write.
 */
function clientDataProblem(o: StoredObject): string | undefined {
  return metadataProblem(o) ?? (o.metadata.sha256 === undefined ? 'the archived object records no SHA-256' : undefined);
}

function skippedSame(o: StoredObject): CopyOutcome {
  return { outcome: 'skippedSame', key: o.key, size: o.size, sha256: o.metadata.sha256!, attempts: 0 };
}
