/**
 * copyFile over real sockets: the emulator (service and storage listener) → s3rver, with the emulator's download
 * faults; S3 part failures (which s3rver cannot produce) with aws-sdk-client-mock; files larger than one part from
 * a storage listener of their own.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type StorageServer, startStorageServer } from '../../emulator/files/storage-server.ts';
import { zipSingleFile } from '../../emulator/files/zip.ts';
import type { Emulator } from '../../emulator/index.ts';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { type CopyDeps, type CopyKind, type CopyTask, copyFile } from '../../src/archive/copy/copy-file.ts';
import { type FetchLike, ReportingClient } from '../../src/client/index.ts';
import type { ArchiveStore } from '../../src/ports/archive-store.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import type { Logger } from '../../src/ports/logger.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { startTestBucket, type TestBucket } from '../helpers/s3-bucket.ts';

const BUCKET = 'pulse-copy-test';
const NOW = '2026-11-20T12:00:00.000Z';
const MiB = 1024 * 1024;
let emu: Emulator;
let s3: TestBucket;
let s3client: S3Client;
let store: S3ArchiveStore;
let client: ReportingClient;
let product: string;
let rawProduct: string;
let daily: string[];

const newClient = (extra: { fetch?: FetchLike; maxRetries?: number } = {}) =>
  new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    retryBaseDelayMs: 1,
    ...extra,
  });

beforeAll(async () => {
  emu = await startTestEmulator();
  s3 = await startTestBucket(BUCKET);
  ({ client: s3client, store } = s3);
  client = newClient();
  product = emu.products[0]!.productId;
  rawProduct = emu.products.find((p) => p.rawDataExport)!.productId;
  daily = (await client.customEventsListFiles(product)).dailyFiles.map((f) => f.fileName);
});
afterEach(() => emu.faults.clear());
afterAll(async () => {
  await client.logout();
  await s3.close();
  await emu.close();
});

interface LogEntry {
  level: string;
  message: string;
  data?: Record<string, unknown> | undefined;
}
function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at = (level: string) => (message: string, data?: Record<string, unknown>) =>
    void entries.push({ level, message, data });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The store, counting the puts that reach it. */
function countingStore(inner: ArchiveStore): ArchiveStore & { puts: number; reads: number } {
  const counting = {
    puts: 0,
    reads: 0,
    put: (...args: Parameters<ArchiveStore['put']>) => {
      counting.puts++;
      return inner.put(...args);
    },
    /** Reads of archived objects (checksum files not counted). */
    read: (...args: Parameters<ArchiveStore['read']>) => {
      if (!args[0].endsWith('.sha256')) counting.reads++;
      return inner.read(...args);
    },
    head: (key: string) => inner.head(key),
    get: (key: string) => inner.get(key),
    list: (prefix: string) => inner.list(prefix),
    linkTo: (key: string) => inner.linkTo(key),
  };
  return counting;
}

function deps(extra: Partial<CopyDeps> = {}) {
  const logger = recordingLogger();
  const d: CopyDeps = { client, store, clock: fixedClock(NOW), logger, retryDelayMs: 1, ...extra };
  return { deps: d, logger };
}

function task(fileName: string, kind: CopyKind = 'customEvents', productId = product): CopyTask {
  const fileDate = /\d{4}-\d{2}-\d{2}/.exec(fileName)![0];
  return { productId, kind, fileName, fileDate, key: `test/${randomUUID()}/${fileName}` };
}

const DOWNLOAD_URL = {
  customEvents: 'customEventsDownloadUrl',
  exceptions: 'exceptionsDownloadUrl',
  rawEvents: 'rawEventsDownloadUrl',
} as const;

