/**
 * The export archive's part of bench/RESULTS.md: what bench/archive-copy.ts and bench/client-export.ts print, their
 * rows, and the notes on how each figure was measured and what decides it.
 */
import type { Row } from './results.ts';

/** One transfer of bench/archive-copy.ts, in a fresh process. */
export interface Transfer {
  mode: 'copy' | 'raw-multipart' | 'raw-put';
  bytes: number;
  ms: number;
  mibPerS: number;
  /** Of `ms`, the time CompleteMultipartUpload took (s3rver joins the parts into the object then). */
  completeMs: number;
  /** CPU time of the transferring process (user + system). */
  cpuMs: number;
  /** Resident memory once everything is loaded, before the first byte; and the peak of the whole process. */
  startRssMb: number;
  peakRssMb: number;
}

/** bench/archive-copy.ts */
export interface ArchiveCopyResult {
  fileMiB: number;
  smallFileMiB: number;
  partSize: number;
  queueSize: number;
  /** Size of the transfer bundle (minified JS) every measuring child runs, and the Node options it runs with. */
  bundleKb: number;
  nodeOptions: string[];
  rounds: { copy: Transfer; raw: Transfer; rawPut: Transfer }[];
  smallCopies: Transfer[];
  /** One copy of the small file by the type-stripped .ts instead of the bundle. */
  typeStripped: Transfer;
  copyMiBPerS: number;
  rawMiBPerS: number;
  rawPutMiBPerS: number;
  ratio: number;
  /** Highest peak RSS of the small and of the large copies. */
  peakRssSmallMb: number;
  peakRssLargeMb: number;
  /** Median peak RSS of the large copies over that of the small ones (as many processes each). */
  rssRatio: number;
}

/** One measurement of bench/client-export.ts, in a fresh process. */
export interface ExportRun {
  /**
   * job: the client data step from the export `exportClientPropertyList`; jobPages: from the paged list
   * `clientPropertyList`; pages, export: a source alone.
   */
  what: 'job' | 'jobPages' | 'pages' | 'export';
  productId: string;
  clients: number;
  ms: number;
  clientsPerS: number;
  /** CPU time of the measuring process (user + system): near `ms` when it, not the emulator, is the limit. */
  cpuMs: number;
  peakRssMb: number;
  /** The heap V8 had grown to at the end, and what of it was still live after a full collection. */
  heapTotalMb: number;
  liveHeapMb: number;
  /** job: the gzip NDJSON size, and when its last byte reached the spool file (the rest is the upload). */
  bytes?: number;
  spooledMs?: number;
  /** job: peak RSS once signed in, before the step; and the peak up to the last byte spooled (before the upload). */
  startRssMb?: number;
  spooledPeakRssMb?: number;
  /** job: where the file was stored. */
  key?: string;
}

/** bench/client-export.ts `upload`: the archive store's upload of a stored client data file alone. */
export interface UploadRun {
  bytes: number;
  ms: number;
  /** Peak RSS with everything loaded, before the upload; and at the end. */
  startRssMb: number;
  peakRssMb: number;
}

