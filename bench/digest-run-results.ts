/** The row and notes of bench/digest-run.ts: the digest Lambda's worst scheduled run, and the timeout it needs. */
import type { ProxyCall } from './latency-proxy.ts';
import type { Row } from './results.ts';

/** The peers the function calls, as the bench's proxies record them. */
export interface PeerCalls<T = ProxyCall[]> {
  service: T;
  dynamodb: T;
  s3: T;
  secretsManager: T;
  mail: T;
}

export const PEERS = ['service', 'dynamodb', 's3', 'secretsManager', 'mail'] as const;

/** `f` over each peer's value. */
export function mapPeers<T, U>(x: PeerCalls<T>, f: (value: T) => U): PeerCalls<U> {
  return {
    service: f(x.service),
    dynamodb: f(x.dynamodb),
    s3: f(x.s3),
    secretsManager: f(x.secretsManager),
    mail: f(x.mail),
  };
}

interface Phase {
  /** Summed over the phase's spans. */
  wallMs: number;
  /** Of it, waiting on no peer at all: the function's own work (rendering, building messages, logging). */
  localMs: number;
  /** Of it, waiting on each peer (at least one call in flight). */
  waitMs: PeerCalls<number>;
}

export interface DigestRunRun {
  wallMs: number;
  cpuMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** wall + CPU × (1/vCPU − 1). */
  lambdaMs: number;
  initMs: number;
  initCpuMs: number;
  /** The main thread ready but waiting for a core (other processes on this machine); null off Linux. */
  runQueueWaitMs: number | null;
  /** This machine's 1-minute load average when the run started and ended. */
  loadAverage: [number, number];
  eventLoopUtilization: number;
  peakRssMb: number;
  emails: number;
  ownerNotices: number;
  /** Per peer, per kind of call (operation): how many and their mean time at the proxy, latency included. */
  calls: PeerCalls<Record<string, { count: number; meanMs: number }>>;
  /** Over the whole run: time with at least one call to the peer in flight. */
  waitMs: PeerCalls<number>;
  /** Over the whole run: time with no call in flight to any peer. */
  localMs: number;
  /** Each digest from the previous digest's last send (or the run's start) to its first send. */
  prepare: Phase & { medianMs: number };
  /** Each digest from its first send to its last. */
  sending: Phase & { perRecipientMs: number };
}

