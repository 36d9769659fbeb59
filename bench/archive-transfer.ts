/**
 * One transfer of bench/archive-copy.ts in this (fresh) process: `<mode> <file JSON> <s3 endpoint> <bucket> <key>`;
 * prints
 * one JSON line (`Transfer`). bench/archive-copy.ts runs it as an esbuild bundle built and started like the copier
 * Lambda (bench/lambda-bundle.ts), every mode from the same bundle, so the raw baselines load exactly what the copy
 * loads; once, for comparison, it runs this file as it is (type-stripped .ts).
 * - `copy`: the job's copy step, `copyFile` with the real S3ArchiveStore (its default part size and queue) and the
 *   real client download (`ReportingClient.download`, which needs no session); only the download-URL call is
 *   answered here, with the URL the bench's storage listener signed (it serves the bench's files, not the
 *   emulator's). The copy must come back `archived` with the file's SHA-256.
 * - `raw-multipart`, `raw-put`: the same bytes between the same servers with nothing in between
 *   (bench/raw-transfer.ts), parts of the same size and as many in flight as the store.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import {
  DEFAULT_PART_SIZE,
  DEFAULT_QUEUE_SIZE,
  S3ArchiveStore,
  s3ClientFor,
} from '../src/adapters/aws/s3-archive-store.ts';
import { type CopyDeps, copyFile, type FileSource } from '../src/archive/copy/copy-file.ts';
import { ReportingClient } from '../src/client/index.ts';
import { systemClock } from '../src/ports/clock.ts';
import type { Logger } from '../src/ports/logger.ts';
import type { Transfer } from './archive-results.ts';
import { peakRssMb, round } from './measure.ts';
import { rawMultipart, rawPut } from './raw-transfer.ts';
import type { StoredZip } from './zip-storage.ts';

const MIB = 1024 * 1024;

type Mode = Transfer['mode'];

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface Destination {
  endpoint: string;
  bucket: string;
  key: string;
}

async function copyStep(file: StoredZip, client: S3Client, to: Destination): Promise<number> {
  const store = new S3ArchiveStore({ client, bucket: to.bucket });
  const reporting = new ReportingClient({
    baseUrl: 'http://127.0.0.1:9', // never called: the download goes to the signed URL's own origin
    origin: 'http://localhost:3000',
    credentials: { userName: 'unused', password: 'unused' },
  });
  const url = async (_productId: string, body: { fileName: string }) => {
    if (body.fileName !== file.fileName) throw new Error(`unexpected file ${body.fileName}`);
    return { downloadUrl: file.url };
  };
  const source: FileSource = {
    customEventsDownloadUrl: url,
    exceptionsDownloadUrl: url,
    rawEventsDownloadUrl: url,
    download: (u, opts) => reporting.download(u, opts),
  };
  const deps: CopyDeps = { client: source, store, clock: systemClock, logger: quiet, maxAttempts: 1 };
  const task = { productId: '12345678901', kind: 'customEvents' as const, ...file, key: to.key };
  const out = await copyFile(task, deps);
  if (out.outcome !== 'archived') throw new Error(`copy: ${JSON.stringify(out)}`);
  if (out.sha256 !== file.sha256Hex) throw new Error(`copy: SHA-256 ${out.sha256}, the file has ${file.sha256Hex}`);
  return out.size;
}

async function transfer(mode: Mode, file: StoredZip, to: Destination): Promise<Transfer> {
  const startRssMb = Math.round(process.memoryUsage().rss / MIB);
  const client = s3ClientFor({ endpoint: to.endpoint });
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
  const target = { client, bucket: to.bucket, key: to.key, partSize: DEFAULT_PART_SIZE, queueSize: DEFAULT_QUEUE_SIZE };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let bytes: number;
  if (mode === 'raw-put') bytes = await rawPut(file.url, target);
  else if (mode === 'raw-multipart') bytes = await rawMultipart(file.url, target);
  else bytes = await copyStep(file, client, to);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  client.destroy();
  if (bytes !== file.bytes) throw new Error(`${mode} moved ${bytes} of ${file.bytes} bytes`);
  return {
    mode,
    bytes,
    ms: round(ms, 0),
    mibPerS: round(bytes / MIB / (ms / 1000), 1),
    completeMs: round(completeMs, 0),
    cpuMs: round((cpu.user + cpu.system) / 1000, 0),
    startRssMb,
    peakRssMb: peakRssMb(),
  };
}

const [mode, file, endpoint, bucket, key] = process.argv.slice(2) as [Mode, string, string, string, string];
console.log(JSON.stringify(await transfer(mode, JSON.parse(file) as StoredZip, { endpoint, bucket, key })));