/** bench/client-export.ts */
export interface ClientExportResult {
  clients: number;
  properties: string[];
  emulatorStartupMs: number;
  /** The job (export source), one fresh process each: the 100 k product and the 1 M product. */
  small: ExportRun[];
  large: ExportRun[];
  /** The upload alone of the files of `small[0]` and `large[0]`. */
  uploadSmall: UploadRun;
  uploadLarge: UploadRun;
  /** The job from the paged list, once per product. */
  pagesSmall: ExportRun;
  pagesLarge: ExportRun;
  /** The sources alone, 1 M clients. */
  pages: ExportRun;
  exportStream: ExportRun;
  /** Medians of `large` and `small`. */
  clientsPerS: number;
  peakRssSmallMb: number;
  peakRssLargeMb: number;
  rssRatio: number;
  /** The same ratio of the peaks up to the end of spooling, and of the job from the paged list. */
  spooledRssRatio: number;
  pagesRssRatio: number;
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const list = (xs: number[], unit: string) => `${xs.join(', ')} ${unit}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const size = (mib: number) => (mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`);
const count = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1000}k`);

export function archiveRows(a: ArchiveCopyResult, c: ClientExportResult): Row[] {
  return [...archiveCopyRows(a), ...clientExportRows(c)];
}

/** The copy's three rows (bench/archive-copy.ts). */
export function archiveCopyRows(a: ArchiveCopyResult): Row[] {
  const copies = a.rounds.map((r) => r.copy);
  const raws = a.rounds.map((r) => r.raw);
  const perRound = a.rounds.map((r) => (r.copy.mibPerS / r.raw.mibPerS).toFixed(2)).join(', ');
  const speeds = (ts: Transfer[]) =>
    list(
      ts.map((t) => t.mibPerS),
      'MiB/s',
    );
  const peaks = (ts: Transfer[]) =>
    list(
      ts.map((t) => t.peakRssMb),
      'MB',
    );
  const [large, small] = [size(a.fileMiB), size(a.smallFileMiB)];
  return [
    {
      metric: `archive copy, ${large} ZIP storage → s3rver: throughput / raw stream pipe`,
      value: a.ratio,
      unit: '×',
      target: 0.9,
      atLeast: true,
      detail: `median of ${a.rounds.length} rounds' copy / raw (${perRound}); copyFile ${speeds(copies)}, raw multipart ${speeds(raws)}; raw single PUT ${a.rawPutMiBPerS} MiB/s`,
    },
    {
      metric: `archive copy, peak RSS of the copying process, ${large} file`,
      value: a.peakRssLargeMb,
      unit: 'MB',
      target: 160,
      detail: `highest of ${copies.length} processes (${peaks(copies)}); ${median(copies.map((t) => t.startRssMb))} MB before the first byte (bundled like the Lambda; ${a.typeStripped.startRssMb} MB as type-stripped .ts); raw multipart pipe from the same bundle ${peaks(raws)}`,
    },
    {
      metric: `archive copy, peak RSS ${large} / ${small} file (flat)`,
      value: a.rssRatio,
      unit: '×',
      target: 1.1,
      detail: `medians of ${copies.length} processes each: ${median(copies.map((t) => t.peakRssMb))} MB against ${median(a.smallCopies.map((t) => t.peakRssMb))} MB (${small}: ${peaks(a.smallCopies)}; highest ${a.peakRssLargeMb} against ${a.peakRssSmallMb} MB)`,
    },
  ];
}

function clientExportRows(c: ClientExportResult): Row[] {
  const [large, small] = [count(c.clients), count(c.small[0]!.clients)];
  const peaks = (rs: ExportRun[]) =>
    list(
      rs.map((r) => r.peakRssMb),
      'MB',
    );
  return [
    {
      metric: `client data export, ${large} clients → gzip NDJSON in s3rver`,
      value: c.clientsPerS,
      unit: 'clients/s',
      target: 50_000,
      atLeast: true,
      detail: `archiveClientData from the export \`exportClientPropertyList\`, median of ${c.large.length} processes (${list(
        c.large.map((r) => r.clientsPerS),
        'clients/s',
      )}; ${median(c.small.map((r) => r.clientsPerS))}/s at ${small}); from the paged list \`clientPropertyList\` ${c.pagesLarge.clientsPerS}/s; the sources alone: pages ${c.pages.clientsPerS}/s, export stream ${c.exportStream.clientsPerS}/s`,
    },
    {
      metric: `client data export, peak RSS ${large} / ${small} clients (flat)`,
      value: c.rssRatio,
      unit: '×',
      target: 1.15,
      detail: `${c.peakRssLargeMb} MB against ${c.peakRssSmallMb} MB, medians of ${c.large.length} processes each (${large}: ${peaks(c.large)}; ${small}: ${peaks(c.small)}); up to the end of spooling ${c.spooledRssRatio}×; from the paged list \`clientPropertyList\` ${c.pagesRssRatio}× (${c.pagesLarge.peakRssMb} MB against ${c.pagesSmall.peakRssMb} MB)`,
    },
  ];
}

export function archiveNotes(a: ArchiveCopyResult, c: ClientExportResult): string {
  return `## Export archive

${archiveCopyNotes(a)}${clientExportNotes(c)}`;
}

