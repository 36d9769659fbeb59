/**
 * One measurement in a fresh process, so JIT state, heap and RSS of one measurement never leak into another.
 * `node bench/child.ts startup <clients>` or `node bench/child.ts report <clients> <runs>`; prints one JSON line.
 */
import { startEmulator } from '../emulator/index.ts';
import { signedIn } from '../test/helpers/emulator-session.ts';

const BENCH_TODAY = '2026-11-20';
/** The benchmarked `dateRangeReport` request: weekly new/active/lost over one year, no filters. */
const WEEKLY_YEAR = {
  startDate: '2025-11-21',
  stopDate: BENCH_TODAY,
  clientStatus: ['new', 'active', 'lost'],
  dateSplit: 'week',
  daysUntilDeclaredLost: 30,
  dateReportedLost: 'dateDeclaredLost',
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

async function main(): Promise<void> {
  const [mode, clientsArg, runsArg] = process.argv.slice(2);
  const clients = Number(clientsArg);
  const t0 = performance.now();
  const emu = await startEmulator({ clients, seed: 7, today: BENCH_TODAY, maxSessionsPerUser: 100 });
  const startupMs = performance.now() - t0;
  if (mode === 'startup') {
    await emu.close();
    console.log(JSON.stringify({ startupMs }));
    return;
  }
  const rssAfterStartMb = mb(process.memoryUsage().rss);
  const session = await signedIn(emu);
  const times: number[] = [];
  let weeks = 0;
  for (let k = 0; k < 3 + Number(runsArg); k++) {
    const t = performance.now();
    const r = await session.post('/v3/reporting/generic/dateRange', WEEKLY_YEAR);
    const ms = performance.now() - t;
    if (r.status !== 200) throw new Error(`report failed: ${r.status} ${r.text}`);
    weeks = Object.keys(r.json.result).length;
    if (k >= 3) times.push(ms); // the first three warm up the JIT
  }
  const rssAfterReportsMb = mb(process.memoryUsage().rss);
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  await emu.close();
  console.log(
    JSON.stringify({
      startupMs,
      reportMs: median(times),
      reportTimes: times,
      weeks,
      rssAfterStartMb,
      rssAfterReportsMb,
      peakRssMb,
    }),
  );
}

await main();
