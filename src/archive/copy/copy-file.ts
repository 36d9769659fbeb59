/**
 * The copy step of the export archive: one file from the service into the archive store, streamed end to end.
 *
 * Each attempt asks for a fresh signed URL (they may be single-use and expire), downloads it without service
 * cookies, and streams the body through SHA-256, a byte count and the ZIP check (download-tap.ts) into
 * `store.put`, whose `verify` hook runs before the commit: a truncated or corrupt download is never committed, and
 * is retried (bounded, short backoff) when the failure may pass (download, network, timeout, 5xx, bad ZIP). A body
 * that stops sending bytes (after its headers) fails after `downloadIdleTimeoutMs` and is retried the same way.
 *
 * An object already at the key is downloaded and hashed again, without uploading, and compared with the SHA-256
 * the archived object is known by (archived-check.ts: never its size alone): the same → skippedSame (its checksum
 * file rewritten if it was missing or wrong); a different one means the service republished the file → uploaded
 * again as a new version of the key (the bucket is versioned), reported as 'republished' with a warning, never a
 * silent overwrite. An archived object that fails its own check (a crash leftover) gets a new version too, reported
 * as 'repaired': the service did nothing wrong.
 *
 * The SHA-256 goes into the object metadata once the last byte has passed, which a single PutObject (any file
 * shorter than the store's part size) still carries, and up front when it is known from the check; a multipart
 * upload fixes its metadata when it starts, so every archived file also gets a `<key>.sha256` checksum file, written
 * before the commit and bound to the object by a token (checksum-file.ts), which later runs compare with.
 *
 * A new file is written conditionally (If-None-Match where the store supports it): when another copier of the same
 * file got there first, its object is compared like any existing one.
 *
 * File-level failures never throw: they come back as 'failed' with the reason and the attempts made.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DownloadError,
  NetworkError,
  type ReportingClient,
  ReportingServiceError,
  ServerError,
  TimeoutError,
} from '../../client/index.ts';
import { ZipVerificationError } from '../../core/zip/zip-verifier.ts';
import type { CopyOutcome } from '../../ports/archive-runs.ts';
import { type ArchiveStore, ObjectExistsError } from '../../ports/archive-store.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Logger } from '../../ports/logger.ts';
import { checkArchived } from './archived-check.ts';
import { CHECKSUM_TOKEN, newChecksumToken, writeChecksumFile } from './checksum-file.ts';
import { DownloadTap } from './download-tap.ts';

export type { CopyOutcome } from '../../ports/archive-runs.ts';

export type CopyKind = 'customEvents' | 'exceptions' | 'rawEvents';

export interface CopyTask {
  productId: string;
  kind: CopyKind;
  fileName: string;
  fileDate: string;
  key: string;
}

/** What a copy needs of the client: the three download-URL operations and the bare download. */
export type FileSource = Pick<
  ReportingClient,
  'customEventsDownloadUrl' | 'exceptionsDownloadUrl' | 'rawEventsDownloadUrl' | 'download'
>;

export interface CopyDeps {
  client: FileSource;
  store: ArchiveStore;
  clock: Clock;
  logger: Logger;
  /** Download attempts per pass (the check of an existing object and the upload each get this many). @default 3 */
  maxAttempts?: number;
  /** Called with the size of every chunk that passes (progress). */
  onBytes?: (n: number) => void;
  /** Backoff before retry n is n × this. @default 250 */
  retryDelayMs?: number;
  /**
   * A download whose body sends no byte for this long fails with a TimeoutError and is retried with a fresh URL
   * (the limit on the response headers is the client's `timeoutMs`). @default 30000
   */
  downloadIdleTimeoutMs?: number;
}

const URL_OPERATION = {
  customEvents: 'customEventsDownloadUrl',
  exceptions: 'exceptionsDownloadUrl',
  rawEvents: 'rawEventsDownloadUrl',
} as const;

/** The buffer an existing object's download is read into, only to be hashed and checked. */
const CHECK_BUFFER_SIZE = 256 * 1024;

interface Transfer {
  size: number;
  sha256: string;
}