/** How the copy's figures were measured and what decides them: the bullets of "Export archive" before client data. */
export function archiveCopyNotes(a: ArchiveCopyResult): string {
  const copies = a.rounds.map((r) => r.copy);
  const raws = a.rounds.map((r) => r.raw);
  const cpuPerGiB = (ts: Transfer[]) => s(median(ts.map((t) => (t.cpuMs * 1024) / (t.bytes / 2 ** 20))));
  const complete = median([...copies, ...raws].map((t) => t.completeMs));
  const startRss = median(copies.map((t) => t.startRssMb));
  const rawPeaks = raws.map((t) => t.peakRssMb);
  const [large, small] = [size(a.fileMiB), size(a.smallFileMiB)];
  const part = a.partSize / 2 ** 20;
  return `- **Copy** (bench/archive-copy.ts): the emulator's storage listener (\`startStorageServer\`,
  emulator/files/storage-server.ts) runs in a child process of its own (bench/zip-storage.ts) and serves
  deterministic ZIP files of ${large} and ${small}, built once in its memory: one stored (uncompressed) CSV entry
  of repeated rows with its CRC-32, so each file is exactly that size and passes the ZIP check. s3rver runs in the
  bench's main process on a directory in /dev/shm (no disk write-back in the timings). **Copy** = the job's copy
  step, \`copyFile\` (src/archive/copy/copy-file.ts), with the real \`S3ArchiveStore\` (${part} MiB parts, ${a.queueSize} in flight: its
  defaults) and the real \`ReportingClient.download\`; the one stand-in is the download-URL operation, answered with
  the URL the bench's listener signed (the emulator serves its own generated files, not a ${large} one). Each copy
  must come back \`archived\` with the file's SHA-256. **Raw** = \`fetch\` of the same URL streamed into plain
  UploadPart requests of the same part size and concurrency, without checksums or hashing (bench/raw-transfer.ts).
  Each of ${a.rounds.length} rounds runs both, taking turns at going first; the ratio is the median of the rounds' copy / raw
  (medians alone: copy ${a.copyMiBPerS} MiB/s, raw ${a.rawMiBPerS} MiB/s).
- Processes: every transfer runs in a fresh process from one esbuild bundle (${a.bundleKb} KB) of bench/archive-transfer.ts,
  built with the options the copier Lambda is bundled with (bench/lambda-bundle.ts: ESM for Node 24, minified,
  source map, the AWS SDK left external and loaded from node_modules as the Lambda loads the runtime's) and started
  with the Lambda's NODE_OPTIONS (\`${a.nodeOptions.join(' ')}\`). The raw pipes run from the same bundle, so they load
  the same code as the copy (the client with zod and ky, the AWS SDK). No other flags: V8's heap sizes are Node's
  defaults on this machine, not what the Lambda runtime derives from the function's memory.
- Where the time goes: s3rver joins the parts into the object during CompleteMultipartUpload (${s(complete)} s of each
  ${large} transfer, median), which is why one streamed PutObject (${a.rawPutMiBPerS} MiB/s) beats both multipart uploads.
  The copying process spends ${cpuPerGiB(copies)} s of CPU per GiB against ${cpuPerGiB(raws)} s for the raw pipe, whose one hash is
  the SigV4 payload hash of each part. The copy hashes each byte twice with SHA-256: once in the download tap
  (the file's hash) and once per part, a hash that goes out both as ChecksumSHA256 and as the signed payload hash
  (\`x-amz-content-sha256\`), so the signer does not hash the part a third time; it also computes the ZIP check's
  CRC-32 over the entry's data. The download is a bare HTTP/1.1 GET over a connection of its own
  (src/client/http-get.ts): the socket reads into one 64 KiB buffer (\`onread\`), and the multipart upload reads the
  body through the tap (src/archive/copy/download-tap.ts: hash, count, ZIP check) straight into its part buffers,
  which are reused once their part is uploaded; nothing is allocated per chunk, which is also why the copy needs
  less CPU than the raw pipe through \`fetch\`. The storage listener, s3rver and the copier share this machine's two
  cores, so CPU the copier spends is taken from the servers.
- Memory: the bundled copier holds ${startRss} MB before the first byte (the same copy run as type-stripped .ts:
  ${a.typeStripped.startRssMb} MB), mostly Node itself and the AWS SDK. Streaming adds at most ${a.queueSize} part buffers of ${part} MiB, one
  64 KiB read buffer and the young generation of V8's heap (small objects per read: promises, views). The raw pipe,
  from the same bundle with the same parts in flight, peaks at ${list(rawPeaks, 'MB')}: \`fetch\` (like node:http) hands
  over every socket read as a new 64 KiB Buffer, freed only when V8 next collects, which it does when enough such
  external memory has piled up; that pile, and what the allocator keeps of it, is the difference (a bare 1 GiB
  download with hashing, nothing else: 143 MB through \`fetch\`, 60 MB through one reused read buffer). Highest peaks
  of the copy: ${a.peakRssSmallMb} MB for ${small}, ${a.peakRssLargeMb} MB for ${large}; "flat" compares the medians of as many processes
  per size, since the highest of more processes is higher by chance alone.
- Deflated exports: the bench's files are stored, so their ZIP check is a CRC-32 pass. A real export deflates its
  CSV, and the check inflates it through Node's zlib stream, which hands out its output in new 256 KiB Buffers;
  collected when V8's external-memory trigger fires, they add a bounded pile, whatever the file's size (measured
  apart: 2 GiB inflated from 488 MB in one process, peak RSS 66 → 136 MB). zlib has no public way to inflate into a
  reused buffer; pako's low-level API does (72 MB for the same 2 GiB) but inflates at 258 MB/s on the main thread
  against zlib's 580 MB/s on the thread pool, which would halve the copy of a deflated file on this machine.
`;
}

