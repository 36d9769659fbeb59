/**
 * The client's performance targets, measured in one fresh process against an in-process emulator on loopback
 * (`node bench/client.ts`, run by bench/run.ts; prints one JSON line):
 * - overhead: N sequential `client.call('listEvents')` against N raw `fetch` calls with the very same headers and
 *   cookies to the same endpoint, interleaved so both meet the same machine state; overhead = p50(client) − p50(raw);
 * - concurrency: with the emulator adding 100 ms to every `dateRangeReport`, 8 concurrent calls over one session
 *   against the slowest of 8 single calls measured in the same round; ratio = concurrent wall time / slowest single.
 */
import { startEmulator } from '../emulator/index.ts';
import { type FetchLike, ReportingClient } from '../src/client/index.ts';

const TODAY = '2026-11-20';
const CLIENTS = 5000;
const OVERHEAD_CALLS = 2000;
const WARM_UP = 300;
const ROUNDS = 7;
const CONCURRENT = 8;
const LATENCY_MS = 100;
/** A monthly new/active report over the year up to today. */
const REPORT = {
  startDate: '2025-12-01',
  stopDate: TODAY,
  clientStatus: ['new', 'active'],
  dateSplit: 'month',
};

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const median = (xs: number[]) => quantile(xs, 0.5);
const round2 = (x: number) => Math.round(x * 100) / 100;

async function timed<T>(f: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const emu = await startEmulator({ clients: CLIENTS, seed: 7, today: TODAY, maxSessionsPerUser: 100 });
  const productId = emu.products[0]!.productId;
  // The client's default fetch, except that the headers of the next request can be copied for the raw calls.
  let capture: Headers | undefined;
  let copyNext = false;
  const fetchWithCopy: FetchLike = (input, init) => {
    if (copyNext && input instanceof Request) {
      capture = new Headers(input.headers);
      copyNext = false;
    }
    return fetch(input, init);
  };
  const client = new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    fetch: fetchWithCopy,
  });

  // (1) Overhead per call beyond the network.
  const eventsUrl = `${emu.baseUrl}/v3/event-tracking/${productId}`;
  await client.call('listEvents', { productId }); // signs in
  copyNext = true;
  await client.call('listEvents', { productId });
  const headers = capture!;
  const raw = async () => {
    const res = await fetch(eventsUrl, { headers, redirect: 'manual' });
    if (res.status !== 200) throw new Error(`raw listEvents: ${res.status}`);
    return res.json();
  };
  const viaClient = () => client.call('listEvents', { productId });
  const clientTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let k = 0; k < WARM_UP + OVERHEAD_CALLS; k++) {
    // Alternate which goes first, so neither always meets a just-used connection.
    const [a, b] = k % 2 === 0 ? [viaClient, raw] : [raw, viaClient];
    const ta = await timed(a);
    const tb = await timed(b);
    if (k < WARM_UP) continue;
    clientTimes.push(a === viaClient ? ta : tb);
    rawTimes.push(a === raw ? ta : tb);
  }
  const eventsBytes = JSON.stringify(await raw()).length;

  // (2) Concurrency over one session, with 100 ms added by the emulator.
  const report = () => client.call('dateRangeReport', { productId, body: REPORT });
  const plain: number[] = [];
  for (let k = 0; k < 10; k++) plain.push(await timed(report)); // warm-up, and the report's cost without latency
  const reportMs = median(plain.slice(5));
  emu.faults.set({ rules: [{ operations: ['dateRangeReport'], latencyMs: LATENCY_MS }] });
  const rounds: { slowestSingleMs: number; concurrentMs: number; ratio: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const singles: number[] = [];
    for (let k = 0; k < CONCURRENT; k++) singles.push(await timed(report));
    const concurrentMs = await timed(() => Promise.all(Array.from({ length: CONCURRENT }, report)));
    const slowestSingleMs = Math.max(...singles);
    rounds.push({ slowestSingleMs, concurrentMs, ratio: concurrentMs / slowestSingleMs });
  }
  emu.faults.clear();
  await client.logout();
  await emu.close();

  const ratios = rounds.map((r) => r.ratio);
  console.log(
    JSON.stringify({
      overhead: {
        calls: OVERHEAD_CALLS,
        warmUp: WARM_UP,
        clientP50Ms: round2(median(clientTimes)),
        rawP50Ms: round2(median(rawTimes)),
        clientP90Ms: round2(quantile(clientTimes, 0.9)),
        rawP90Ms: round2(quantile(rawTimes, 0.9)),
        overheadMs: round2(median(clientTimes) - median(rawTimes)),
        responseBytes: eventsBytes,
      },
      concurrency: {
        clients: CLIENTS,
        reportMsWithoutLatency: round2(reportMs),
        latencyMs: LATENCY_MS,
        rounds: rounds.map((r) => ({
          slowestSingleMs: round2(r.slowestSingleMs),
          concurrentMs: round2(r.concurrentMs),
          ratio: round2(r.ratio),
        })),
        ratio: round2(median(ratios)),
        worstRatio: round2(Math.max(...ratios)),
      },
    }),
  );
}

await main();
