/**
 * The client data export's target (issue 5: 1 M clients at ≥ 50 k clients/s with flat memory), measured in one run
 * (`node bench/client-export.ts`, run by bench/run.ts; prints one JSON line, `ClientExportResult`).
 * Processes: the emulator with 1 M clients runs in a child of its own (`… emulator N`, generation takes ~10 s);
 * s3rver runs in this process; every measurement runs in a fresh child (`… measure <what> <product> …`):
 * - `job`: the archive job's client data step as configured by default (src/archive/client-data.ts
 *   `archiveClientData`: the `exportClientPropertyList` CSV → NDJSON → gzip → spool file → the archive store) for the
 *   10 % product (100 k clients) and the first product (1 M), ROUNDS times each, taking turns, so peak RSS can be
 *   compared across a 10× difference;
 * - `jobPages`: the same step reading the paged client property list (`clientPropertyList`) instead (the job
 *   before the export became its source), once per product;
 * - `pages`: that source alone, `client.allClients` walked to the end without writing anything;
 * - `export`: the export operation `exportClientPropertyList` alone (one streamed CSV) read to the end;
 * - `upload`: the archive store's upload alone of a file the job stored (its last step), once per product size.
 * `pages` and `export` show which side bounds the job, `upload` what the last step adds to its memory. The password is random per run and reaches the children by
 * environment, never through a command line or their output.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmulatorOptions } from '../emulator/index.ts';
import { S3ArchiveStore, s3ClientFor } from '../src/adapters/aws/s3-archive-store.ts';
import { archiveClientData, clientDataFileName } from '../src/archive/client-data.ts';
import { ReportingClient } from '../src/client/index.ts';
import { DEFAULT_CLIENT_PROPERTIES } from '../src/config/schema.ts';
import { fileSource } from '../src/core/file-source.ts';
import { systemClock } from '../src/ports/clock.ts';
import type { Logger } from '../src/ports/logger.ts';
import type { ClientExportResult, ExportRun, UploadRun } from './archive-results.ts';
import {
  benchScript,
  exitWithParent,
  median,
  peakRssMb,
  round,
  runChild,
  startBenchS3,
  startPeer,
} from './processes.ts';

const CLIENTS = 1_000_000;
/** Processes per product for the job: peak RSS varies with when V8 happens to collect. */
const ROUNDS = 5;
const BUCKET = 'pulse-bench';
const TODAY = '2026-11-20';
/** The config default of `archive.clientProperties`. */
const PROPERTIES: [string, ...string[]] = [...DEFAULT_CLIENT_PROPERTIES];
const PASSWORD_ENV = 'PULSE_BENCH_EMULATOR_PASSWORD';
const USER = 'bench@example.com';

type What = ExportRun['what'];

interface EmulatorInfo {
  baseUrl: string;
  origin: string;
  startupMs: number;
  products: { productId: string; clients: number }[];
}

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function serveEmulator(clients: number): Promise<void> {
  const opts: EmulatorOptions = { clients, seed: 7, today: TODAY, user: USER, password: process.env[PASSWORD_ENV]! };
  const t0 = performance.now();
  // Loaded only in the emulator's process: the measuring children import this module too.
  const { startEmulator } = await import('../emulator/index.ts');
  const emu = await startEmulator(opts);
  const info: EmulatorInfo = {
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    startupMs: Math.round(performance.now() - t0),
    products: emu.products.map((p) => ({ productId: p.productId, clients: p.clients })),
  };
  process.on('SIGTERM', () => void emu.close().then(() => process.exit(0)));
  exitWithParent();
  console.log(JSON.stringify(info));
}

/** Counts the data rows of a CSV stream (CRLF-terminated rows; cells in this export never contain line breaks). */
async function countCsvRows(stream: ReadableStream<Uint8Array>): Promise<number> {
  let lines = 0;
  for await (const chunk of stream) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  return lines - 1; // the header row
}

