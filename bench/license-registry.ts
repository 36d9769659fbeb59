/**
 * Reading a big license key registry and alerting over it (issue 11's bench): `node bench/license-registry.ts` (run
 * by bench/run.ts) prints one JSON line, `LicenseRegistryResult`. Processes:
 * - `… emulator <registryKeys>`: the emulator with that many registry keys (the `registryKeys` option), in a child
 *   of its own so its memory is not the consumer's; one per size, started before and stopped after its runs;
 * - `… peers`: dynalite (in memory) and the SMTP sink (outbox in a temporary directory), fresh for each alerts run;
 * - the measuring runs (bench/license-registry-consumer.ts), a fresh process each: bare reads of the registry
 *   (`measure`) and the real alerts job (`alerts`).
 * Each measuring run is made two ways (`VARIANTS`): as the license alerts Lambda runs, the consumer bundled like a
 * Lambda (bench/lambda-bundle.ts) and started with the function's NODE_OPTIONS, which size V8's heap for its memory
 * (the targets are read on these); and from the .ts sources, type-stripped, under this machine's V8 defaults, as
 * `pulse licenses` runs on a workstation (for comparison). Sizes take turns; the figures are medians (of two: the
 * higher) and the RSS ratios compare 1M keys against 100k.
 * The password is random per run and reaches the children by environment, never by command line or output.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/load.ts';
import { bundleLikeLambda, FUNCTION_MEMORY_MB, lambdaNodeOptions } from './lambda-bundle.ts';
import {
  type AlertsRun,
  PASSWORD_ENV,
  type PeersInfo,
  type RegistryRun,
  TODAY,
  USER,
} from './license-registry-consumer.ts';
import { benchScript, exitWithParent, median, type Peer, round, runChild, startPeer } from './processes.ts';

const SIZES = [100_000, 1_000_000] as const;
const ROUNDS = 3;
/** The alerts job takes ~15× the bare read (a ledger claim per alert): fewer rounds. */
const ALERT_ROUNDS = 2;
/** Inside node_modules, so the bundle finds the AWS SDK it leaves external, as the Lambda finds the runtime's. */
const BUNDLE = new URL('../node_modules/.cache/pulse-bench/license-registry-consumer.mjs', import.meta.url).pathname;

export interface Variant {
  name: 'lambda' | 'source';
  /** What runs: the bundle, or the .ts consumer. */
  script: string;
  /** Node flags of the measuring process ([] = this machine's V8 defaults), besides --expose-gc. */
  nodeArgs: string[];
}

const VARIANTS: Variant[] = [
  { name: 'lambda', script: BUNDLE, nodeArgs: lambdaNodeOptions(FUNCTION_MEMORY_MB.licenseAlerts) },
  { name: 'source', script: benchScript('license-registry-consumer'), nodeArgs: [] },
];

interface EmulatorInfo {
  baseUrl: string;
  origin: string;
  productId: string;
  pid: number;
  startupMs: number;
  rssAfterStartMb: number;
}

