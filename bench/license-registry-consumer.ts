/**
 * The measuring children of bench/license-registry.ts, in a module of their own so that they can be bundled like a
 * Lambda (bench/lambda-bundle.ts) without the emulator and the peers: each run is a fresh process that prints one
 * JSON line.
 * - `measure <registryKeys> <baseUrl> <origin> <productId>`: reads the whole registry through `consumeRegistry` and
 *   reports wall time, keys/s and its peak RSS, then times single pages at the start and at the end of the registry
 *   (the emulator answers both in O(limit));
 * - `alerts <registryKeys> <baseUrl> <origin> <productId> <peers JSON>`: runs the real alerts job,
 *   `runLicenseAlerts`, over the registry with the ledger and the mailer on the peers, and reports wall time,
 *   alerts sent and its peak RSS.
 * The password reaches them by environment, never by command line or output.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../src/adapters/aws/dynamodb-ledger.ts';
import { DynamoDbSuppressionList } from '../src/adapters/aws/dynamodb-suppressions.ts';
import { smtpMailer } from '../src/adapters/mail/nodemailer-mailer.ts';
import { reportingClientFor } from '../src/app/service-client.ts';
import type { ReportingClient } from '../src/client/index.ts';
import { parseConfig } from '../src/config/load.ts';
import type { PulseConfig } from '../src/config/schema.ts';
import { runLicenseAlerts } from '../src/licenses/alerts/run-license-alerts.ts';
import { streamRegistry } from '../src/licenses/shared/registry-stream.ts';
import { fixedClock } from '../src/ports/clock.ts';
import type { Logger } from '../src/ports/logger.ts';
import { median, peakRssMb, round } from './measure.ts';

const PAGE_PROBES = 15;
export const TODAY = '2026-11-20';
export const USER = 'bench@example.com';
export const PASSWORD_ENV = 'PULSE_BENCH_EMULATOR_PASSWORD';
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

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

/** Heap in use after a full collection (the children run with --expose-gc): what is still held, not garbage. */
function liveHeapMb(): number {
  (globalThis as { gc?: () => void }).gc!();
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20);
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

export async function measure(registryKeys: number, baseUrl: string, origin: string, productId: string) {
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

export interface PeersInfo {
  dynamoEndpoint: string;
  /** The ledger's table, created empty by the peers' process. */
  tableName: string;
  smtpPort: number;
  pid: number;
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

const ALERT_ROUTE_PATTERN = '[02468]$';

/**
 * The alerts job over the whole registry, as the hourly Lambda runs it (not scheduled, so every recipient is due):
 * real ledger (dynalite, a fresh table per run so every alert is new) and real SMTP (the sink), both in the peers'
 * process. The owner gets the keys no route takes, a route the keys ending in an even digit: two emails per run.
 */
export async function measureAlerts(
  registryKeys: number,
  baseUrl: string,
  origin: string,
  productId: string,
  peers: PeersInfo,
) {
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
  const ledger = new DynamoDbLedger({ client: db, tableName: peers.tableName });
  // As the function has it (src/app/lambda/state-table.ts): the suppression list in the ledger's table.
  const suppressions = new DynamoDbSuppressionList({ client: db, tableName: peers.tableName });
  const mailer = smtpMailer({ host: '127.0.0.1', port: peers.smtpPort, secure: false });
  const liveHeapStartMb = liveHeapMb();
  const startRssMb = peakRssMb();
  const t0 = performance.now();
  const result = await runLicenseAlerts(config, {
    client,
    mailer,
    ledger,
    suppressions,
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

const [command, ...args] = process.argv.slice(2);
if (command === 'alerts') {
  const [n, baseUrl, origin, productId, peers] = args as [string, string, string, string, string];
  console.log(JSON.stringify(await measureAlerts(Number(n), baseUrl, origin, productId, JSON.parse(peers))));
} else if (command === 'measure') {
  const [n, baseUrl, origin, productId] = args as [string, string, string, string];
  console.log(JSON.stringify(await measure(Number(n), baseUrl, origin, productId)));
}
