/**
 * The archive copy's targets (issue 5, "Speed and memory"), measured in one run (`node bench/archive-copy.ts`, run
 * by bench/run.ts; prints one JSON line, `ArchiveCopyResult`):
 * - throughput: a 1 GiB ZIP from the emulator's storage listener to s3rver through the job's copy step, against a raw
 *   stream pipe of the same bytes between the same two servers (bench/raw-transfer.ts), alternating, each transfer in
 *   a fresh process; ratio = median over the rounds of copy throughput / raw throughput;
 * - memory: the peak RSS of the copying process for a 100 MiB and a 1 GiB file, each in a fresh process.
 * Processes: the storage listener holds the files (bench/zip-storage.ts), s3rver runs in this process, every
 * transfer runs in a child (`node bench/archive-copy.ts transfer <mode> …`).
 */
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { S3ArchiveStore, s3ClientFor } from '../src/adapters/aws/s3-archive-store.ts';
import { ReportingClient } from '../src/client/index.ts';
import { type CopyDeps, copyFile, type FileSource } from '../src/jobs/archive/copy-file.ts';
import { systemClock } from '../src/ports/clock.ts';
import type { Logger } from '../src/ports/logger.ts';
import type { ArchiveCopyResult, Transfer } from './archive-results.ts';
import { benchScript, median, peakRssMb, round, runChild, startBenchS3, startPeer } from './processes.ts';
import { rawMultipart, rawPut } from './raw-transfer.ts';
import type { StorageInfo, StoredZip } from './zip-storage.ts';

const BUCKET = 'pulse-bench';
/** S3ArchiveStore's defaults, passed to it explicitly so the raw baseline cannot drift from them. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;
const ROUNDS = 3;
const MIB = 1024 * 1024;

type Mode = Transfer['mode'];

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * The job's copy step for `file`: `copyFile` with the real S3ArchiveStore and the real client download
 * (`ReportingClient.download`, which needs no session); only the download-URL call is answered here with the URL
 * the storage listener signed, since that listener serves the bench's files rather than the emulator's.
 */
async function copyStep(file: StoredZip, client: S3Client, key: string): Promise<number> {
  const store = new S3ArchiveStore({ client, bucket: BUCKET, partSize: PART_SIZE, queueSize: QUEUE_SIZE });
  const reporting = new ReportingClient({
    baseUrl: 'http://127.0.0.1:9', // never called: the download goes to the signed URL's own origin
    origin: 'http://localhost:3000',
    credentials: { userName: 'unused', password: 'unused' },
  });
  const url = async (_productId: string, body: { fileName: string }) => {
    if (body.fileName !== file.fileName) throw new Error(`unexpected file ${body.fileName}`);
    return { downloadUrl: file.url };
  };
  const source = {
    customEventsDownloadUrl: url,
    exceptionsDownloadUrl: url,
    rawEventsDownloadUrl: url,
    download: (u: string) => reporting.download(u),
  } as FileSource;
  const deps: CopyDeps = { client: source, store, clock: systemClock, logger: quiet, maxAttempts: 1 };
  const task = { productId: '12345678901', kind: 'customEvents' as const, ...file, key };
  const out = await copyFile(task, deps);
  if (out.outcome !== 'archived') throw new Error(`copy: ${JSON.stringify(out)}`);
  if (out.sha256 !== file.sha256Hex) throw new Error(`copy: SHA-256 ${out.sha256}, the file has ${file.sha256Hex}`);
  return out.size;
}

