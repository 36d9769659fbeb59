/**
 * Reading a big license key registry (issue 11's bench): `node bench/license-registry.ts` (run by bench/run.ts) prints
 * one JSON line, `LicenseRegistryResult`. Processes:
 * - `… emulator <registryKeys>`: the emulator with that many registry keys (the `registryKeys` option), in a child
 *   of its own so its memory is not the consumer's; one per size, started before and stopped after its runs;
 * - `… measure <registryKeys> <baseUrl> <origin> <productId>`: a fresh consumer process per run, which reads the
 *   whole registry through `consumeRegistry` and reports wall time, keys/s and its peak RSS, then times single
 *   pages at the start and at the end of the registry (the emulator answers both in O(limit)).
 * Sizes take turns, ROUNDS runs each; the figures are medians and the RSS ratio compares 1M keys against 100k.
 * The password is random per run and reaches the children by environment, never by command line or output.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { reportingClientFor } from '../src/app/service-client.ts';
import type { ReportingClient } from '../src/client/index.ts';
import { parseConfig } from '../src/config/load.ts';
import type { PulseConfig } from '../src/config/schema.ts';
import { streamRegistry } from '../src/jobs/licenses/registry-stream.ts';
import type { Logger } from '../src/ports/logger.ts';
import { benchScript, exitWithParent, median, type Peer, peakRssMb, round, runChild, startPeer } from './processes.ts';

const SIZES = [100_000, 1_000_000] as const;
const ROUNDS = 3;
const PAGE_PROBES = 15;
const TODAY = '2026-11-20';
const USER = 'bench@example.com';
const PASSWORD_ENV = 'PULSE_BENCH_EMULATOR_PASSWORD';
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

interface EmulatorInfo {
  baseUrl: string;
  origin: string;
  productId: string;
  pid: number;
  startupMs: number;
  rssAfterStartMb: number;
}

export interface RegistryRun {
  registryKeys: number;
  keys: number;
  ms: number;
  keysPerS: number;
  peakRssMb: number;
  /** RSS before the read, and the live heap (after a full GC) before and after it: what the read retains. */
  startRssMb: number;
  liveHeapStartMb: number;
  liveHeapEndMb: number;
  /** V8's young generation at the end of the read (it grows with the allocation rate, up to twice the semi-space). */
  newSpaceMb: number;
  /** Median round trip of one 1000-key page at startAt 0 and at the last page. */
  firstPageMs: number;
  lastPageMs: number;
}

export interface LicenseRegistrySize {
  registryKeys: number;
  /** Node flags of the consumer ([] = this machine's V8 defaults). */
  nodeArgs: string[];
  emulatorStartupMs: number;
  emulatorRssAfterStartMb: number;
  /** The emulator's peak RSS over all its runs (Linux VmHWM), or null elsewhere. */
  emulatorPeakRssMb: number | null;
  runs: RegistryRun[];
  ms: number;
  keysPerS: number;
  peakRssMb: number;
  firstPageMs: number;
  lastPageMs: number;
}

export interface LicenseRegistryResult {
  concurrency: number;
  /** Per size with the default flags, then per size with SMALL_YOUNG_GENERATION. */
  sizes: LicenseRegistrySize[];
  /** Median peak RSS of the consumer at 1M keys over that at 100k, default flags. */
  rssRatio: number;
  /** The same with SMALL_YOUNG_GENERATION. */
  rssRatioSmallYoung: number;
}

/**
 * V8 sizes its young generation from the memory limit it sees: 64 MB semi-spaces on a large machine (so up to 128 MB
 * of new space that a steady stream of short-lived pages fills), 16 MB at a 2–4 GB limit, 8 MB or less below. The
 * second set of runs uses 16 MB, what the consumer gets in a Lambda-sized process, to separate the read's own memory
 * from the young generation's growth.
 */
const SMALL_YOUNG_GENERATION = ['--max-semi-space-size=16'];

async function serveEmulator(registryKeys: number): Promise<void> {
  const t0 = performance.now();
  // Loaded only in the emulator's process: the measuring children import this module too.
  const { startEmulator } = await import('../emulator/index.ts');
  const emu = await startEmulator({
    clients: 5000,
    seed: 7,
    today: TODAY,
    registryKeys,
    user: USER,
    password: process.env[PASSWORD_ENV]!,
    maxSessionsPerUser: 100,
  });
  const info: EmulatorInfo = {
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    productId: emu.products[0]!.productId,
    pid: process.pid,
    startupMs: Math.round(performance.now() - t0),
    rssAfterStartMb: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
  process.on('SIGTERM', () => void emu.close().then(() => process.exit(0)));
  exitWithParent();
  console.log(JSON.stringify(info));
}

/** Peak RSS of another process (Linux), read while it still runs. */
function peakRssOf(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Math.round(Number(kb) / 1024);
  } catch {
    return null;
  }
}

/**
 * What reads the registry, as a license job would: the bare stream for now, evaluating every key as it streams in.
 * To bench the alerts job instead, replace the body with its call (src/jobs/licenses/run-alerts.ts
 * `runLicenseAlerts(config, ports, opts)`, with the ports built from `client`) and return its `keysScanned`.
 */
async function consumeRegistry(config: PulseConfig, client: ReportingClient, productId: string): Promise<number> {
  return client.withSession(async (c) => {
    let keys = 0;
    let expiringSoon = 0; // a stand-in for the per-key evaluation, so the records are read, not only counted
    for await (const page of streamRegistry(c, productId, { concurrency: config.service.concurrency })) {
      for (const key of page) {
        keys++;
        if (key.expiryDate !== null && key.expiryDate <= '2026-12-20') expiringSoon++;
      }
    }
    if (expiringSoon === 0) throw new Error('no key expiring soon: the records were not read');
    return keys;
  });
}

