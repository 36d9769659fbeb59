/**
 * The digest's concurrency target, in one fresh process (`node bench/digest.ts`; prints readable lines on stderr,
 * then one JSON line last): a 10-product digest with the emulator adding 100 ms to every report call must take
 * ≤ 0.2× the time of making the same report calls one after another.
 *
 * The emulator has three products, so the digest lists their ids repeated up to ten entries (the config accepts
 * repeated ids and `collectDigestData` plans and fetches per entry, so every entry costs its own full set of calls).
 * Concurrent = `collectDigestData` (the job's own fetch step) with the config's default concurrency; sequential =
 * the very same planned calls through `client.call`, one at a time. Both run inside `client.withSession`, so each
 * time includes one sign-in and one logout; only the report operations get the latency, not the session calls.
 * After one warm-up of each (no latency), the rounds alternate which goes first; the medians are reported. Also the
 * ratio at other concurrency caps, to show where the target is met.
 */
import { startEmulator } from '../emulator/index.ts';
import { envCredentials, reportingClientFor } from '../src/app/service-client.ts';
import type { ReportingClient } from '../src/client/index.ts';
import { parseConfig } from '../src/config/load.ts';
import { lastCompleteIsoWeek } from '../src/core/calendar.ts';
import { collectDigestData } from '../src/digest/collect.ts';
import { planDigestCalls } from '../src/digest/plan.ts';
import type { Logger } from '../src/ports/logger.ts';

const TODAY = '2026-11-20';
const CLIENTS = 2000;
const PRODUCT_ENTRIES = 10;
const LATENCY_MS = 100;
const ROUNDS = 3;
const OTHER_CAPS = [4, 6, 10, 12, 16];
const TARGET_RATIO = 0.2;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const log = (s: string) => process.stderr.write(`${s}\n`);
const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

const emu = await startEmulator({ clients: CLIENTS, seed: 7, today: TODAY, maxSessionsPerUser: 100 });
const realIds = emu.products.map((p) => p.productId);
const productIds = Array.from({ length: PRODUCT_ENTRIES }, (_, i) => realIds[i % realIds.length]!);
// Parsed like any pulse.config.json, so concurrency, sections and thresholds are the schema's defaults.
const config = parseConfig({
  service: { baseUrl: emu.baseUrl, origin: emu.origin, credentials: { source: 'env' } },
  products: realIds.map((id) => ({ id })),
  mail: { from: 'pulse@example.com' },
  digests: [{ id: 'bench', productIds, recipients: [{ address: 'ceo@example.com' }], owner: 'owner@example.com' }],
});
const digest = config.digests[0]!;
const env = { PULSE_USER: emu.credentials.userName, PULSE_PASSWORD: emu.credentials.password };
const client = reportingClientFor(
  config.service,
  envCredentials({ userNameVar: 'PULSE_USER', passwordVar: 'PULSE_PASSWORD' }, env),
  silent,
);
const week = lastCompleteIsoWeek(new Date(`${TODAY}T12:00:00Z`), digest.schedule.timeZone);
const opts = { daysUntilDeclaredLost: digest.thresholds.daysUntilDeclaredLost, sections: digest.sections };
const planned = planDigestCalls(digest.productIds, week, opts);
const reportOperations = [...new Set(planned.map((c) => c.operationId))];

/** The job's fetch step; returns how many calls failed. */
async function concurrent(cap: number): Promise<number> {
  const data = await client.withSession((c: ReportingClient) =>
    collectDigestData(c, digest.productIds, week, { ...opts, concurrency: cap }),
  );
  return data.calls.filter((c) => c.error).length;
}

/** The same planned calls, one after another; a failed call is counted, as collect records it. */
async function sequential(): Promise<number> {
  return client.withSession(async (c: ReportingClient) => {
    let failed = 0;
    for (const call of planned) {
      await c.call(call.operationId, { productId: call.productId, body: call.request }).catch(() => failed++);
    }
    return failed;
  });
}

const failedCalls = { concurrent: await concurrent(config.service.concurrency), sequential: await sequential() };
emu.faults.set({ rules: [{ operations: reportOperations, latencyMs: LATENCY_MS }] });

const rounds: { sequentialMs: number; concurrentMs: number; ratio: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let sequentialMs = 0;
  let concurrentMs = 0;
  const runSequential = async () => {
    sequentialMs = await timed(sequential);
  };
  const runConcurrent = async () => {
    concurrentMs = await timed(() => concurrent(config.service.concurrency));
  };
  for (const run of r % 2 === 0 ? [runSequential, runConcurrent] : [runConcurrent, runSequential]) await run();
  rounds.push({ sequentialMs, concurrentMs, ratio: round3(concurrentMs / sequentialMs) });
  log(`round ${r + 1}: sequential ${sequentialMs.toFixed(0)} ms, concurrent ${concurrentMs.toFixed(0)} ms`);
}
const sequentialMs = median(rounds.map((r) => r.sequentialMs));
const concurrentMs = median(rounds.map((r) => r.concurrentMs));

const byCap: { concurrency: number; concurrentMs: number; ratio: number }[] = [];
for (const cap of OTHER_CAPS) {
  const ms = await timed(() => concurrent(cap));
  byCap.push({ concurrency: cap, concurrentMs: Math.round(ms), ratio: round3(ms / sequentialMs) });
}
await emu.close();

const ratio = concurrentMs / sequentialMs;
log(
  `${planned.length} calls (${PRODUCT_ENTRIES} products × ${planned.length / PRODUCT_ENTRIES}), +${LATENCY_MS} ms each: ` +
    `sequential ${sequentialMs.toFixed(0)} ms, concurrency ${config.service.concurrency} ${concurrentMs.toFixed(0)} ms, ` +
    `ratio ${ratio.toFixed(3)} (target ≤ ${TARGET_RATIO})`,
);
log(`other caps: ${byCap.map((b) => `${b.concurrency} → ${b.ratio}`).join(', ')}`);
console.log(
  JSON.stringify({
    clients: CLIENTS,
    productEntries: PRODUCT_ENTRIES,
    distinctProducts: realIds.length,
    calls: planned.length,
    reportOperations,
    latencyMs: LATENCY_MS,
    concurrency: config.service.concurrency,
    failedCalls,
    sequentialMs: Math.round(sequentialMs),
    concurrentMs: Math.round(concurrentMs),
    ratio: round3(ratio),
    rounds: rounds.map((r) => ({
      ...r,
      sequentialMs: Math.round(r.sequentialMs),
      concurrentMs: Math.round(r.concurrentMs),
    })),
    byCap,
    targetRatio: TARGET_RATIO,
  }),
);
