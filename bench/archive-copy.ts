/**
 * The archive copy's targets (issue 5, "Speed and memory"), measured in one run (`node bench/archive-copy.ts`, run
 * by bench/run.ts; prints one JSON line, `ArchiveCopyResult`):
 * - throughput: a 1 GiB ZIP from the emulator's storage listener to s3rver through the job's copy step, against a raw
 *   stream pipe of the same bytes between the same two servers (bench/raw-transfer.ts), alternating, each transfer in
 *   a fresh process; ratio = median over the rounds of copy throughput / raw throughput;
 * - memory: the peak RSS of the copying process for a 100 MiB and a 1 GiB file, each in a fresh process: the
 *   highest against the target, the medians (as many processes per size) for "flat".
 * Processes: the storage listener holds the files (bench/zip-storage.ts), s3rver runs in this process, every
 * transfer runs in a child: bench/archive-transfer.ts bundled and started like the copier Lambda
 * (bench/lambda-bundle.ts), the raw baselines from the same bundle; one more copy of the small file runs the .ts
 * as it is (type-stripped), to show what the bundle changes before the first byte.
 */
import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { DEFAULT_PART_SIZE, DEFAULT_QUEUE_SIZE, s3ClientFor } from '../src/adapters/aws/s3-archive-store.ts';
import type { ArchiveCopyResult, Transfer } from './archive-results.ts';
import { bundleLikeLambda, FUNCTION_MEMORY_MB, lambdaNodeOptions } from './lambda-bundle.ts';
import { benchScript, median, round, runChild, startBenchS3, startPeer } from './processes.ts';
import type { StorageInfo, StoredZip } from './zip-storage.ts';

const BUCKET = 'pulse-bench';
/** Rounds of the 1 GiB copy and raw pipe: the ratio of one round varies by ±15 % on two shared cores. */
const ROUNDS = 5;
/** Inside node_modules, so the bundle finds the AWS SDK it leaves external, as the Lambda finds the runtime's. */
/** The copier Lambda's NODE_OPTIONS. */
const NODE_OPTIONS = lambdaNodeOptions(FUNCTION_MEMORY_MB.archiveCopy);
const BUNDLE = new URL('../node_modules/.cache/pulse-bench/archive-transfer.mjs', import.meta.url).pathname;

type Mode = Transfer['mode'];

async function orchestrate(): Promise<ArchiveCopyResult> {
  const [largeMiB, smallMiB] = [1024, 100];
  const bundleKb = await bundleLikeLambda(benchScript('archive-transfer'), BUNDLE);
  const storage = await startPeer<StorageInfo>(benchScript('zip-storage'), [largeMiB, smallMiB]);
  const s3 = await startBenchS3(BUCKET);
  try {
    const [large, small] = storage.info.files as [StoredZip, StoredZip];
    const s3Client = s3ClientFor({ endpoint: s3.endpoint });
    let n = 0;
    /** One transfer in a fresh process; the object is deleted afterwards, so the disk holds one at a time. */
    const run = async (mode: Mode, file: StoredZip, script = BUNDLE) => {
      const key = `bench/${n++}/${file.fileName}`;
      const args = [mode, JSON.stringify(file), s3.endpoint, BUCKET, key];
      const t = await runChild<Transfer>(script, args, script === BUNDLE ? NODE_OPTIONS : []);
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
    // As many as of the large file: "flat" compares medians, and the maximum of more processes is higher by chance.
    for (let r = 0; r < ROUNDS; r++) smallCopies.push(await run('copy', small));
    const typeStripped = await run('copy', small, benchScript('archive-transfer'));
    s3Client.destroy();
    const copies = rounds.map((x) => x.copy);
    const peakRssLargeMb = Math.max(...copies.map((x) => x.peakRssMb));
    const peakRssSmallMb = Math.max(...smallCopies.map((x) => x.peakRssMb));
    return {
      fileMiB: largeMiB,
      smallFileMiB: smallMiB,
      partSize: DEFAULT_PART_SIZE,
      queueSize: DEFAULT_QUEUE_SIZE,
      bundleKb,
      nodeOptions: NODE_OPTIONS,
      rounds,
      smallCopies,
      typeStripped,
      copyMiBPerS: median(copies.map((x) => x.mibPerS)),
      rawMiBPerS: median(rounds.map((x) => x.raw.mibPerS)),
      rawPutMiBPerS: median(rounds.map((x) => x.rawPut.mibPerS)),
      // Paired per round: the machine's state (other processes, caches) drifts more between rounds than within one.
      ratio: round(median(rounds.map((x) => x.copy.mibPerS / x.raw.mibPerS))),
      peakRssSmallMb,
      peakRssLargeMb,
      rssRatio: round(median(copies.map((x) => x.peakRssMb)) / median(smallCopies.map((x) => x.peakRssMb))),
    };
  } finally {
    await s3.close();
    await storage.stop();
  }
}

console.log(JSON.stringify(await orchestrate()));
