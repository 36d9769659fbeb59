/**
 * One digest Lambda container for one scheduled run (bench/digest-run.ts starts it with the function's environment
 * and NODE_OPTIONS, in the asset's folder): it imports the bundle's index.mjs as the Node.js runtime does at init,
 * then calls `handler({}, context)` once, as the hourly schedule does, and prints one JSON line last (the function's
 * own log lines come before it). Only node: built-ins here, so the process holds nothing but the function.
 * Usage: node bench/digest-run-invoke.ts <assetDir> <timeoutSeconds>
 * The run's times: wall from the call to the handler's answer, CPU of the whole process over the same span (every
 * thread: V8's collector and libuv's pool share a Lambda's vCPU with the main thread).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '../test/helpers/lambda-context.ts';

export interface InvokeResult {
  /** `import()` of the bundle: the init phase (the chart renderer's init it starts may run on into the run). */
  initMs: number;
  initCpuMs: number;
  /** Date.now() when the handler was called and when it answered, to lay the peers' records over. */
  startedAt: number;
  endedAt: number;
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /**
   * How long the main thread was ready to run but waited for a CPU (Linux schedstat; null elsewhere): other
   * processes on this machine taking the cores, which Lambda's share of a vCPU does not have.
   */
  runQueueWaitMs: number | null;
  /** Share of the run the main thread was busy (not waiting in the event loop). */
  eventLoopUtilization: number;
  peakRssMb: number;
  /** What the handler returned (a JobResult), or what it threw. */
  result: unknown;
  error?: string;
}

const [assetDir, timeoutSeconds] = process.argv.slice(2);
if (!assetDir || !timeoutSeconds) throw new Error('usage: digest-run-invoke.ts <assetDir> <timeoutSeconds>');

/** The main thread's time waiting on a run queue, ms (/proc/self/schedstat: on CPU, waiting, slices, in ns). */
function runQueueWait(): number | null {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

const cpuAtInit = process.cpuUsage();
const initStart = performance.now();
const { handler } = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};
const initMs = performance.now() - initStart;
const initCpu = process.cpuUsage(cpuAtInit);

const context = lambdaContext(Number(timeoutSeconds), 'bench');

const startedAt = Date.now();
const eluAtStart = performance.eventLoopUtilization();
const cpuAtStart = process.cpuUsage();
const waitAtStart = runQueueWait();
const runStart = performance.now();
let result: unknown = null;
let error: string | undefined;
try {
  result = await handler({}, context);
} catch (e) {
  error = `${(e as Error)?.name ?? 'Error'}: ${(e as Error)?.message ?? String(e)}`;
}
const wallMs = performance.now() - runStart;
const cpu = process.cpuUsage(cpuAtStart);
const elu = performance.eventLoopUtilization(eluAtStart);
const waitAtEnd = runQueueWait();
const out: InvokeResult = {
  initMs: Math.round(initMs),
  initCpuMs: Math.round((initCpu.user + initCpu.system) / 1000),
  startedAt,
  endedAt: Date.now(),
  wallMs: Math.round(wallMs),
  cpuUserMs: Math.round(cpu.user / 1000),
  cpuSystemMs: Math.round(cpu.system / 1000),
  runQueueWaitMs: waitAtStart === null || waitAtEnd === null ? null : Math.round(waitAtEnd - waitAtStart),
  eventLoopUtilization: Math.round(elu.utilization * 1000) / 1000,
  peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  result,
  ...(error ? { error } : {}),
};
process.stdout.write(`\n${JSON.stringify(out)}\n`);
// Lambda freezes the container after the answer; open sockets (a mail pool, keep-alive agents) do not hold it.
process.exit(0);