export interface LicenseRegistrySize {
  registryKeys: number;
  variant: Variant['name'];
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

export interface LicenseAlertsSize {
  registryKeys: number;
  variant: Variant['name'];
  nodeArgs: string[];
  runs: AlertsRun[];
  ms: number;
  alertsSent: number;
  emails: number;
  peakRssMb: number;
}

export interface LicenseRegistryResult {
  concurrency: number;
  /** The consumer bundle's JS, KiB. */
  bundleKb: number;
  /** Bare reads: per size for the `lambda` variant, then per size for `source`. */
  sizes: LicenseRegistrySize[];
  /** Median peak RSS of the bare read at 1M keys over that at 100k, `lambda` variant. */
  rssRatio: number;
  /** The same, `source` variant. */
  rssRatioSource: number;
  /** The alerts job over the same registries, in the same order. */
  alerts: LicenseAlertsSize[];
  alertsRssRatio: number;
  alertsRssRatioSource: number;
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

/** dynalite (in memory) and the SMTP sink, in a process of their own so their memory is not the job's. */
async function servePeers(): Promise<void> {
  const { ensureTable, startDynalite } = await import('../src/adapters/local/peer-servers.ts');
  const { dynamoDocumentClientFor } = await import('../src/adapters/aws/dynamodb-ledger.ts');
  const { startSmtpSink } = await import('../src/adapters/local/smtp-sink.ts');
  const outboxDir = mkdtempSync(join(tmpdir(), 'pulse-bench-outbox-'));
  const dynamo = await startDynalite();
  // The ledger's table, fresh with the peers: every alerts run meets an empty ledger.
  const tableName = 'pulse-bench';
  const db = dynamoDocumentClientFor({ endpoint: dynamo.endpoint });
  await ensureTable(db, tableName);
  db.destroy();
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
  const info: PeersInfo = { dynamoEndpoint: dynamo.endpoint, tableName, smtpPort: sink.port, pid: process.pid };
  console.log(JSON.stringify(info));
}

async function orchestrate(): Promise<LicenseRegistryResult> {
  process.env[PASSWORD_ENV] = randomBytes(18).toString('base64url');
  // Where the compiled email templates are, as the Lambda is told (the bundle is not next to build/).
  process.env.PULSE_TEMPLATES_DIR ??= fileURLToPath(new URL('../templates/compiled/', import.meta.url));
  const bundleKb = await bundleLikeLambda(benchScript('license-registry-consumer'), BUNDLE);
  const runs = VARIANTS.map(() => SIZES.map((): RegistryRun[] => []));
  const alertRuns = VARIANTS.map(() => SIZES.map((): AlertsRun[] => []));
  const sizes: LicenseRegistrySize[] = [];
  const alerts: LicenseAlertsSize[] = [];
  const emulators: Peer<EmulatorInfo>[] = [];
  for (const n of SIZES)
    emulators.push(await startPeer<EmulatorInfo>(benchScript('license-registry'), ['emulator', n]));
  try {
    for (let turn = 0; turn < ROUNDS; turn++) {
      // Taking turns at going first, so neither size always meets the machine in the same state.
      const order = turn % 2 === 0 ? [0, 1] : [1, 0];
      for (const [v, variant] of VARIANTS.entries()) {
        for (const s of order) {
          const { baseUrl, origin, productId } = emulators[s]!.info;
          const args = ['measure', SIZES[s]!, baseUrl, origin, productId];
          const r = await runChild<RegistryRun>(variant.script, args, ['--expose-gc', ...variant.nodeArgs]);
          if (r.keys < SIZES[s]!) throw new Error(`read ${r.keys} of ${SIZES[s]} keys`);
          process.stderr.write(
            `  ${r.keys} keys (${variant.name}): ${r.ms} ms, ${r.keysPerS}/s, peak RSS ${r.peakRssMb} MB\n`,
          );
          runs[v]![s]!.push(r);
        }
      }
    }
    for (let turn = 0; turn < ALERT_ROUNDS; turn++) {
      const order = turn % 2 === 0 ? [0, 1] : [1, 0];
      for (const [v, variant] of VARIANTS.entries()) {
        for (const s of order) {
          const { baseUrl, origin, productId } = emulators[s]!.info;
          // Fresh peers per run: every run meets an empty ledger and outbox, and the peers' memory is not the job's.
          const peers = await startPeer<PeersInfo>(benchScript('license-registry'), ['peers']);
          try {
            const args = ['alerts', SIZES[s]!, baseUrl, origin, productId, JSON.stringify(peers.info)];
            const r = await runChild<AlertsRun>(variant.script, args, ['--expose-gc', ...variant.nodeArgs]);
            if (r.keys < SIZES[s]!) throw new Error(`alerts read ${r.keys} of ${SIZES[s]} keys`);
            process.stderr.write(
              `  alerts, ${r.keys} keys (${variant.name}): ${r.ms} ms, ${r.alertsSent} alerts in ${r.emails} emails, peak RSS ${r.peakRssMb} MB\n`,
            );
            alertRuns[v]![s]!.push(r);
          } finally {
            await peers.stop();
          }
        }
      }
    }
    for (const [v, variant] of VARIANTS.entries())
      SIZES.forEach((n, s) => {
        const rs = runs[v]![s]!;
        const info = emulators[s]!.info;
        sizes.push({
          registryKeys: n,
          variant: variant.name,
          nodeArgs: variant.nodeArgs,
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
    for (const [v, variant] of VARIANTS.entries())
      SIZES.forEach((n, s) => {
        const rs = alertRuns[v]![s]!;
        alerts.push({
          registryKeys: n,
          variant: variant.name,
          nodeArgs: variant.nodeArgs,
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
    bundleKb,
    sizes,
    rssRatio: round(sizes[1]!.peakRssMb / sizes[0]!.peakRssMb),
    rssRatioSource: round(sizes[3]!.peakRssMb / sizes[2]!.peakRssMb),
    alerts,
    alertsRssRatio: round(alerts[1]!.peakRssMb / alerts[0]!.peakRssMb),
    alertsRssRatioSource: round(alerts[3]!.peakRssMb / alerts[2]!.peakRssMb),
  };
}

const [command, ...args] = process.argv.slice(2);
if (command === 'emulator') await serveEmulator(Number(args[0]));
else if (command === 'peers') await servePeers();
else console.log(JSON.stringify(await orchestrate()));