/** One transfer in this (fresh) process. */
async function transfer(mode: Mode, file: StoredZip, endpoint: string, key: string): Promise<Transfer> {
  const startRssMb = Math.round(process.memoryUsage().rss / MIB);
  const client = s3ClientFor({ endpoint });
  let completeMs = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'CompleteMultipartUploadCommand') return next(args);
      const t = performance.now();
      try {
        return await next(args);
      } finally {
        completeMs += performance.now() - t;
      }
    },
    { step: 'initialize', name: 'benchCompleteTimer' },
  );
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let bytes: number;
  if (mode === 'raw-put') bytes = await rawPut(file.url, { client, bucket: BUCKET, key });
  else if (mode === 'raw-multipart')
    bytes = await rawMultipart(file.url, { client, bucket: BUCKET, key, partSize: PART_SIZE, queueSize: QUEUE_SIZE });
  else bytes = await copyStep(file, client, key);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  client.destroy();
  if (bytes !== file.bytes) throw new Error(`${mode} moved ${bytes} of ${file.bytes} bytes`);
  const mibPerS = round(bytes / MIB / (ms / 1000), 1);
  return {
    mode,
    bytes,
    ms: round(ms, 0),
    mibPerS,
    completeMs: round(completeMs, 0),
    cpuMs: round((cpu.user + cpu.system) / 1000, 0),
    startRssMb,
    peakRssMb: peakRssMb(),
  };
}

async function orchestrate(): Promise<ArchiveCopyResult> {
  const [largeMiB, smallMiB] = [1024, 100];
  const storage = await startPeer<StorageInfo>(benchScript('zip-storage'), [largeMiB, smallMiB]);
  const s3 = await startBenchS3(BUCKET);
  try {
    const [large, small] = storage.info.files as [StoredZip, StoredZip];
    const s3Client = s3ClientFor({ endpoint: s3.endpoint });
    let n = 0;
    /** One transfer in a fresh process; the object is deleted afterwards, so the disk holds one at a time. */
    const run = async (mode: Mode, file: StoredZip) => {
      const key = `bench/${n++}/${file.fileName}`;
      const t = await runChild<Transfer>(benchScript('archive-copy'), [
        'transfer',
        mode,
        JSON.stringify(file),
        s3.endpoint,
        key,
      ]);
      await s3Client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
      return t;
    };
    const rounds: ArchiveCopyResult['rounds'] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Copy and raw take turns at going first, so neither always meets a freshly written disk cache.
      const [first, second] = r % 2 === 0 ? (['raw-multipart', 'copy'] as const) : (['copy', 'raw-multipart'] as const);
      const a = await run(first, large);
      const b = await run(second, large);
      const [copy, raw] = first === 'copy' ? [a, b] : [b, a];
      const rawPut = await run('raw-put', large);
      rounds.push({ copy, raw, rawPut });
      process.stderr.write(`  round ${r + 1}: copy ${copy.mibPerS} MiB/s, raw ${raw.mibPerS}, put ${rawPut.mibPerS}\n`);
    }
    const smallCopies: Transfer[] = [];
    for (let r = 0; r < ROUNDS; r++) smallCopies.push(await run('copy', small));
    s3Client.destroy();
    const copyMiBPerS = median(rounds.map((x) => x.copy.mibPerS));
    const rawMiBPerS = median(rounds.map((x) => x.raw.mibPerS));
    const peakRssLargeMb = Math.max(...rounds.map((x) => x.copy.peakRssMb));
    const peakRssSmallMb = Math.max(...smallCopies.map((x) => x.peakRssMb));
    return {
      fileMiB: largeMiB,
      smallFileMiB: smallMiB,
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      rounds,
      smallCopies,
      copyMiBPerS,
      rawMiBPerS,
      rawPutMiBPerS: median(rounds.map((x) => x.rawPut.mibPerS)),
      // Paired per round: the machine's state (other processes, caches) drifts more between rounds than within one.
      ratio: round(median(rounds.map((x) => x.copy.mibPerS / x.raw.mibPerS))),
      peakRssSmallMb,
      peakRssLargeMb,
      rssRatio: round(peakRssLargeMb / peakRssSmallMb),
    };
  } finally {
    await s3.close();
    await storage.stop();
  }
}

const [command, mode, file, endpoint, key] = process.argv.slice(2);
if (command === 'transfer') {
  console.log(JSON.stringify(await transfer(mode as Mode, JSON.parse(file!) as StoredZip, endpoint!, key!)));
} else {
  console.log(JSON.stringify(await orchestrate()));
}