/** The file as the emulator serves it, fetched independently of copyFile. */
async function served(t: CopyTask): Promise<Buffer> {
  const { downloadUrl } = await client[DOWNLOAD_URL[t.kind]](t.productId, { fileName: t.fileName });
  const res = await fetch(downloadUrl);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function expectArchivedAsServed(t: CopyTask): Promise<Buffer> {
  const bytes = await served(t);
  expect(Buffer.from((await store.get(t.key))!).equals(bytes)).toBe(true);
  return bytes;
}

describe('copyFile from the emulator to s3rver', () => {
  it('archives a daily file with its metadata, byte for byte', async () => {
    const t = task(daily.at(-1)!);
    const { deps: d } = deps();
    let progressed = 0;
    const onBytes = (n: number) => {
      progressed += n;
    };
    const outcome = await copyFile(t, { ...d, onBytes });
    const bytes = await expectArchivedAsServed(t);
    expect(outcome).toEqual({
      outcome: 'archived',
      key: t.key,
      size: bytes.length,
      sha256: sha256(bytes),
      attempts: 1,
    });
    expect(progressed).toBe(bytes.length);
    expect((await store.head(t.key))?.metadata).toEqual({
      product,
      kind: 'customEvents',
      'source-file': t.fileName,
      'file-date': t.fileDate,
      size: String(bytes.length),
      sha256: sha256(bytes),
      'retrieved-at': NOW,
      // Binds the checksum file, written before the commit, to this object (checksum-file.ts).
      'checksum-token': expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('archives monthly exception files and raw event files through their own download operations', async () => {
    const monthly = (await client.exceptionsListFiles(product)).monthlyFiles.at(-2)!;
    const raw = (await client.rawEventsListFiles(rawProduct)).fileList.at(-1)!;
    for (const t of [task(monthly.fileName, 'exceptions'), task(raw.fileName, 'rawEvents', rawProduct)]) {
      const outcome = await copyFile(t, deps().deps);
      const bytes = await expectArchivedAsServed(t);
      expect(outcome).toMatchObject({ outcome: 'archived', size: bytes.length, sha256: sha256(bytes) });
    }
  });

  it('skips a file that is already archived with the same SHA-256, without uploading', async () => {
    const t = task(daily.at(-2)!);
    const first = await copyFile(t, deps().deps);
    const counting = countingStore(store);
    const second = await copyFile(t, deps({ store: counting }).deps);
    expect(first.outcome).toBe('archived');
    expect(second).toEqual({ ...first, outcome: 'skippedSame', attempts: 1 });
    expect(counting.puts).toBe(0);
  });

  it('compares with the copy of a concurrent copier that committed first (conditional write)', async () => {
    const t = task(daily.at(-11)!);
    const conditional = new S3ArchiveStore({ client: s3client, bucket: BUCKET, emulateConditionalWrites: true });
    const first = await copyFile(t, deps({ store: conditional }).deps);
    // The second copier looked before the first committed: its head saw nothing, its conditional put must lose.
    const racing = countingStore(conditional);
    let heads = 0;
    racing.head = (key) => (heads++ === 0 ? Promise.resolve(undefined) : conditional.head(key));
    const second = await copyFile(t, deps({ store: racing }).deps);
    expect(first.outcome).toBe('archived');
    expect(second).toEqual({ ...first, outcome: 'skippedSame', attempts: 2 });
    expect(racing.puts).toBe(1);
    await expectArchivedAsServed(t);
  });

  it('stores a republished file (same name, other bytes) as a new version and warns', async () => {
    const t = task(daily.at(-3)!);
    await store.put(t.key, 'an older edition of the file', {
      contentType: 'application/zip',
      metadata: { sha256: sha256(Buffer.from('an older edition of the file')) },
    });
    const { deps: d, logger } = deps();
    const outcome = await copyFile(t, d);
    const bytes = await expectArchivedAsServed(t);
    expect(outcome).toEqual({
      outcome: 'republished',
      key: t.key,
      size: bytes.length,
      sha256: sha256(bytes),
      attempts: 2,
    });
    expect((await store.head(t.key))?.metadata.sha256).toBe(sha256(bytes));
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/republished/) }),
    );
  });

  it('retries a truncated download with a fresh URL and archives the whole file', async () => {
    const t = task(daily.at(-4)!);
    emu.faults.set({ rules: [{ path: t.fileName, truncateDownloadRate: 1, times: 1 }] });
    const { deps: d, logger } = deps();
    const outcome = await copyFile(t, d);
    emu.faults.clear();
    const bytes = await expectArchivedAsServed(t);
    expect(outcome).toMatchObject({ outcome: 'archived', size: bytes.length, attempts: 2 });
    expect(logger.entries.find((e) => e.message.includes('retrying'))?.data?.reason).toMatch(/DownloadError/);
  });

  it('gives up on a download that is always truncated, and commits nothing', async () => {
    const t = task(daily.at(-5)!);
    emu.faults.set({ rules: [{ path: t.fileName, truncateDownloadRate: 1 }] });
    const outcome = await copyFile(t, deps().deps);
    expect(outcome).toMatchObject({ outcome: 'failed', key: t.key, attempts: 3 });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(/^DownloadError: download: /);
    expect(await store.head(t.key)).toBeUndefined();
  });

  it('times out a download that stalls after its headers, and retries it with a fresh URL', async () => {
    const t = task(daily.at(-12)!);
    emu.faults.set({ rules: [{ path: t.fileName, stallDownloadRate: 1, times: 1 }] });
    const { deps: d, logger } = deps({ downloadIdleTimeoutMs: 200 });
    const outcome = await copyFile(t, d);
    expect(outcome).toMatchObject({ outcome: 'archived', attempts: 2 });
    expect(logger.entries.find((e) => e.message.includes('retrying'))?.data?.reason).toMatch(
      /^TimeoutError: download: storage sent no bytes for 200 ms \(after \d+ bytes of the body\)$/,
    );
    await expectArchivedAsServed(t);
  });

  it('gives up on a download that always stalls, and commits nothing', async () => {
    const t = task(daily.at(-13)!);
    emu.faults.set({ rules: [{ path: t.fileName, stallDownloadRate: 1 }] });
    const outcome = await copyFile(t, deps({ downloadIdleTimeoutMs: 100 }).deps);
    expect(outcome).toMatchObject({ outcome: 'failed', key: t.key, attempts: 3 });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(/^TimeoutError: download: storage sent no bytes/);
    expect(await store.head(t.key)).toBeUndefined();
  });

  it('asks for a fresh URL after an expired one', async () => {
    const t = task(daily.at(-6)!);
    emu.faults.set({ rules: [{ path: t.fileName, expiredDownloadRate: 1, times: 1 }] });
    const { deps: d, logger } = deps();
    const outcome = await copyFile(t, d);
    expect(outcome).toMatchObject({ outcome: 'archived', attempts: 2 });
    expect(logger.entries.find((e) => e.message.includes('retrying'))?.data?.reason).toMatch(/403 AccessDenied/);
    await expectArchivedAsServed(t);
    // The signed query (expires, sig) is the credential of a download: never in a log line.
    expect(JSON.stringify(logger.entries)).not.toMatch(/sig=|expires=/);
  });

  it('never commits a corrupt ZIP, even when storage delivers every announced byte', async () => {
    const t = task(daily.at(-7)!);
    emu.faults.set({ rules: [{ path: t.fileName, corruptDownloadRate: 1 }] });
    const outcome = await copyFile(t, deps().deps);
    emu.faults.clear();
    expect(outcome).toMatchObject({ outcome: 'failed', attempts: 3 });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(/^ZipVerificationError: entry "/);
    expect(await store.head(t.key)).toBeUndefined();
  });

  it('rides out 5xx answers to getDownloadUrl: the client retries, then copyFile does', async () => {
    const rule = (times?: number) => ({
      operations: ['customEventsDownloadUrl'],
      serverErrorRate: 1,
      serverErrorStatus: 503,
      ...(times !== undefined ? { times } : {}),
    });
    emu.faults.set({ rules: [rule(2)] });
    expect(await copyFile(task(daily.at(-8)!), deps().deps)).toMatchObject({ outcome: 'archived', attempts: 1 });

    const impatient = newClient({ maxRetries: 0 });
    emu.faults.set({ rules: [rule(2)] });
    const t = task(daily.at(-9)!);
    expect(await copyFile(t, deps({ client: impatient }).deps)).toMatchObject({ outcome: 'archived', attempts: 3 });
    await expectArchivedAsServed(t);

    emu.faults.set({ rules: [rule()] });
    const failed = await copyFile(task(daily.at(-10)!), deps({ client: impatient }).deps);
    expect(failed).toMatchObject({ outcome: 'failed', attempts: 3 });
    expect(failed.outcome === 'failed' && failed.reason).toMatch(/^ServerError: .*503/);
    await impatient.logout();
  });

  it('reports a file the service no longer offers as failed at once', async () => {
    const t = task(`${product}_cust_2020-01-01.zip`);
    const outcome = await copyFile(t, deps().deps);
    expect(outcome).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(/^NotFoundError/);
  });
});

describe('copyFile with files larger than one part', () => {
  const bigName = `${product}_cust_2026-11-18.zip`;
  let storage: StorageServer;
  let bigZip: Uint8Array;
  /** Serves one big ZIP through signed URLs; the download itself goes through a real client. */
  let serving: Uint8Array;
  /** Serves one big ZIP (`zip`, else the default one) through signed URLs; the download goes through a real client. */
  const bigSource = (zip?: Uint8Array): CopyDeps['client'] => {
    const url = async () => {
      serving = zip ?? bigZip;
      return { downloadUrl: storage.sign('big/file.zip') };
    };
    return {
      customEventsDownloadUrl: url,
      exceptionsDownloadUrl: url,
      rawEventsDownloadUrl: url,
      download: (u, opts) => client.download(u, opts),
    };
  };

  const multipart = () => new S3ArchiveStore({ client: s3client, bucket: BUCKET, partSize: 5 * MiB });
  /** Another edition of the big file, of exactly its size. */
  const sameSizeZip = () => zipSingleFile('big.csv', randomBytes(6 * MiB), new Date(NOW));
  const checksumLine = async (t: CopyTask) => new TextDecoder().decode(await store.get(`${t.key}.sha256`));
  const removeObject = async (key: string) => {
    await s3client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
  };

  beforeAll(async () => {
    // Random content is stored as is: a 6 MiB ZIP, more than one 5 MiB part.
    bigZip = zipSingleFile('big.csv', randomBytes(6 * MiB), new Date(NOW));
    storage = await startStorageServer({ secret: 'test', now: Date.now, resolve: async () => serving });
  });
  afterAll(() => storage.close());

  it('streams a multipart upload to s3rver, its checksum file bound to it, which the next run trusts', async () => {
    const t = task(bigName);
    const first = await copyFile(t, deps({ client: bigSource(), store: multipart() }).deps);
    expect(first).toEqual({
      outcome: 'archived',
      key: t.key,
      size: bigZip.length,
      sha256: sha256(bigZip),
      attempts: 1,
    });
    expect(Buffer.from((await store.get(t.key))!).equals(Buffer.from(bigZip))).toBe(true);
    const metadata = (await store.head(t.key))!.metadata;
    expect(metadata).toMatchObject({ size: String(bigZip.length), 'source-file': bigName });
    // Fixed at CreateMultipartUpload, before the last byte: no hash, but the token that binds the checksum file.
    expect(metadata.sha256).toBeUndefined();
    expect(metadata['checksum-token']).toMatch(/^[0-9a-f]{32}$/);
    expect(await checksumLine(t)).toBe(`${sha256(bigZip)}  ${bigName}\n`);
    expect((await store.head(`${t.key}.sha256`))!.metadata['checksum-token']).toBe(metadata['checksum-token']);
    const counting = countingStore(multipart());
    const second = await copyFile(t, deps({ client: bigSource(), store: counting }).deps);
    expect(second).toEqual({ ...first, outcome: 'skippedSame' });
    expect([counting.puts, counting.reads]).toEqual([0, 0]);
  });

  it('stores a same-size republished file whose archived multipart object lost its checksum file', async () => {
    const t = task(bigName);
    await copyFile(t, deps({ client: bigSource(), store: multipart() }).deps);
    await removeObject(`${t.key}.sha256`);
    const republished = sameSizeZip();
    const counting = countingStore(multipart());
    const outcome = await copyFile(t, deps({ client: bigSource(republished), store: counting }).deps);
    expect(outcome).toMatchObject({ outcome: 'republished', size: bigZip.length, sha256: sha256(republished) });
    expect(counting.reads).toBe(1);
    expect(Buffer.from((await store.get(t.key))!).equals(Buffer.from(republished))).toBe(true);
    expect(await checksumLine(t)).toBe(`${sha256(republished)}  ${bigName}\n`);
  });

  it.each([
    ['missing', async (key: string) => removeObject(`${key}.sha256`)],
    ['empty', async (key: string) => void (await store.put(`${key}.sha256`, '', { contentType: 'text/plain' }))],
  ])('hashes an intact object once when its checksum file is %s, and repairs that file', async (_, damage) => {
    const t = task(bigName);
    const first = await copyFile(t, deps({ client: bigSource(), store: multipart() }).deps);
    await damage(t.key);
    const counting = countingStore(multipart());
    const second = await copyFile(t, deps({ client: bigSource(), store: counting }).deps);
    expect(second).toEqual({ ...first, outcome: 'skippedSame', checksumRepaired: true });
    expect([counting.reads, counting.puts]).toEqual([1, 1]);
    expect(await checksumLine(t)).toBe(`${sha256(bigZip)}  ${bigName}\n`);
    // Bound to the object now: the run after trusts it without reading the object.
    const again = countingStore(multipart());
    expect(await copyFile(t, deps({ client: bigSource(), store: again }).deps)).toEqual({
      ...first,
      outcome: 'skippedSame',
    });
    expect([again.reads, again.puts]).toEqual([0, 0]);
  });

  it('does not trust a checksum file written by an upload that never completed', async () => {
    const t = task(bigName);
    await copyFile(t, deps({ client: bigSource(), store: multipart() }).deps);
    const republished = sameSizeZip();
    // The process dies between the checksum file (verify hook) and CompleteMultipartUpload.
    const dying = s3ClientFor({ endpoint: s3.endpoint });
    dying.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'CompleteMultipartUploadCommand') throw new Error('killed');
        return next(args);
      },
      { step: 'initialize', name: 'killBeforeComplete' },
    );
    const killed = new S3ArchiveStore({ client: dying, bucket: BUCKET, partSize: 5 * MiB });
    const died = await copyFile(t, deps({ client: bigSource(republished), store: killed }).deps);
    dying.destroy();
    expect(died).toMatchObject({ outcome: 'failed', reason: 'Error: killed' });
    // The archive still holds the first edition, beside a checksum file that names the new one.
    expect(Buffer.from((await store.get(t.key))!).equals(Buffer.from(bigZip))).toBe(true);
    expect(await checksumLine(t)).toBe(`${sha256(republished)}  ${bigName}\n`);
    const outcome = await copyFile(t, deps({ client: bigSource(republished), store: multipart() }).deps);
    expect(outcome).toMatchObject({ outcome: 'republished', sha256: sha256(republished) });
    expect(Buffer.from((await store.get(t.key))!).equals(Buffer.from(republished))).toBe(true);
    expect(await checksumLine(t)).toBe(`${sha256(republished)}  ${bigName}\n`);
  });

  it('repairs an archived object that fails its own check (not a ZIP) with a new version, not as republished', async () => {
    const t = task(bigName);
    // Pulse metadata but neither a hash nor a checksum file, and bytes that are no ZIP: hashed, checked, refused.
    await store.put(t.key, Readable.from([Buffer.alloc(bigZip.length, 7)]), {
      contentType: 'application/zip',
      metadata: { product, kind: 'customEvents', 'source-file': bigName, size: String(bigZip.length) },
    });
    const { deps: d, logger } = deps({ client: bigSource(), store: multipart() });
    const outcome = await copyFile(t, d);
    expect(outcome).toMatchObject({
      outcome: 'repaired',
      sha256: sha256(bigZip),
      reason: expect.stringMatching(/ZIP/),
    });
    expect(Buffer.from((await store.get(t.key))!).equals(Buffer.from(bigZip))).toBe(true);
    expect((await store.head(t.key))!.metadata.sha256).toBe(sha256(bigZip));
    expect(await checksumLine(t)).toBe(`${sha256(bigZip)}  ${bigName}\n`);
    expect(logger.entries.some((e) => e.message.includes('republished'))).toBe(false);
  });

  it('times only the wait for bytes, not an upload that is slow to take them', async () => {
    const slowed = multipart();
    // The store pauses well past the idle limit before it reads on, as a slow part upload would make it.
    const slow: ArchiveStore = {
      ...countingStore(slowed),
      put: (key, body, opts) => {
        if (!(body instanceof Readable)) return slowed.put(key, body, opts);
        async function* paused(source: Readable) {
          let n = 0;
          for await (const chunk of source) {
            if (n++ === 1) await sleep(400);
            yield chunk as Uint8Array;
          }
        }
        return slowed.put(key, Readable.from(paused(body)), opts);
      },
    };
    const t = task(bigName);
    const outcome = await copyFile(t, deps({ client: bigSource(), store: slow, downloadIdleTimeoutMs: 100 }).deps);
    expect(outcome).toMatchObject({ outcome: 'archived', size: bigZip.length, sha256: sha256(bigZip), attempts: 1 });
  });

  it('aborts the multipart upload when a part fails (mocked S3), retries, and reports the failure', async () => {
    const mockedClient = new S3Client({ region: 'us-east-1' });
    const mock = mockClient(mockedClient);
    const notFound = new S3ServiceException({ name: 'NotFound', $fault: 'client', $metadata: { httpStatusCode: 404 } });
    const internal = new S3ServiceException({
      name: 'InternalError',
      $fault: 'server',
      $metadata: { httpStatusCode: 500 },
      message: 'We encountered an internal error',
    });
    mock.on(HeadObjectCommand).rejects(notFound);
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' });
    mock.on(UploadPartCommand).rejects(internal);
    mock.on(AbortMultipartUploadCommand).resolves({});
    const mocked = new S3ArchiveStore({ client: mockedClient, bucket: BUCKET, partSize: 5 * MiB });
    const t = task(bigName);
    const outcome = await copyFile(t, deps({ client: bigSource(), store: mocked }).deps);
    expect(outcome).toMatchObject({ outcome: 'failed', attempts: 3 });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(/InternalError/);
    expect(mock.commandCalls(AbortMultipartUploadCommand)).toHaveLength(3);
    expect(mock.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    mock.restore();
  });
});