function clientExportNotes(c: ClientExportResult): string {
  const [large, small] = [count(c.clients), count(c.small[0]!.clients)];
  const mid = (rs: ExportRun[], f: (r: ExportRun) => number | undefined) => median(rs.map((r) => f(r) ?? 0));
  const mb = (rs: ExportRun[], f: (r: ExportRun) => number | undefined) => `${mid(rs, f)} MB`;
  const busy = (r: ExportRun) => `${Math.round((r.cpuMs / r.ms) * 100)} %`;
  const heap = (r: ExportRun) =>
    `heap grown to ${r.heapTotalMb} MB, ${r.liveHeapMb} MB of it live after a full collection`;
  const fileMb = (r: ExportRun) => `${((r.bytes ?? 0) / 1e6).toFixed(1)} MB`;
  const up = (u: UploadRun) =>
    `${u.peakRssMb} MB (+${u.peakRssMb - u.startRssMb} MB over ${u.startRssMb} MB before it)`;
  const typical = c.large[0]!;
  return `- **Client data** (bench/client-export.ts): the emulator (seed 7; ${large} clients in the first product, 10 % of
  that in the third; start-up ${s(c.emulatorStartupMs)} s) runs in a child process, s3rver in the bench's main process, each
  measurement in a fresh process; ${c.large.length} processes per product for the job, taking turns at going first.
  \`archiveClientData\` (src/archive/client-data.ts) with the config's default properties reads the export
  operation \`exportClientPropertyList\`: one CSV stream, converted chunk by chunk into NDJSON typed as the client
  property list (\`clientPropertyList\`) types it (src/archive/client-csv.ts; numbers and booleans by the
  property catalogue, \`productProperties\`), gzipped into a spool file,
  then uploaded with its SHA-256; the client count in the stored metadata must equal the product's. Of ${s(mid(c.large, (r) => r.ms))} s for
  ${large} clients (median), ${s(mid(c.large, (r) => r.spooledMs))} s are the stream, the conversion and gzip, the rest the upload of ${fileMb(typical)}; the
  measuring process is busy ${busy(typical)} of the time, sharing the two cores with the emulator writing the CSV and
  s3rver. The sources alone: the export stream read to the end ${c.exportStream.clientsPerS} clients/s (busy ${busy(c.exportStream)}); the paged
  list \`clientPropertyList\` walked without writing ${c.pages.clientsPerS} clients/s (busy ${busy(c.pages)}, the rest waiting for the emulator's ${c.clients / 200}
  answers); the job from the paged list ${c.pagesLarge.clientsPerS} clients/s.
- Memory of the client data export (peak RSS, medians). Signed in and loaded, before the step, the process holds
  ${mb(c.large, (r) => r.startRssMb)}. Up to the last byte spooled it peaks at ${mb(c.small, (r) => r.spooledPeakRssMb)} for ${small} and ${mb(c.large, (r) => r.spooledPeakRssMb)} for ${large} (${c.spooledRssRatio}×):
  per client the converter makes a few short strings and writes the line into the chunk's output buffer at once,
  so hardly anything outlives a young-generation collection, and V8 grows the heap no further for ${large} clients than
  for ${small} (${small}: ${c.small[0]!.heapTotalMb} MB, ${large}: ${typical.heapTotalMb} MB; ${typical.liveHeapMb} MB of it live after a full collection).
  The upload then adds the archive store's memory: the spool file is read straight into the store's part buffers
  (\`fileSource\`, no chunk allocated per read), one part in flight (\`maxPartsInFlight: 1\`; the file is read at disk
  speed, so more in flight would buy little time for up to four parts of memory): a ${small} file (${fileMb(c.small[0]!)}) is one PutObject, a ${large} one
  (${fileMb(typical)}) a multipart upload of one part at a time. Uploaded alone, in a fresh process loaded the same way, the ${small} file
  peaks at ${up(c.uploadSmall)} and the ${large} file at ${up(c.uploadLarge)}. Whole step: ${c.peakRssSmallMb} → ${c.peakRssLargeMb} MB (${c.rssRatio}×).
  No V8 flags: the job's children run with \`--expose-gc\` only, to read the live heap after the measurement.
- Before, the job read the paged list \`clientPropertyList\` (still its source when no property is configured, since
  \`exportClientPropertyList\` needs one,
  and an option of the task, \`source: 'pages'\`): 200 clients per request, each page parsed and validated with zod,
  each record serialised again. It peaks at ${c.pagesSmall.peakRssMb} MB for ${small} and ${c.pagesLarge.peakRssMb} MB for ${large} (${c.pagesRssRatio}×; ${heap(c.pagesLarge)}):
  whatever is in flight when a collection comes survives it, and V8 grows the young generation and the old space
  under that allocation rate. The pages walked alone, without writing, are no flatter (${c.pages.peakRssMb} MB for ${large}): the
  cost is per request, in the client and fetch, which the job cannot change.
`;
}