/** What bench/digest-run.ts prints. */
export interface DigestRunResult {
  digests: number;
  recipientsPerDigest: number;
  timeZone: string;
  products: number;
  clients: number;
  latencyMs: PeerCalls<number>;
  memoryMb: number;
  nodeOptions: string;
  jsKb: number;
  lambdaVcpu: number;
  margin: number;
  timeoutSeconds: number;
  timeoutSource: string;
  runs: DigestRunRun[];
  medianWallMs: number;
  medianCpuMs: number;
  medianLambdaMs: number;
  worstLambdaMs: number;
  /** The worst estimate × margin, rounded up to whole minutes, at most 900 s. */
  suggestedTimeoutSeconds: number;
  /** The worst estimate × margin is beyond Lambda's 900 s: no timeout fits, the run must get shorter. */
  exceedsLambdaMax: boolean;
  /** The stack's timeout ÷ margin. */
  targetMs: number;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const sum = (xs: Record<string, { count: number }>) => Object.values(xs).reduce((n, x) => n + x.count, 0);
const list = (xs: number[]) => xs.join(', ');

export function digestRunRows(d: DigestRunResult): Row[] {
  const worst = d.runs.find((r) => r.lambdaMs === d.worstLambdaMs)!;
  return [
    {
      metric: `digest run ${d.digests} × ${d.recipientsPerDigest} recipients as Lambda (${d.memoryMb} MB): estimate, worst of ${d.runs.length}`,
      value: d.worstLambdaMs,
      unit: 'ms',
      target: d.targetMs,
      ...(d.exceedsLambdaMax
        ? { failure: `× ${d.margin} exceeds Lambda's 900 s: no timeout fits, the run must get shorter` }
        : {}),
      detail:
        `wall + CPU × (1/${d.lambdaVcpu} − 1); median ${d.medianLambdaMs} ms; wall ${list(d.runs.map((r) => r.wallMs))} ms, ` +
        `CPU ${list(d.runs.map((r) => r.cpuMs))} ms; ${worst.emails} emails (${worst.ownerNotices} owner notices), ` +
        `${sum(worst.calls.service)} service calls; suggested timeout ${d.suggestedTimeoutSeconds} s ` +
        `(worst × ${d.margin}, whole minutes); the stack's ${d.timeoutSeconds} s ÷ ${d.margin} is the target`,
    },
  ];
}

export function digestRunNotes(d: DigestRunResult): string {
  const worst = d.runs.find((r) => r.lambdaMs === d.worstLambdaMs)!;
  const c = worst.calls;
  const kinds = (xs: Record<string, { count: number; meanMs: number }>) =>
    Object.entries(xs)
      .sort(([, a], [, b]) => b.count - a.count)
      .map(([k, x]) => `${k} ${x.count} × ${x.meanMs} ms`)
      .join(', ');
  const session = Object.entries(c.service).filter(([k]) => /auth|csrf/.test(k));
  const reports = Object.entries(c.service).filter(([k]) => !/auth|csrf/.test(k));
  const calls = (xs: [string, { count: number; meanMs: number }][]) => {
    const n = xs.reduce((t, [, x]) => t + x.count, 0);
    return `${n} × ${(xs.reduce((t, [, x]) => t + x.count * x.meanMs, 0) / n).toFixed(1)} ms`;
  };
  const l = d.latencyMs;
  const verdict = d.exceedsLambdaMax
    ? `no timeout fits: × ${d.margin} is beyond Lambda's 900 s, so the run must get shorter (see what dominates above)`
    : d.worstLambdaMs <= d.targetMs
      ? `met: the stack's ${d.timeoutSeconds} s (${d.timeoutSource}) leaves the margin`
      : `not met: the stack's ${d.timeoutSeconds} s (${d.timeoutSource}) is short of it; set the digest's timeout to ${d.suggestedTimeoutSeconds} s`;
  return `- **Digest run, worst hour** (bench/digest-run.ts): one scheduled run that sends a whole week's digests,
  ${d.digests} digests × ${d.recipientsPerDigest} recipients (the config of test/infra/config-delivery.test.ts \`manyRecipients()\`,
  ${d.products} products each, the emulator's with ${d.clients} clients), everyone and every schedule in ${d.timeZone}, Monday 00:00, so all are
  due. The handler bundled like the construct bundles it (${d.jsKb} KB of JS) with the compiled templates, the chart
  assets and its part of the config beside it, in a fresh process with the stack's environment and NODE_OPTIONS
  (\`${d.nodeOptions}\`) that imports it and calls \`handler({}, context)\` once. The peers in another
  process, fresh per run: the emulator, dynalite, s3rver, the SMTP sink (\`startLocalPeers\`) and a Secrets Manager
  stub, each behind a proxy that adds a network's latency to every call and records it (bench/latency-proxy.ts):
  service +${l.service} ms per operation (the emulator's fault profile; sign-in and logout too), DynamoDB +${l.dynamodb} ms,
  S3 +${l.s3} ms and Secrets Manager +${l.secretsManager} ms per request (in-region), mail +${l.mail} ms per message (SES answers a
  SendEmail in 50–100 ms; the SMTP proxy holds the answer to the message's data, and hands the function
  connections to the sink already greeted, since smtp-server holds every greeting 100 ms and the function opens a
  connection per message). The peers' own time comes on top (the calls' means below).
- Estimate for Lambda: wall + CPU × (1/${d.lambdaVcpu} − 1): at ${d.memoryMb} MB the function gets about ${d.lambdaVcpu} vCPU, this machine
  a full core, and every CPU second is taken to be on the run's critical path. Runs (wall / CPU / estimate; the
  main thread's wait for a core, load average at start → end): ${d.runs
    .map(
      (r) =>
        `${s(r.wallMs)} / ${s(r.cpuMs)} / ${s(r.lambdaMs)} (${r.runQueueWaitMs === null ? '?' : s(r.runQueueWaitMs)}, ${r.loadAverage.join(' → ')})`,
    )
    .join('; ')}. A wait for a core is other processes on this machine taking it (Lambda's share has none), so it
  makes the estimate pessimistic. Median ${s(d.medianLambdaMs)}, worst ${s(d.worstLambdaMs)};
  × ${d.margin} → suggested timeout **${d.suggestedTimeoutSeconds} s**${d.exceedsLambdaMax ? ' (capped at 900 s)' : ''}. Target (estimate ≤ timeout ÷ ${d.margin}): ${verdict}.
  Every recipient got exactly one email (${worst.emails} messages, ${worst.ownerNotices} owner notices), so each figure is of a
  complete run. Init (import of the bundle, not in the run): ${list(d.runs.map((r) => r.initMs))} ms. Peak RSS
  ${list(d.runs.map((r) => r.peakRssMb))} MB of ${d.memoryMb}.
- Where the time goes (the worst run, ${s(worst.wallMs)} wall): waiting on the service ${s(worst.waitMs.service)},
  the ledger ${s(worst.waitMs.dynamodb)}, mail ${s(worst.waitMs.mail)}, the archive ${s(worst.waitMs.s3)}, Secrets Manager
  ${s(worst.waitMs.secretsManager)}; on nothing (the function's own work) ${s(worst.localMs)}, with ${s(worst.cpuMs)} of CPU
  (event loop busy ${Math.round(worst.eventLoopUtilization * 100)} %). Preparing the digests (from one digest's last send to the next one's
  first: ledger reads, sign-in, reports, charts, email and page, archive) ${s(worst.prepare.wallMs)} in all, ${s(worst.prepare.medianMs)} per
  digest (median), ${s(worst.prepare.localMs)} of it local work; sending ${s(worst.sending.wallMs)}, ${worst.sending.perRecipientMs} ms per recipient
  (suppression read, claim, send, complete, one after another), ${s(worst.sending.localMs)} of it local work. Calls (count × mean at the proxy,
  latency included): service ${sum(c.service)} (reports ${calls(reports)}, request-csrf, sign-in and logout
  ${calls(session)}); DynamoDB ${kinds(c.dynamodb)}; S3 ${kinds(c.s3)};
  Secrets Manager ${kinds(c.secretsManager)}; mail ${kinds(c.mail)}. So the sending dominates: every recipient waits
  for the one before, and before each digest its ${d.recipientsPerDigest} ledger records are read one by one; the CPU is mostly the
  charts (PNG re-encoding; \`DIGEST_RUN_CPU_PROF=<dir>\` writes a V8 profile of each run, with the bundle's source map).
`;
}