async function measure(what: What, productId: string, baseUrl: string, origin: string, endpoint: string) {
  const client = new ReportingClient({
    baseUrl,
    origin,
    credentials: { userName: USER, password: process.env[PASSWORD_ENV]! },
  });
  const s3 = s3ClientFor({ endpoint });
  const store = new S3ArchiveStore({ client: s3, bucket: BUCKET });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let lastByteAt = t0;
  let bytes = 0;
  let startRssMb = 0;
  let spooledPeakRssMb = 0;
  let key = '';
  const clients = await client.withSession(async (c): Promise<number> => {
    if (what === 'pages') {
      let n = 0;
      for await (const _ of c.allClients(productId, { properties: PROPERTIES })) n++;
      return n;
    }
    if (what === 'export') {
      return countCsvRows((await c.exportClientPropertyList(productId, { properties: PROPERTIES })).stream);
    }
    const fileName = clientDataFileName(productId, TODAY);
    key = `bench/${what}/${randomBytes(4).toString('hex')}/${fileName}`;
    const source = what === 'jobPages' ? 'pages' : 'export';
    const task = { productId, fileName, fileDate: TODAY, key, properties: PROPERTIES, source } as const;
    // Called for every gzip chunk written to the spool file: the peak up to the last one is the spooling's.
    const onBytes = (n: number) => {
      bytes += n;
      lastByteAt = performance.now();
      spooledPeakRssMb = peakRssMb();
    };
    startRssMb = peakRssMb();
    const out = await archiveClientData(task, { client: c, store, clock: systemClock, logger: quiet, onBytes });
    if (out.outcome !== 'archived') throw new Error(`client data not archived: ${JSON.stringify(out)}`);
    return Number((await store.head(key))?.metadata['client-count']);
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  s3.destroy();
  const heapTotalMb = Math.round(process.memoryUsage().heapTotal / 2 ** 20);
  (globalThis as { gc?: () => void }).gc?.(); // the child runs with --expose-gc
  const run: ExportRun = {
    what,
    productId,
    clients,
    ms: Math.round(ms),
    clientsPerS: Math.round(clients / (ms / 1000)),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMb: peakRssMb(),
    heapTotalMb,
    liveHeapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  };
  if (what === 'job' || what === 'jobPages')
    Object.assign(run, { bytes, spooledMs: Math.round(lastByteAt - t0), startRssMb, spooledPeakRssMb, key });
  return run;
}

/** The archive store's upload of `file` alone (what the job does after spooling), in a process loaded as the job's. */
async function measureUpload(file: string, endpoint: string): Promise<UploadRun> {
  const s3 = s3ClientFor({ endpoint });
  const store = new S3ArchiveStore({ client: s3, bucket: BUCKET });
  const bytes = (await stat(file)).size;
  const startRssMb = peakRssMb();
  const t0 = performance.now();
  // As the job uploads its spool file (client-data.ts).
  await using handle = await open(file);
  await store.put(`bench/upload/${randomBytes(4).toString('hex')}`, fileSource(handle), {
    contentType: 'application/gzip',
    maxPartsInFlight: 1,
  });
  const ms = Math.round(performance.now() - t0);
  s3.destroy();
  return { bytes, ms, startRssMb, peakRssMb: peakRssMb() };
}

/** Copies the object the job stored at `key` into a file for measureUpload. */
async function saveObject(endpoint: string, key: string, file: string): Promise<void> {
  const s3 = s3ClientFor({ endpoint });
  const body = await new S3ArchiveStore({ client: s3, bucket: BUCKET }).get(key);
  s3.destroy();
  if (!body) throw new Error(`no object ${key}`);
  await writeFile(file, body);
}

async function orchestrate(): Promise<ClientExportResult> {
  process.env[PASSWORD_ENV] = randomBytes(18).toString('base64url');
  const emu = await startPeer<EmulatorInfo>(benchScript('client-export'), ['emulator', CLIENTS]);
  const s3 = await startBenchS3(BUCKET);
  const dir = await mkdtemp(join(tmpdir(), 'pulse-bench-clients-'));
  try {
    const { baseUrl, origin, products } = emu.info;
    const largest = products[0]!;
    const smallest = products.reduce((a, b) => (b.clients < a.clients ? b : a));
    const run = async (what: What, product: { productId: string; clients: number }) => {
      const args = ['measure', what, product.productId, baseUrl, origin, s3.endpoint];
      const r = await runChild<ExportRun>(benchScript('client-export'), args, ['--expose-gc']);
      if (r.clients !== product.clients) throw new Error(`${what}: ${r.clients} of ${product.clients} clients`);
      process.stderr.write(`  ${what} ${r.clients} clients: ${r.clientsPerS}/s, peak RSS ${r.peakRssMb} MB\n`);
      return r;
    };
    const small: ExportRun[] = [];
    const large: ExportRun[] = [];
    for (let turn = 0; turn < ROUNDS; turn++) {
      // Taking turns at going first, so neither size always meets the machine in the same state.
      if (turn % 2 === 0) small.push(await run('job', smallest));
      large.push(await run('job', largest));
      if (turn % 2 === 1) small.push(await run('job', smallest));
    }
    const upload = async (job: ExportRun) => {
      const file = join(dir, `${job.productId}.ndjson.gz`);
      await saveObject(s3.endpoint, job.key!, file);
      const r = await runChild<UploadRun>(benchScript('client-export'), ['upload', file, s3.endpoint]);
      process.stderr.write(`  upload of ${r.bytes} B alone: peak RSS ${r.peakRssMb} MB (${r.startRssMb} MB before)\n`);
      return r;
    };
    const uploadSmall = await upload(small[0]!);
    const uploadLarge = await upload(large[0]!);
    const pagesSmall = await run('jobPages', smallest);
    const pagesLarge = await run('jobPages', largest);
    const pages = await run('pages', largest);
    const exportStream = await run('export', largest);
    const peak = (rs: ExportRun[]) => median(rs.map((r) => r.peakRssMb));
    const spooledPeak = (rs: ExportRun[]) => median(rs.map((r) => r.spooledPeakRssMb ?? r.peakRssMb));
    return {
      clients: largest.clients,
      properties: PROPERTIES,
      emulatorStartupMs: emu.info.startupMs,
      small,
      large,
      uploadSmall,
      uploadLarge,
      pagesSmall,
      pagesLarge,
      pages,
      exportStream,
      clientsPerS: median(large.map((r) => r.clientsPerS)),
      peakRssSmallMb: peak(small),
      peakRssLargeMb: peak(large),
      rssRatio: round(peak(large) / peak(small)),
      spooledRssRatio: round(spooledPeak(large) / spooledPeak(small)),
      pagesRssRatio: round(pagesLarge.peakRssMb / pagesSmall.peakRssMb),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
    await s3.close();
    await emu.stop();
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === 'emulator') await serveEmulator(Number(args[0]));
else if (command === 'upload') console.log(JSON.stringify(await measureUpload(args[0]!, args[1]!)));
else if (command === 'measure') {
  const [what, productId, baseUrl, origin, endpoint] = args as [What, string, string, string, string];
  console.log(JSON.stringify(await measure(what, productId, baseUrl, origin, endpoint)));
} else console.log(JSON.stringify(await orchestrate()));