async function measure(registryKeys: number, baseUrl: string, origin: string, productId: string) {
  // Parsed like any pulse.config.json, so `service.concurrency` is the schema's default.
  const config = parseConfig({
    service: { baseUrl, origin, credentials: { source: 'env' } },
    products: [{ id: productId }],
    mail: { from: 'pulse@example.com' },
  });
  const credentials = () => ({ userName: USER, password: process.env[PASSWORD_ENV]! });
  const client = reportingClientFor(config.service, credentials, quiet);
  const gc = (globalThis as { gc?: () => void }).gc!; // the child runs with --expose-gc
  const liveHeapMb = () => {
    gc();
    return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  };
  const liveHeapStartMb = liveHeapMb();
  const startRssMb = peakRssMb();
  const t0 = performance.now();
  const keys = await consumeRegistry(config, client, productId);
  const ms = performance.now() - t0;
  const peak = peakRssMb(); // before the page probes below, which are not part of the read
  const newSpace = getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.space_size ?? 0;
  const liveHeapEndMb = liveHeapMb();
  const probe = (startAt: number) =>
    client.withSession(async (c) => {
      const times: number[] = [];
      for (let i = 0; i < PAGE_PROBES; i++) {
        const t = performance.now();
        await c.searchLicenseKeys(productId, { paging: { startAt, limit: 1000 } });
        times.push(performance.now() - t);
      }
      return round(median(times));
    });
  const run: RegistryRun = {
    registryKeys,
    keys,
    ms: Math.round(ms),
    keysPerS: Math.round(keys / (ms / 1000)),
    peakRssMb: peak,
    startRssMb,
    liveHeapStartMb,
    liveHeapEndMb,
    newSpaceMb: Math.round(newSpace / 2 ** 20),
    firstPageMs: await probe(0),
    lastPageMs: await probe(keys - 1000),
  };
  return run;
}

async function orchestrate(): Promise<LicenseRegistryResult> {
  process.env[PASSWORD_ENV] = randomBytes(18).toString('base64url');
  const sizes: LicenseRegistrySize[] = [];
  const variants = [[], SMALL_YOUNG_GENERATION];
  const runs = variants.map(() => SIZES.map((): RegistryRun[] => []));
  const emulators: Peer<EmulatorInfo>[] = [];
  for (const n of SIZES)
    emulators.push(await startPeer<EmulatorInfo>(benchScript('license-registry'), ['emulator', n]));
  try {
    for (let turn = 0; turn < ROUNDS; turn++) {
      // Taking turns at going first, so neither size always meets the machine in the same state.
      const order = turn % 2 === 0 ? [0, 1] : [1, 0];
      for (const [v, nodeArgs] of variants.entries()) {
        for (const s of order) {
          const { baseUrl, origin, productId } = emulators[s]!.info;
          const args = ['measure', SIZES[s]!, baseUrl, origin, productId];
          const r = await runChild<RegistryRun>(benchScript('license-registry'), args, ['--expose-gc', ...nodeArgs]);
          if (r.keys < SIZES[s]!) throw new Error(`read ${r.keys} of ${SIZES[s]} keys`);
          const flags = nodeArgs.join(' ') || 'default flags';
          process.stderr.write(
            `  ${r.keys} keys (${flags}): ${r.ms} ms, ${r.keysPerS}/s, peak RSS ${r.peakRssMb} MB\n`,
          );
          runs[v]![s]!.push(r);
        }
      }
    }
    for (const [v, nodeArgs] of variants.entries())
      SIZES.forEach((n, s) => {
        const rs = runs[v]![s]!;
        const info = emulators[s]!.info;
        sizes.push({
          registryKeys: n,
          nodeArgs,
          emulatorStartupMs: info.startupMs,
          emulatorRssAfterStartMb: info.rssAfterStartMb,
          emulatorPeakRssMb: peakRssOf(info.pid),
          runs: rs,
          ms: median(rs.map((r) => r.ms)),
          keysPerS: median(rs.map((r) => r.keysPerS)),
          peakRssMb: median(rs.map((r) => r.peakRssMb)),
          firstPageMs: median(rs.map((r) => r.firstPageMs)),
          lastPageMs: median(rs.map((r) => r.lastPageMs)),
        });
      });
  } finally {
    for (const e of emulators) await e.stop();
  }
  const concurrency = parseConfig({
    service: { baseUrl: 'http://localhost', origin: 'http://localhost', credentials: { source: 'env' } },
    products: [{ id: '12345678901' }],
    mail: { from: 'pulse@example.com' },
  }).service.concurrency;
  return {
    concurrency,
    sizes,
    rssRatio: round(sizes[1]!.peakRssMb / sizes[0]!.peakRssMb),
    rssRatioSmallYoung: round(sizes[3]!.peakRssMb / sizes[2]!.peakRssMb),
  };
}

const [command, ...args] = process.argv.slice(2);
if (command === 'emulator') await serveEmulator(Number(args[0]));
else if (command === 'measure') {
  const [n, baseUrl, origin, productId] = args as [string, string, string, string];
  console.log(JSON.stringify(await measure(Number(n), baseUrl, origin, productId)));
} else console.log(JSON.stringify(await orchestrate()));
