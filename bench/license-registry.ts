/**
 * Reading a big license key registry (issue 11's bench): `node bench/license-registry.ts` (run by bench/run.ts) prints
 * one JSON line, `LicenseRegistryResult`. Processes:
 * - `… emulator <registryKeys>`: the emulator with that many registry keys (the `registryKeys` option), in a child
 *   of its own so its memory is not the consumer's; one per size, started before and stopped after its runs;
 * - `… measure <registryKeys> <baseUrl> <origin> <productId>`: a fresh consumer process per run, which reads the
 *   whole registry through `consumeRegistry` and reports wall time, keys/s and its peak RSS, then times single
 *   pages at the start and at the end of the registry (the emulator answers both in O(limit)).
 * - `… peers`: dynalite (in memory) and the SMTP sink (outbox in a temporary directory), fresh for each alerts run;
 * - `… alerts <registryKeys> <baseUrl> <origin> <productId> <peers JSON>`: a fresh process per run that runs the
 *   real alerts job, `runLicenseAlerts`, over the registry with the ledger and the mailer on those peers, and
 *   reports wall time, alerts sent and its peak RSS.
 * Sizes take turns, ROUNDS bare reads and ALERT_ROUNDS alerts runs each; the figures are medians (of two: the
 * higher) and the RSS ratios compare 1M keys against 100k. The bare reads isolate the stream from the job.
 * The password is random per run and reaches the children by environment, never by command line or output.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { reportingClientFor } from '../src/app/service-client.ts';
import type { ReportingClient } from '../src/client/index.ts';
import { parseConfig } from '../src/config/load.ts';
import type { PulseConfig } from '../src/config/schema.ts';
import { streamRegistry } from '../src/jobs/licenses/registry-stream.ts';
import { fixedClock } from '../src/ports/clock.ts';
import type { Logger } from '../src/ports/logger.ts';
import { benchScript, exitWithParent, median, type Peer, peakRssMb, round, runChild, startPeer } from './processes.ts';

const SIZES = [100_000, 1_000_000] as const;
const ROUNDS = 3;
/** The alerts job takes ~10× the bare read (a ledger claim per alert): fewer rounds. */
const ALERT_ROUNDS = 2;
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
  /** The alerts job over the same registries: per size with the default flags, then with SMALL_YOUNG_GENERATION. */
  alerts: LicenseAlertsSize[];
  alertsRssRatio: number;
  alertsRssRatioSmallYoung: number;
}

/**
 * V8 sizes its young generation from the memory limit it sees: 64 MB semi-spaces on a large machine (so up to 128 MB
 * of new space that a steady stream of short-lived pages fills), 16 MB at a 2–4 GB limit, 8 MB or less below. The
 * second set of runs uses 16 MB, what the consumer gets in a Lambda-sized process, to separate the read's own memory
 * from the young generation's growth.
 */
const SMALL_YOUNG_GENERATION = ['--max-semi-space-size=16'];

/** Heap in use after a full collection (the children run with --expose-gc): what is still held, not garbage. */
function liveHeapMb(): number {
  (globalThis as { gc?: () => void }).gc!();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
}

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
 * The bare stream, looking at every key as it streams in: what any license job pays to read the registry, without
 * the job's own work (the `alerts` runs below measure that).
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

interface PeersInfo {
  dynamoEndpoint: string;
  smtpPort: number;
  pid: number;
}

/** dynalite (in memory) and the SMTP sink, in a process of their own so their memory is not the job's. */
async function servePeers(): Promise<void> {
  const { startDynalite } = await import('../src/adapters/local/peer-servers.ts');
  const { startSmtpSink } = await import('../src/adapters/local/smtp-sink.ts');
  const outboxDir = mkdtempSync(join(tmpdir(), 'pulse-bench-outbox-'));
  const dynamo = await startDynalite();
  const sink = await startSmtpSink({ outboxDir });
  process.on(
    'SIGTERM',
    () =>
      void Promise.all([dynamo.close(), sink.close()]).finally(() => {
        rmSync(outboxDir, { recursive: true, force: true });
        process.exit(0);
      }),
  );
  exitWithParent();
  const info: PeersInfo = { dynamoEndpoint: dynamo.endpoint, smtpPort: sink.port, pid: process.pid };
  console.log(JSON.stringify(info));
}

export interface AlertsRun {
  registryKeys: number;
  keys: number;
  ms: number;
  keysPerS: number;
  alertsSent: number;
  emails: number;
  peakRssMb: number;
  startRssMb: number;
  liveHeapStartMb: number;
  liveHeapEndMb: number;
  newSpaceMb: number;
}

export interface LicenseAlertsSize {
  registryKeys: number;
  nodeArgs: string[];
  runs: AlertsRun[];
  ms: number;
  alertsSent: number;
  emails: number;
  peakRssMb: number;
}

const ALERT_ROUTE_PATTERN = '[02468]$';

/**
 * The alerts job over the whole registry, as the hourly Lambda runs it (not scheduled, so every recipient is due):
 * real ledger (dynalite, a fresh table per run so every alert is new) and real SMTP (the sink), both in the peers'
 * process. The owner gets the keys no route takes, a route the keys ending in an even digit: two emails per run.
 */
