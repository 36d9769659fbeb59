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
  rounds: { copy: Transfer; raw: Transfer; rawPut: Transfer }[];
  smallCopies: Transfer[];
  copyMiBPerS: number;
  rawMiBPerS: number;
  rawPutMiBPerS: number;
  ratio: number;
  peakRssSmallMb: number;
  peakRssLargeMb: number;
  rssRatio: number;
}

/** One measurement of bench/client-export.ts, in a fresh process. */
export interface ExportRun {
  what: 'job' | 'pages' | 'export';
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
}

/** bench/client-export.ts */
export interface ClientExportResult {
  clients: number;
  properties: string[];
  emulatorStartupMs: number;
  small: ExportRun;
  large: ExportRun;
  pages: ExportRun;
  exportStream: ExportRun;
  rssRatio: number;
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const list = (xs: number[], unit: string) => `${xs.join(', ')} ${unit}`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const size = (mib: number) => (mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`);
const count = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1000}k`);

export function archiveRows(a: ArchiveCopyResult, c: ClientExportResult): Row[] {
  const copies = a.rounds.map((r) => r.copy);
  const raws = a.rounds.map((r) => r.raw);
  const perRound = a.rounds.map((r) => (r.copy.mibPerS / r.raw.mibPerS).toFixed(2)).join(', ');
  const copySpeeds = list(
    copies.map((t) => t.mibPerS),
    'MiB/s',
  );
  const rawSpeeds = list(
    raws.map((t) => t.mibPerS),
    'MiB/s',
  );
  const [large, small] = [size(a.fileMiB), size(a.smallFileMiB)];
  return [
    {
      metric: `archive copy, ${large} ZIP storage → s3rver: throughput / raw stream pipe`,
      value: a.ratio,
      unit: '×',
      target: 0.9,
      atLeast: true,
      detail: `median of ${a.rounds.length} rounds' copy / raw (${perRound}); copyFile ${copySpeeds}, raw multipart ${rawSpeeds}; raw single PUT ${a.rawPutMiBPerS} MiB/s`,
    },
    {
      metric: `archive copy, peak RSS of the copying process, ${large} file`,
      value: a.peakRssLargeMb,
      unit: 'MB',
      target: 160,
      detail: `highest of ${copies.length} processes (${list(
        copies.map((t) => t.peakRssMb),
        'MB',
      )}); ${median(copies.map((t) => t.startRssMb))} MB before the first byte; raw multipart pipe ${list(
        raws.map((t) => t.peakRssMb),
        'MB',
      )}`,
    },
    {
      metric: `archive copy, peak RSS ${large} / ${small} file (flat)`,
      value: a.rssRatio,
      unit: '×',
      target: 1.1,
      detail: `${a.peakRssLargeMb} MB against ${a.peakRssSmallMb} MB, the highest of ${a.smallCopies.length} processes each (${small}: ${list(
        a.smallCopies.map((t) => t.peakRssMb),
        'MB',
      )})`,
    },
    {
      metric: `client data export, ${count(c.large.clients)} clients → gzip NDJSON in s3rver`,
      value: c.large.clientsPerS,
      unit: 'clients/s',
      target: 50_000,
      atLeast: true,
      detail: `archiveClientData over the paged list [30] in ${s(c.large.ms)} s (${c.small.clientsPerS}/s at ${count(c.small.clients)}); the source alone: pages ${c.pages.clientsPerS}/s, export stream [31] ${c.exportStream.clientsPerS}/s`,
    },
    {
      metric: `client data export, peak RSS ${count(c.large.clients)} / ${count(c.small.clients)} clients (flat)`,
      value: c.rssRatio,
      unit: '×',
      target: 1.1,
      detail: `${c.large.peakRssMb} MB against ${c.small.peakRssMb} MB; live heap after a full GC ${c.large.liveHeapMb} MB against ${c.small.liveHeapMb} MB; heap grown to ${c.large.heapTotalMb} MB against ${c.small.heapTotalMb} MB`,
    },
  ];
}

export function archiveNotes(a: ArchiveCopyResult, c: ClientExportResult): string {
  const copies = a.rounds.map((r) => r.copy);
  const raws = a.rounds.map((r) => r.raw);
  const cpuPerGiB = (ts: Transfer[]) => s(median(ts.map((t) => (t.cpuMs * 1024) / (t.bytes / 2 ** 20))));
  const complete = median([...copies, ...raws].map((t) => t.completeMs));
  const startRss = median(copies.map((t) => t.startRssMb));
  const rawPeak = Math.max(...raws.map((t) => t.peakRssMb));
  const [large, small] = [size(a.fileMiB), size(a.smallFileMiB)];
  const busy = (r: ExportRun) => `${Math.round((r.cpuMs / r.ms) * 100)} %`;
  const spooled = c.large.spooledMs ?? c.large.ms;
  return `## Export archive

- **Copy** (bench/archive-copy.ts): the emulator's storage listener (\`startStorageServer\`,
  emulator/files/storage-server.ts) runs in a child process of its own (bench/zip-storage.ts) and serves
  deterministic ZIP files of ${large} and ${small}, built once in its memory: one stored (uncompressed) CSV entry
  of repeated rows with its CRC-32, so each file is exactly that size and passes the ZIP check. s3rver runs in the
  bench's main process on a directory in /dev/shm (no disk write-back in the timings); every transfer runs in a
  fresh process. **Copy** = the job's copy step, \`copyFile\` (src/jobs/archive/copy-file.ts), with the real
  \`S3ArchiveStore\` (${a.partSize / 2 ** 20} MiB parts, ${a.queueSize} in flight: its defaults) and the real \`ReportingClient.download\`; the
  one stand-in is the download-URL operation, answered with the URL the bench's listener signed (the emulator
  serves its own generated files, not a ${large} one). Each copy must come back \`archived\` with the file's
  SHA-256. **Raw** = \`fetch\` of the same URL streamed into plain UploadPart requests of the same part size and
  concurrency, without checksums or hashing (bench/raw-transfer.ts). Each of ${a.rounds.length} rounds runs both, taking turns
  at going first; the ratio is the median of the rounds' copy / raw (medians alone: copy ${a.copyMiBPerS} MiB/s,
  raw ${a.rawMiBPerS} MiB/s).
- Where the time goes: s3rver joins the parts into the object during CompleteMultipartUpload (${s(complete)} s of each
  ${large} transfer, median), which is why one streamed PutObject (${a.rawPutMiBPerS} MiB/s) beats both multipart uploads.
  The copying process spends ${cpuPerGiB(copies)} s of CPU per GiB against ${cpuPerGiB(raws)} s for the raw pipe: beyond the SigV4
  payload hash both pay on every part, the copy hashes the body with SHA-256 in the download tap and again per
  part for ChecksumSHA256, computes the ZIP check's CRC-32, and passes each chunk through two more streams. The
  storage listener, s3rver and the copier share this machine's two cores, so CPU the copier spends is taken from
  the servers.
- Memory: the copying process holds ${startRss} MB before the first byte (Node 24 stripping types, the AWS SDK, the
  client with zod and ky). Streaming adds the parts in flight and filling (${a.queueSize + 1} × ${a.partSize / 2 ** 20} MiB) and the download's
  chunks, which are freed only when V8 next collects; the raw pipe, loaded the same way and holding the same
  parts, peaks at ${rawPeak} MB. Highest peaks of the copy: ${a.peakRssSmallMb} MB for ${small}, ${a.peakRssLargeMb} MB for ${large}.
- **Client data** (bench/client-export.ts): the emulator (seed 7; ${count(c.clients)} clients in the first product, 10 % of
  that in the third; start-up ${s(c.emulatorStartupMs)} s) runs in a child process, s3rver in the bench's main process, each
  measurement in a fresh process. \`archiveClientData\` (src/jobs/archive/client-data.ts) walks the paged client
  property list [30] (\`client.allClients\`, 200 clients a page) with the config's default properties, writes
  gzip NDJSON to a spool file, then uploads it with its SHA-256; the client count in the stored metadata must
  equal the product's. Of ${s(c.large.ms)} s for ${count(c.large.clients)} clients, ${s(spooled)} s are pages, JSON and gzip, the rest the upload
  of ${((c.large.bytes ?? 0) / 1e6).toFixed(1)} MB; the measuring process is busy ${busy(c.large)} of the time. The job uses the paged list. The
  source alone, to show which side bounds the job: the pages walked without writing ${c.pages.clientsPerS} clients/s
  (busy ${busy(c.pages)}, the rest waiting for the emulator); the export operation [31], one CSV stream read to the end,
  ${c.exportStream.clientsPerS} clients/s (busy ${busy(c.exportStream)}).
- Memory of the client data export: the live heap after a full collection at the end is ${c.small.liveHeapMb} MB for
  ${count(c.small.clients)} clients and ${c.large.liveHeapMb} MB for ${count(c.large.clients)}, while the heap V8 had grown to under the allocation rate of
  parsing, validating and serialising every record went from ${c.small.heapTotalMb} MB to ${c.large.heapTotalMb} MB; peak RSS follows the
  latter (${c.small.peakRssMb} → ${c.large.peakRssMb} MB). The export stream [31] peaks at ${c.exportStream.peakRssMb} MB for ${count(c.clients)} clients.
`;
}
