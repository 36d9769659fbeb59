/**
 * The license sync's target (issue 11: a 100,000-row CSV at ≥ 20,000 rows/s end to end against the emulator, and
 * its peak RSS), measured in one run (`node bench/license-sync.ts`, run by bench/run.ts; prints one JSON line,
 * `LicenseSyncResult`). The emulator runs in a child of its own (`… emulator`); every sync runs in a fresh child
 * (`… measure <what> <file> …`) so its peak RSS is its own: ROUNDS inserts of new keys, each followed by a rerun of
 * the same file (every row unchanged).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReportingClient } from '../src/client/index.ts';
import { runLicenseSync } from '../src/licenses/sync/run-sync.ts';
import { resultWriter } from '../src/licenses/sync/sync-result-file.ts';
import type { Logger } from '../src/ports/logger.ts';
import type { LicenseSyncResult, SyncRun } from './license-sync-results.ts';
import { benchScript, exitWithParent, peakRssMb, runChild, startPeer } from './processes.ts';

const ROWS = 100_000;
const ROUNDS = 3;
/** The example config's `service.concurrency`. */
const CONCURRENCY = 6;
const PASSWORD_ENV = 'PULSE_BENCH_EMULATOR_PASSWORD';
const USER = 'bench@example.com';

interface EmulatorInfo {
  baseUrl: string;
  origin: string;
  productId: string;
  startupMs: number;
}

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function serveEmulator(): Promise<void> {
  const t0 = performance.now();
  const { startEmulator } = await import('../emulator/index.ts');
  const emu = await startEmulator({ clients: 20_000, seed: 7, user: USER, password: process.env[PASSWORD_ENV]! });
  const info: EmulatorInfo = {
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    productId: emu.products[0]!.productId,
    startupMs: Math.round(performance.now() - t0),
  };
  process.on('SIGTERM', () => void emu.close().then(() => process.exit(0)));
  exitWithParent();
  console.log(JSON.stringify(info));
}

/** A CSV of `rows` keys named after `round`, every column set. */
function csvOf(round: number): string {
  const lines = ['licenseKey,licenseType,activated,allowed,blocked,expired,expiryDate,quota'];
  const types = ['purchased', 'trial', 'subscription'];
  for (let i = 0; i < ROWS; i++) {
    const key = `BENCH-${round}-${i.toString(36).toUpperCase().padStart(6, '0')}`;
    lines.push(
      `${key},${types[i % 3]},true,${i % 7 !== 0},${i % 11 === 0},false,2027-${String(1 + (i % 12)).padStart(2, '0')}-15,${i % 50}`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function measure(what: SyncRun['what'], file: string, info: EmulatorInfo): Promise<SyncRun> {
  const client = new ReportingClient({
    baseUrl: info.baseUrl,
    origin: info.origin,
    credentials: { userName: USER, password: process.env[PASSWORD_ENV]! },
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const writer = resultWriter(createWriteStream(`${file}.${what}.result.csv`));
  const result = await client.withSession((c) =>
    runLicenseSync(
      createReadStream(file, { highWaterMark: 256 * 1024 }),
      { client: c, logger: quiet },
      {
        productId: info.productId,
        concurrency: CONCURRENCY,
        write: (rows) => writer.write(rows),
      },
    ),
  );
  await writer.end();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const expected = what === 'insert' ? result.counts.inserted : result.counts.unchanged;
  if (result.counts.rows !== ROWS || expected !== ROWS) throw new Error(`${what}: ${JSON.stringify(result.counts)}`);
  return {
    what,
    rows: result.counts.rows,
    ms: Math.round(ms),
    rowsPerS: Math.round(ROWS / (ms / 1000)),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    peakRssMb: peakRssMb(),
    batches: result.counts.batches,
  };
}

async function orchestrate(): Promise<LicenseSyncResult> {
  process.env[PASSWORD_ENV] = randomBytes(18).toString('base64url');
  const emu = await startPeer<EmulatorInfo>(benchScript('license-sync'), ['emulator']);
  const dir = await mkdtemp(join(tmpdir(), 'pulse-bench-lic-sync-'));
  try {
    const runs: SyncRun[] = [];
    let csvBytes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const file = join(dir, `round-${round}.csv`);
      await writeFile(file, csvOf(round));
      csvBytes = (await stat(file)).size;
      for (const what of ['insert', 'rerun'] as const) {
        const r = await runChild<SyncRun>(benchScript('license-sync'), [
          'measure',
          what,
          file,
          JSON.stringify(emu.info),
        ]);
        process.stderr.write(`  ${what} ${r.rows} rows: ${r.rowsPerS} rows/s, peak RSS ${r.peakRssMb} MB\n`);
        runs.push(r);
      }
    }
    return { rows: ROWS, csvBytes, concurrency: CONCURRENCY, emulatorStartupMs: emu.info.startupMs, runs };
  } finally {
    await emu.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'emulator') await serveEmulator();
else if (mode === 'measure')
  console.log(
    JSON.stringify(await measure(args[0] as SyncRun['what'], args[1]!, JSON.parse(args[2]!) as EmulatorInfo)),
  );
else console.log(JSON.stringify(await orchestrate()));