async function measureAlerts(
  registryKeys: number,
  baseUrl: string,
  origin: string,
  productId: string,
  peers: PeersInfo,
) {
  // Loaded only here, so the bare-read processes (which import this module too) do not carry them.
  const { DynamoDbLedger, dynamoDocumentClientFor } = await import('../src/adapters/aws/dynamodb-ledger.ts');
  const { ensureTable } = await import('../src/adapters/local/peer-servers.ts');
  const { smtpMailer } = await import('../src/adapters/mail/nodemailer-mailer.ts');
  const { runLicenseAlerts } = await import('../src/jobs/licenses/run-license-alerts.ts');
  const config = parseConfig({
    service: { baseUrl, origin, credentials: { source: 'env' } },
    products: [{ id: productId }],
    mail: { from: 'pulse@example.com' },
    licenses: {
      owner: { address: 'licenses@example.com' },
      routing: [{ keyPattern: ALERT_ROUTE_PATTERN, recipients: [{ address: 'even@example.com' }] }],
    },
  });
  const credentials = () => ({ userName: USER, password: process.env[PASSWORD_ENV]! });
  const client = reportingClientFor(config.service, credentials, quiet);
  const db = dynamoDocumentClientFor({ endpoint: peers.dynamoEndpoint });
  const tableName = `pulse-bench-${registryKeys}-${randomBytes(4).toString('hex')}`;
  await ensureTable(db as unknown as DynamoDBClient, tableName);
  const ledger = new DynamoDbLedger({ client: db, tableName });
  const mailer = smtpMailer({ host: '127.0.0.1', port: peers.smtpPort, secure: false });
  const liveHeapStartMb = liveHeapMb();
  const startRssMb = peakRssMb();
  const t0 = performance.now();
  const result = await runLicenseAlerts(config, {
    client,
    mailer,
    ledger,
    clock: fixedClock(`${TODAY}T12:00:00Z`),
    logger: quiet,
  });
  const ms = performance.now() - t0;
  const peak = peakRssMb();
  const newSpace = getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space')?.space_size ?? 0;
  const liveHeapEndMb = liveHeapMb();
  if (!result.ok) throw new Error(`alerts failed: ${result.errors.join('; ')}`);
  const c = result.counts;
  const run: AlertsRun = {
    registryKeys,
    keys: c.keysScanned,
    ms: Math.round(ms),
    keysPerS: Math.round(c.keysScanned / (ms / 1000)),
    alertsSent: c.alertsSent,
    emails: c.emails,
    peakRssMb: peak,
    startRssMb,
    liveHeapStartMb,
    liveHeapEndMb,
    newSpaceMb: Math.round(newSpace / 2 ** 20),
  };
  return run;
}

async function orchestrate(): Promise<LicenseRegistryResult> {
  process.env[PASSWORD_ENV] = randomBytes(18).toString('base64url');
  const sizes: LicenseRegistrySize[] = [];
  const variants = [[], SMALL_YOUNG_GENERATION];
  const runs = variants.map(() => SIZES.map((): RegistryRun[] => []));
  const alertRuns = variants.map(() => SIZES.map((): AlertsRun[] => []));
  const alerts: LicenseAlertsSize[] = [];
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
    for (let turn = 0; turn < ALERT_ROUNDS; turn++) {
      const order = turn % 2 === 0 ? [0, 1] : [1, 0];
      for (const [v, nodeArgs] of variants.entries()) {
        for (const s of order) {
          const { baseUrl, origin, productId } = emulators[s]!.info;
          // Fresh peers per run: every run meets an empty ledger and outbox, and the peers' memory is not the job's.
          const peers = await startPeer<PeersInfo>(benchScript('license-registry'), ['peers']);
          try {
            const args = ['alerts', SIZES[s]!, baseUrl, origin, productId, JSON.stringify(peers.info)];
            const r = await runChild<AlertsRun>(benchScript('license-registry'), args, ['--expose-gc', ...nodeArgs]);
            if (r.keys < SIZES[s]!) throw new Error(`alerts read ${r.keys} of ${SIZES[s]} keys`);
            const flags = nodeArgs.join(' ') || 'default flags';
            process.stderr.write(
              `  alerts, ${r.keys} keys (${flags}): ${r.ms} ms, ${r.alertsSent} alerts in ${r.emails} emails, peak RSS ${r.peakRssMb} MB\n`,
            );
            alertRuns[v]![s]!.push(r);
          } finally {
            await peers.stop();
          }
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
    for (const [v, nodeArgs] of variants.entries())
      SIZES.forEach((n, s) => {
        const rs = alertRuns[v]![s]!;
        alerts.push({
          registryKeys: n,
          nodeArgs,
          runs: rs,
          ms: median(rs.map((r) => r.ms)),
          alertsSent: median(rs.map((r) => r.alertsSent)),
          emails: median(rs.map((r) => r.emails)),
          peakRssMb: median(rs.map((r) => r.peakRssMb)),
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
    alerts,
    alertsRssRatio: round(alerts[1]!.peakRssMb / alerts[0]!.peakRssMb),
    alertsRssRatioSmallYoung: round(alerts[3]!.peakRssMb / alerts[2]!.peakRssMb),
  };
}

const [command, ...args] = process.argv.slice(2);
if (command === 'emulator') await serveEmulator(Number(args[0]));
else if (command === 'peers') await servePeers();
else if (command === 'alerts') {
  const [n, baseUrl, origin, productId, peers] = args as [string, string, string, string, string];
  console.log(JSON.stringify(await measureAlerts(Number(n), baseUrl, origin, productId, JSON.parse(peers))));
} else if (command === 'measure') {
  const [n, baseUrl, origin, productId] = args as [string, string, string, string];
  console.log(JSON.stringify(await measure(Number(n), baseUrl, origin, productId)));
} else console.log(JSON.stringify(await orchestrate()));
