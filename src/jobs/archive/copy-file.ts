/**
 * The copy step of the export archive: one file from the service into the archive store, streamed end to end.
 *
 * Each attempt asks for a fresh signed URL (they may be single-use and expire), downloads it without service
 * cookies, and streams the body through SHA-256, a byte count and the ZIP check (download-tap.ts) into
 * `store.put`, whose `verify` hook runs before the commit: a truncated or corrupt download is never committed, and
 * is retried (bounded, short backoff) when the failure may pass (download, network, timeout, 5xx, bad ZIP). A body
 * that stops sending bytes (after its headers) fails after `downloadIdleTimeoutMs` and is retried the same way.
 *
 * An object already at the key is downloaded and hashed again, without uploading: the same SHA-256 → skippedSame;
 * a different one means the service republished the file → uploaded again as a new version of the key (the bucket
 * is versioned), reported as 'republished' with a warning, never a silent overwrite.
 *
 * The SHA-256 goes into the object metadata once the last byte has passed, which a single PutObject (any file
 * shorter than the store's part size) still carries; a multipart upload fixes its metadata when it starts, so every
 * archived file also gets a `<key>.sha256` checksum file, which later runs compare with.
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
import { checkedKey } from '../../ports/archive-key.ts';
import { type ArchiveStore, ObjectExistsError, type StoredObject } from '../../ports/archive-store.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Logger } from '../../ports/logger.ts';
import { DownloadTap } from './download-tap.ts';
import { ZipVerificationError } from './zip-verifier.ts';

export type CopyKind = 'customEvents' | 'exceptions' | 'rawEvents';

export interface CopyTask {
  productId: string;
  kind: CopyKind;
  fileName: string;
  fileDate: string;
  key: string;
}

export type CopyOutcome =
  | {
      outcome: 'archived' | 'skippedSame' | 'republished';
      key: string;
      size: number;
      /** Hex SHA-256 of the file. */
      sha256: string;
      attempts: number;
    }
  | { outcome: 'failed'; key: string; reason: string; attempts: number };

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
        const copied = await withRetries(task, deps, counter, () => transfer(task, deps, { upload: true }));
        await writeChecksumFile(deps.store, task, copied.sha256, { replace: false });
        return { outcome: 'archived', key, ...copied, attempts: counter.attempts };
      } catch (e) {
        // A conditional write lost to another copier of the same file (a task delivered twice): compare with its copy.
        existing = e instanceof ObjectExistsError ? await deps.store.head(key) : undefined;
        if (!existing) throw e;
      }
    }
    const fresh = await withRetries(task, deps, counter, () => transfer(task, deps, { upload: false }));
    if (await sameFile(deps.store, existing, fresh, deps.logger))
      return { outcome: 'skippedSame', key, ...fresh, attempts: counter.attempts };
    deps.logger.warn('archive: the service republished a file; storing it as a new version', {
      key,
      productId: task.productId,
      kind: task.kind,
      fileName: task.fileName,
      archivedSha256: existing.metadata.sha256,
      archivedSize: existing.size,
      sha256: fresh.sha256,
      size: fresh.size,
    });
    const expected = fresh.sha256;
    const copied = await withRetries(task, deps, counter, () =>
      transfer(task, deps, { upload: true, republished: expected }),
    );
    await writeChecksumFile(deps.store, task, copied.sha256, { replace: true });
    return { outcome: 'republished', key, ...copied, attempts: counter.attempts };
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

/** Key of the checksum file beside an archived export, in `sha256sum` format (`sha256sum -c` verifies it). */
export const checksumKey = (key: string) => checkedKey(`${key}.sha256`);

/**
 * Every archived file gets a checksum file: a multipart upload fixes its metadata before the last byte (and so
 * the hash) is known, so large files would otherwise carry no SHA-256 to compare with on later runs.
 */
async function writeChecksumFile(store: ArchiveStore, task: CopyTask, sha256: string, opts: { replace: boolean }) {
  const body = `${sha256}  ${task.fileName}\n`;
  try {
    await store.put(checksumKey(task.key), body, {
      contentType: 'text/plain; charset=utf-8',
      ifNoneMatch: !opts.replace,
    });
  } catch (e) {
    // Another copier of the same file wrote it first: same file, same checksum.
    if (!(e instanceof ObjectExistsError)) throw e;
  }
}

/** Same file: the SHA-256 in the object's metadata, else in its checksum file, else (neither there) the size. */
async function sameFile(
  store: ArchiveStore,
  existing: StoredObject,
  fresh: Transfer,
  logger: Logger,
): Promise<boolean> {
  const stored =
    existing.metadata.sha256 ??
    /^[0-9a-f]{64}/.exec(
      new TextDecoder().decode((await store.get(checksumKey(existing.key))) ?? new Uint8Array()),
    )?.[0];
  if (stored !== undefined) return stored === fresh.sha256;
  logger.info('archive: no SHA-256 recorded for the archived object; compared by size', { key: existing.key });
  return existing.size === fresh.size;
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
 * passes) or a sink (to hash an existing file). A new file is a conditional write (never over another copier's); a
 * republished one is a new version whose SHA-256 (hex) is known from the check, so the store commits no other bytes.
 */
async function transfer(
  task: CopyTask,
  deps: CopyDeps,
  opts: { upload: boolean; republished?: string },
): Promise<Transfer> {
  const { downloadUrl } = await deps.client[URL_OPERATION[task.kind]](task.productId, { fileName: task.fileName });
  const retrievedAt = deps.clock.now().toISOString();
  const download = await deps.client.download(downloadUrl);
  const announced = download.contentLength;
  const metadata: Record<string, string> = {
    product: task.productId,
    kind: task.kind,
    'source-file': task.fileName,
    'file-date': task.fileDate,
    ...(announced !== undefined ? { size: String(announced) } : {}),
    ...(opts.republished !== undefined ? { sha256: opts.republished } : {}),
    'retrieved-at': retrievedAt,
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
    if (!opts.upload) {
      // Only the tap's own work: hash, count, check; the bytes go nowhere.
      const scratch = Buffer.allocUnsafe(CHECK_BUFFER_SIZE);
      while ((await tap.readInto(scratch)) > 0);
      return await checked();
    }
    const expected = opts.republished;
    await deps.store.put(task.key, tap, {
      contentType: 'application/zip',
      metadata,
      ...(expected === undefined
        ? { ifNoneMatch: true }
        : { sha256Base64: Buffer.from(expected, 'hex').toString('base64') }),
      verify: async () => void (await checked()),
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