export async function copyFile(task: CopyTask, deps: CopyDeps): Promise<CopyOutcome> {
  const { key } = task;
  const counter = { attempts: 0 };
  try {
    let existing = await deps.store.head(key);
    if (!existing) {
      try {
        const copied = await withRetries(task, deps, counter, () => transfer(task, deps, {}));
        return { outcome: 'archived', key, ...copied, attempts: counter.attempts };
      } catch (e) {
        // A conditional write lost to another copier of the same file (a task delivered twice): compare with its copy.
        existing = e instanceof ObjectExistsError ? await deps.store.head(key) : undefined;
        if (!existing) throw e;
      }
    }
    const fresh = await withRetries(task, deps, counter, () => transfer(task, deps, { checkOnly: true }));
    const archived = await checkArchived(deps.store, existing);
    if (archived.ok && archived.sha256 === fresh.sha256) {
      if (!archived.checksumFileWrong) return { outcome: 'skippedSame', key, ...fresh, attempts: counter.attempts };
      await writeChecksumFile(deps.store, key, task.fileName, fresh.sha256, existing.metadata[CHECKSUM_TOKEN]);
      deps.logger.info('archive: checksum file repaired', { key, hashed: archived.hashed });
      return { outcome: 'skippedSame', key, ...fresh, attempts: counter.attempts, checksumRepaired: true };
    }
    const about = { key, productId: task.productId, kind: task.kind, fileName: task.fileName, sha256: fresh.sha256 };
    if (archived.ok) {
      deps.logger.warn('archive: the service republished a file; storing it as a new version', {
        ...about,
        archivedSha256: archived.sha256,
        archivedSize: existing.size,
        size: fresh.size,
      });
    } else {
      deps.logger.warn('archive: the archived object fails its check; writing a new version', {
        ...about,
        problem: archived.problem,
      });
    }
    const expected = fresh.sha256;
    const copied = await withRetries(task, deps, counter, () => transfer(task, deps, { replacing: expected }));
    if (archived.ok) return { outcome: 'republished', key, ...copied, attempts: counter.attempts };
    return { outcome: 'repaired', key, ...copied, attempts: counter.attempts, reason: archived.problem };
  } catch (e) {
    const reason = describe(e);
    deps.logger.warn('archive: file not archived', {
      key,
      fileName: task.fileName,
      attempts: counter.attempts,
      reason,
    });
    return { outcome: 'failed', key, reason, attempts: counter.attempts };
  }
}

async function withRetries(
  task: CopyTask,
  deps: CopyDeps,
  counter: { attempts: number },
  attempt: () => Promise<Transfer>,
): Promise<Transfer> {
  const max = deps.maxAttempts ?? 3;
  for (let n = 1; ; n++) {
    counter.attempts++;
    try {
      return await attempt();
    } catch (e) {
      if (n >= max || !retryable(e)) throw e;
      deps.logger.warn('archive: download attempt failed; retrying with a fresh URL', {
        key: task.key,
        attempt: n,
        reason: describe(e),
      });
      await sleep((deps.retryDelayMs ?? 250) * n);
    }
  }
}

/**
 * One attempt: a fresh URL, the download through the tap, and either the upload (committed only if `verify`
 * passes) or a sink (to hash the file for a check). A new file is a conditional write (never over another
 * copier's); a replacing one (republished, or over a broken object) is a new version whose SHA-256 (hex) is known
 * from the check, so it goes into the metadata up front and the store commits no other bytes. Either way the
 * checksum file is written, bound to the upload's token, in `verify`: before the commit (checksum-file.ts).
 */
async function transfer(
  task: CopyTask,
  deps: CopyDeps,
  opts: { checkOnly?: boolean; replacing?: string },
): Promise<Transfer> {
  const { downloadUrl } = await deps.client[URL_OPERATION[task.kind]](task.productId, { fileName: task.fileName });
  const retrievedAt = deps.clock.now().toISOString();
  const download = await deps.client.download(downloadUrl);
  const announced = download.contentLength;
  const token = newChecksumToken();
  const metadata: Record<string, string> = {
    product: task.productId,
    kind: task.kind,
    'source-file': task.fileName,
    'file-date': task.fileDate,
    ...(announced !== undefined ? { size: String(announced) } : {}),
    ...(opts.replacing !== undefined ? { sha256: opts.replacing } : {}),
    'retrieved-at': retrievedAt,
    [CHECKSUM_TOKEN]: token,
  };
  // Filled in as the last byte passes, before the store reads the end of the body (see the note at the top).
  const tap = new DownloadTap(download, {
    idleTimeoutMs: deps.downloadIdleTimeoutMs ?? 30_000,
    onBytes: deps.onBytes,
    onEnd: (end) => Object.assign(metadata, { size: String(end.bytes), sha256: end.sha256 }),
  });
  const checked = async (): Promise<Transfer> => {
    await tap.verifier.result();
    if (announced !== undefined && tap.bytes !== announced) {
      throw new DownloadError(`body has ${tap.bytes} bytes, Content-Length announced ${announced}`, {
        operationId: 'download',
      });
    }
    return { size: tap.bytes, sha256: tap.sha256! };
  };
  try {
    if (opts.checkOnly) {
      // Only the tap's own work: hash, count, check; the bytes go nowhere.
      const scratch = Buffer.allocUnsafe(CHECK_BUFFER_SIZE);
      while ((await tap.readInto(scratch)) > 0);
      return await checked();
    }
    const expected = opts.replacing;
    await deps.store.put(task.key, tap, {
      contentType: 'application/zip',
      metadata,
      ...(expected === undefined
        ? { ifNoneMatch: true }
        : { sha256Base64: Buffer.from(expected, 'hex').toString('base64') }),
      verify: async () => {
        const { sha256 } = await checked();
        await writeChecksumFile(deps.store, task.key, task.fileName, sha256, token);
      },
    });
    return await checked();
  } finally {
    // Whatever happened, the connection is not left open (a store that gave up early leaves the body unread).
    tap.close();
  }
}

function retryable(e: unknown): boolean {
  if (e instanceof ZipVerificationError) return true;
  if (e instanceof DownloadError || e instanceof NetworkError || e instanceof TimeoutError) return true;
  if (e instanceof ServerError) return true;
  const status =
    e instanceof ReportingServiceError
      ? e.status
      : (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 500;
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
