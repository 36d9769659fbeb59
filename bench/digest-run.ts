/**
 * The digest Lambda's worst scheduled run, measured to size its timeout (`node bench/digest-run.ts [runs]`, run by
 * bench/run.ts; readable lines on stderr, one JSON line last, `DigestRunResult`).
 *
 * The worst case: a week's digests all due in the same hour — 20 digests × 50 recipients (the config
 * test/infra/config-delivery.test.ts `manyRecipients()` builds from examples/pulse.production.json: each digest the
 * example's first, two products), every recipient and every schedule in one zone (UTC, Monday 00:00, so all are due
 * whenever the bench runs and the week is complete in UTC, as the bundled-handler tests do), one run sending all
 * 1,000 emails.
 *
 * As the function runs it: functions/digest/handler.ts bundled with the construct's build options
 * (bench/lambda-bundle.ts), beside it what the stack ships (the committed compiled templates, the chart renderer's
 * wasm and fonts in chart-assets/, the function's part of the config as pulse.config.json: lib/function-config.ts),
 * the stack's environment for it and NODE_OPTIONS for its 1024 MB (lib/constructs/node-options.ts). Each run is a
 * fresh process (bench/digest-run-invoke.ts) that imports the bundle and calls `handler({}, context)` once: a cold
 * container's scheduled run.
 *
 * Its peers run in another process, fresh per run (an empty ledger and bucket), `startLocalPeers`
 * (src/adapters/local/local-peers.ts): the emulator (seed 7, 5000 clients; the products are its first two, with their
 * names), dynalite for the ledger, s3rver for the archive, the SMTP sink for mail, and a stub for Secrets Manager's
 * GetSecretValue (test/helpers/aws-json-stub.ts; the function reads the service credentials at every sign-in). The
 * latencies added, each to one call's round trip (bench/latency-proxy.ts; the emulator's own by its fault profile):
 * - Reporting Service +100 ms on every operation (sign-in and logout too): the figure the client and digest benches
 *   use for a service on the internet, TLS on a kept-alive connection;
 * - DynamoDB +10 ms per call: single-digit-millisecond service time in the function's region plus the round trip;
 * - S3 +20 ms per request: a small PutObject in-region takes a few tens of milliseconds;
 * - Secrets Manager +20 ms per GetSecretValue, in-region like S3;
 * - mail +80 ms per message, added to the answer to the end of its data (whatever the SMTP dialogue around it): in
 *   AWS the transport is SES, one SendEmail call per message, which answers in 50–100 ms (the proxy also hides
 *   smtp-server's 100 ms greeting delay, which SES has no equivalent of: bench/latency-proxy.ts).
 * The peers' own time (dynalite, s3rver, the sink parsing each message) comes on top of these: a little pessimistic.
 * The proxies record every call, so the run's wall time can be laid out by what it waited on.
 *
 * Lambda at 1024 MB gets about 0.58 vCPU (a full vCPU at 1769 MB); this machine gives the process a full core. The
 * estimate for Lambda is wall + CPU × (1/0.58 − 1): every CPU second the process spent takes 1/0.58 s there, and none
 * of it is assumed to hide behind a wait (pessimistic where the CPU overlapped a wait, e.g. V8's collector threads).
 * Target: the worst estimate within the timeout the stack sets ÷ 1.5 (the timeout: `DIGEST_TIMEOUT_SECONDS` from
 * lib/stacks/function-memory.ts when it exports one, else the PulseFunction default of 300 s). Suggested timeout:
 * the worst estimate × 1.5, rounded up to whole minutes, at most Lambda's 900 s.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { functionConfig } from '../lib/function-config.ts';
import * as functionMemory from '../lib/stacks/function-memory.ts';
import { CHART_ASSET_FILES } from '../src/charts/assets.ts';
import { parseConfig } from '../src/config/load.ts';
import type { InvokeResult } from './digest-run-invoke.ts';
import { type DigestRunResult, type DigestRunRun, mapPeers, PEERS, type PeerCalls } from './digest-run-results.ts';
import { bundleLikeLambda, FUNCTION_MEMORY_MB, lambdaNodeOptions } from './lambda-bundle.ts';
import type { LatencyProxy, ProxyCall } from './latency-proxy.ts';
import { benchScript, median, round } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PRODUCTION_EXAMPLE = join(ROOT, 'examples/pulse.production.json');
/** Inside node_modules, so the bundle finds the AWS SDK it leaves external, as the Lambda finds the runtime's. */
const DIR = join(ROOT, 'node_modules/.cache/pulse-bench-digest-run');
const TEMPLATES = ['digest', 'digest-report', 'failure-notice'];
/** `node bench/digest-run.ts [runs]`: 3 unless told (a run takes minutes). */
const RUNS = Number(process.argv[2]) > 0 ? Number(process.argv[2]) : 3;
const DIGESTS = 20;
const RECIPIENTS = 50;
const ZONE = 'UTC';
const CLIENTS = 5000;
/** Added to each call's round trip (the opening comment says why these). */
export const LATENCY_MS = { service: 100, dynamodb: 10, s3: 20, secretsManager: 20, mail: 80 } as const;
/** Lambda's CPU share at the function's memory: 1 vCPU at 1769 MB. */
export const LAMBDA_VCPU = 0.58;
export const MARGIN = 1.5;
export const LAMBDA_MAX_TIMEOUT_S = 900;
const DEFAULT_TIMEOUT_S = 300;
const REGION = 'us-east-1';
const SECRET_NAME = 'pulse/reporting-service';
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:${SECRET_NAME}-AbCdEf`;

/** The digest function's timeout: lib's constant once there is one, else the PulseFunction default. */
function stackTimeout(): { seconds: number; source: string } {
  const exported = (functionMemory as Record<string, unknown>).DIGEST_TIMEOUT_SECONDS;
  return typeof exported === 'number'
    ? { seconds: exported, source: 'DIGEST_TIMEOUT_SECONDS in lib/stacks/function-memory.ts' }
    : { seconds: DEFAULT_TIMEOUT_S, source: 'the PulseFunction default; lib has no DIGEST_TIMEOUT_SECONDS yet' };
}

/** What the peers process tells the bench when it is ready. */
interface PeersInfo {
  serviceUrl: string;
  origin: string;
  headerPrefix: string;
  products: { id: string; name: string }[];
  dynamodbUrl: string;
  s3Url: string;
  secretsManagerUrl: string;
  smtp: { host: string; port: number };
  tableName: string;
  bucket: string;
}

/** What it answers to `stats` after a run. */
interface PeersStats {
  calls: PeerCalls;
  /** Each message the sink took: its recipients. */
  mail: string[][];
}

// ——— the peers process ———

async function servePeers(): Promise<void> {
  const { startLocalPeers } = await import('../src/adapters/local/local-peers.ts');
  const { getSecretValue, startAwsJsonStub } = await import('../test/helpers/aws-json-stub.ts');
  const { startDelayingHttpProxy, startDelayingSmtpProxy } = await import('./latency-proxy.ts');
  const workDir = mkdtempSync(join(tmpdir(), 'pulse-bench-digest-run-'));
  const peers = await startLocalPeers({
    workDir,
    emulator: { clients: CLIENTS, seed: 7, maxSessionsPerUser: 5 },
  });
  const emu = peers.emulator;
  emu.faults.set({ rules: [{ latencyMs: LATENCY_MS.service }] });
  const secrets = await startAwsJsonStub({
    'secretsmanager.GetSecretValue': getSecretValue(new Map([[SECRET_ARN, JSON.stringify(emu.credentials)]])),
  });
  const target = (h: Record<string, string | string[] | undefined>) => String(h['x-amz-target'] ?? '?').split('.')[1]!;
  const proxies: Record<keyof PeerCalls, LatencyProxy> = {
    // No latency of its own: the emulator's profile adds it, after routing the call.
    service: await startDelayingHttpProxy(
      emu.baseUrl,
      0,
      (method, path) => `${method} ${path.split('?')[0]!.replace(/\/\d+(?=\/|$)/g, '/:id')}`,
    ),
    dynamodb: await startDelayingHttpProxy(peers.dynamodbEndpoint, LATENCY_MS.dynamodb, (_m, _p, h) => target(h)),
    s3: await startDelayingHttpProxy(peers.s3Endpoint, LATENCY_MS.s3, (method) => method),
    secretsManager: await startDelayingHttpProxy(secrets.url, LATENCY_MS.secretsManager, (_m, _p, h) => target(h)),
    mail: await startDelayingSmtpProxy(peers.smtp.host, peers.smtp.port, LATENCY_MS.mail),
  };
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await Promise.allSettled([...Object.values(proxies).map((p) => p.close()), secrets.close()]);
      await peers.close();
      rmSync(workDir, { recursive: true, force: true });
    })());
  process.on('message', (m) => {
    if (m === 'stats') {
      const calls = mapPeers(proxies, (p) => p.calls());
      const stats: PeersStats = { calls, mail: peers.sink.messages().map((s) => s.to) };
      process.send!(stats);
    } else if (m === 'stop') void close().then(() => process.exit(0));
  });
  // However the bench ends, the peers end with it.
  process.on('disconnect', () => void close().then(() => process.exit(0)));
  const info: PeersInfo = {
    serviceUrl: proxies.service.url,
    origin: emu.origin,
    headerPrefix: emu.headerPrefix,
    products: emu.products.slice(0, 2).map((p) => ({ id: p.productId, name: p.productName })),
    dynamodbUrl: proxies.dynamodb.url,
    s3Url: proxies.s3.url,
    secretsManagerUrl: proxies.secretsManager.url,
    smtp: { host: proxies.mail.host, port: proxies.mail.port },
    tableName: peers.tableName,
    bucket: peers.bucket,
  };
  process.send!(info);
}

interface Peers {
  info: PeersInfo;
  stats(): Promise<PeersStats>;
  stop(): Promise<void>;
}

function startPeers(): Promise<Peers> {
  const child: ChildProcess = fork(benchScript('digest-run'), ['peers'], { stdio: ['ignore', 2, 2, 'ipc'] });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`digest-run peers exited (${code}) before they were ready`)));
    void next<PeersInfo>().then((info) =>
      resolve({
        info,
        stats: () => {
          const answer = next<PeersStats>();
          child.send('stats');
          return answer;
        },
        stop: async () => {
          child.send('stop');
          await exited;
        },
      }),
    );
  });
}

// ——— the function as the stack ships it ———

/** The 20 × 50 config (like `manyRecipients()`), on the peers, everyone in one zone and due. */
function benchConfig(info: PeersInfo) {
  const raw = JSON.parse(readFileSync(PRODUCTION_EXAMPLE, 'utf8'));
  const digest = raw.digests[0];
  raw.service = { ...raw.service, baseUrl: info.serviceUrl, origin: info.origin, headerPrefix: info.headerPrefix };
  raw.products = info.products;
  raw.mail = { ...raw.mail, transport: { kind: 'smtp', host: info.smtp.host, port: info.smtp.port } };
  raw.digests = Array.from({ length: DIGESTS }, (_, d) => ({
    ...digest,
    id: `digest-${d}`,
    productIds: info.products.map((p) => p.id),
    // Due from Monday 00:00 all week; in UTC the week just ended is complete in the service's days too.
    schedule: { day: 'monday', time: '00:00', timeZone: ZONE },
    recipients: Array.from({ length: RECIPIENTS }, (_, r) => ({
      address: `recipient-${d}-${r}@example.com`,
      name: `Recipient ${d}/${r}`,
      timeZone: ZONE,
    })),
  }));
  return parseConfig(raw, `${DIGESTS}×${RECIPIENTS}`);
}

/** The function's environment as the stack sets it, with Lambda's runtime variables and the SDK on the peers. */
function lambdaEnv(info: PeersInfo): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TZ: 'UTC',
    LAMBDA_TASK_ROOT: DIR,
    _HANDLER: 'index.handler',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: 'Pulse-Digest',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(FUNCTION_MEMORY_MB.digest),
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_S3: info.s3Url,
    AWS_ENDPOINT_URL_DYNAMODB: info.dynamodbUrl,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: info.secretsManagerUrl,
    // s3rver answers no flexible checksums.
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    // The stack's (lib/stacks/pulse-stack.ts addDigest, PulseFunction), /var/task being DIR.
    PULSE_JOB: 'digest',
    PULSE_CONFIG_FILE: join(DIR, 'pulse.config.json'),
    PULSE_STATE_TABLE: info.tableName,
    PULSE_ARCHIVE_BUCKET: info.bucket,
    PULSE_SERVICE_SECRET_ARN: SECRET_ARN,
    PULSE_TEMPLATES_DIR: join(DIR, 'templates'),
    PULSE_CHART_ASSETS_DIR: join(DIR, 'chart-assets'),
    NODE_OPTIONS: lambdaNodeOptions(FUNCTION_MEMORY_MB.digest).join(' '),
  };
}

async function buildAsset(): Promise<number> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(join(DIR, 'templates'), { recursive: true });
  mkdirSync(join(DIR, 'chart-assets'), { recursive: true });
  const jsKb = await bundleLikeLambda(join(ROOT, 'functions/digest/handler.ts'), join(DIR, 'index.mjs'));
  for (const t of TEMPLATES) copyFileSync(join(ROOT, `templates/compiled/${t}.html`), join(DIR, `templates/${t}.html`));
  for (const [name, from] of Object.entries(CHART_ASSET_FILES))
    copyFileSync(join(ROOT, from), join(DIR, 'chart-assets', name));
  return jsKb;
}

/** Runs the container to its end: its result line, and the `sent` log lines' times per digest. */
function invoke(env: Record<string, string>, timeoutSeconds: number) {
  const child = spawn(process.execPath, [benchScript('digest-run-invoke'), DIR, String(timeoutSeconds)], {
    env,
    cwd: DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  // Well past Lambda's longest timeout: a hung run fails the bench instead of holding it.
  const kill = setTimeout(() => child.kill('SIGKILL'), (LAMBDA_MAX_TIMEOUT_S + 300) * 1000);
  return new Promise<{ run: InvokeResult; sent: Map<string, number[]> }>((resolve, reject) => {
    child.once('exit', (code) => {
      clearTimeout(kill);
      const lines = out.trim().split('\n');
      if (code !== 0) return reject(new Error(`digest-run-invoke exited with ${code}\n${err.slice(-4000)}`));
      const sent = new Map<string, number[]>();
      for (const line of lines.slice(0, -1)) {
        if (!line.startsWith('{')) continue;
        const log = JSON.parse(line) as { message?: string; key?: string; timestamp?: string };
        const digest = log.message === 'sent' ? /^digest#([^#]+)#/.exec(log.key ?? '')?.[1] : undefined;
        if (digest === undefined || log.timestamp === undefined) continue;
        sent.set(digest, [...(sent.get(digest) ?? []), Date.parse(log.timestamp)]);
      }
      resolve({ run: JSON.parse(lines.at(-1)!) as InvokeResult, sent });
    });
  });
}

// ——— where the time went ———

/** How long within [from, to] at least one of `calls` was in flight. */
export function busyMs(calls: ProxyCall[], from: number, to: number): number {
  const spans = calls
    .map(([s, e]) => [Math.max(s, from), Math.min(e, to)] as const)
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [cs, ce] = [0, 0];
  for (const [s, e] of spans) {
    if (s > ce) {
      total += ce - cs;
      [cs, ce] = [s, e];
    } else ce = Math.max(ce, e);
  }
  return total + (ce - cs);
}

const countBy = (calls: ProxyCall[]) => {
  const out: Record<string, { count: number; meanMs: number }> = {};
  for (const [s, e, kind] of calls) {
    out[kind] ??= { count: 0, meanMs: 0 };
    const k = out[kind];
    k.meanMs += (e - s - k.meanMs) / ++k.count;
  }
  for (const k of Object.values(out)) k.meanMs = round(k.meanMs, 1);
  return out;
};

function analyse(
  loadAverage: [number, number],
  run: InvokeResult,
  sent: Map<string, number[]>,
  stats: PeersStats,
  addresses: string[],
  owners: Set<string>,
): DigestRunRun {
  const result = run.result as { ok?: boolean; counts?: { sent?: number }; errors?: string[] } | null;
  if (run.error || !result?.ok)
    throw new Error(
      `the digest run failed: ${run.error ?? JSON.stringify(result?.errors?.slice(0, 3) ?? result)} (${result?.errors?.length ?? 0} errors)`,
    );
  // Every recipient got exactly one email, so the figure is of a complete run.
  const got = new Map<string, number>();
  let ownerNotices = 0;
  for (const to of stats.mail)
    for (const a of to) {
      if (owners.has(a)) ownerNotices++;
      else got.set(a, (got.get(a) ?? 0) + 1);
    }
  const missing = addresses.filter((a) => got.get(a) !== 1);
  if (missing.length > 0 || got.size !== addresses.length || result.counts?.sent !== addresses.length)
    throw new Error(
      `incomplete run: ${result.counts?.sent} sent, ${got.size} recipients reached, ${missing.length} without exactly one email (${missing.slice(0, 3).join(', ')})`,
    );
  const { startedAt: from, endedAt: to } = run;
  const within = (calls: ProxyCall[]) => calls.filter(([s, e]) => e > from && s < to);
  const calls = mapPeers(stats.calls, within);
  const all = PEERS.flatMap((p) => calls[p]);
  const waitMs = mapPeers(calls, (c) => busyMs(c, from, to));
  // Per digest, from its `sent` lines: preparing it (from the one before's last send to its first) and sending.
  const digests = [...sent.values()].map((ts) => [Math.min(...ts), Math.max(...ts), ts.length] as const);
  digests.sort((a, b) => a[0] - b[0]);
  const prepare = digests.map(([first], i) => [i === 0 ? from : digests[i - 1]![1], first] as const);
  const sending = digests.map(([first, last]) => [first, last] as const);
  const phase = (spans: (readonly [number, number])[]) => {
    const wallMs = spans.reduce((n, [a, b]) => n + (b - a), 0);
    const idle = spans.reduce((n, [a, b]) => n + (b - a) - busyMs(all, a, b), 0);
    const waitMs = mapPeers(calls, (c) => spans.reduce((n, [a, b]) => n + busyMs(c, a, b), 0));
    return { wallMs, localMs: idle, waitMs };
  };
  const cpuMs = run.cpuUserMs + run.cpuSystemMs;
  return {
    wallMs: run.wallMs,
    cpuMs,
    cpuUserMs: run.cpuUserMs,
    cpuSystemMs: run.cpuSystemMs,
    lambdaMs: Math.round(run.wallMs + cpuMs * (1 / LAMBDA_VCPU - 1)),
    initMs: run.initMs,
    initCpuMs: run.initCpuMs,
    runQueueWaitMs: run.runQueueWaitMs,
    loadAverage,
    eventLoopUtilization: run.eventLoopUtilization,
    peakRssMb: run.peakRssMb,
    emails: stats.mail.length,
    ownerNotices,
    calls: mapPeers(calls, countBy),
    waitMs,
    localMs: run.wallMs - busyMs(all, from, to),
    prepare: { ...phase(prepare), medianMs: median(prepare.map(([a, b]) => b - a)) },
    sending: {
      ...phase(sending),
      perRecipientMs: round(median(digests.map(([a, b, n]) => (b - a) / Math.max(1, n - 1))), 1),
    },
  };
}

// ——— the bench ———

async function orchestrate(): Promise<DigestRunResult> {
  const timeout = stackTimeout();
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const jsKb = await buildAsset();
  const runs: DigestRunRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    const peers = await startPeers();
    try {
      const config = benchConfig(peers.info);
      const part = functionConfig('digest', config, SECRET_NAME);
      writeFileSync(join(DIR, 'pulse.config.json'), `${JSON.stringify(part, null, 2)}\n`);
      const addresses = config.digests.flatMap((d) => d.recipients.map((r) => r.address));
      const owners = new Set(config.digests.map((d) => d.owner));
      const env = lambdaEnv(peers.info);
      // `DIGEST_RUN_CPU_PROF=<dir>`: a V8 CPU profile of each run there, to see where its CPU goes.
      if (process.env.DIGEST_RUN_CPU_PROF)
        env.NODE_OPTIONS += ` --cpu-prof --cpu-prof-dir=${process.env.DIGEST_RUN_CPU_PROF}`;
      const loadBefore = round(loadavg()[0]!);
      const { run, sent } = await invoke(env, timeout.seconds);
      const loadAfter = round(loadavg()[0]!);
      const r = analyse([loadBefore, loadAfter], run, sent, await peers.stats(), addresses, owners);
      runs.push(r);
      log(
        `  run ${i + 1}: wall ${r.wallMs} ms, CPU ${r.cpuMs} ms → Lambda ~${r.lambdaMs} ms; ${r.emails} emails; ` +
          `waiting on service ${r.waitMs.service}, ledger ${r.waitMs.dynamodb}, archive ${r.waitMs.s3}, mail ${r.waitMs.mail} ms, ` +
          `none ${r.localMs} ms; waiting for a core ${r.runQueueWaitMs} ms (load ${r.loadAverage.join(' → ')}); peak RSS ${r.peakRssMb} MB`,
      );
    } finally {
      await peers.stop();
    }
  }
  // The profiles' positions are in the minified bundle: its source map goes with them.
  if (process.env.DIGEST_RUN_CPU_PROF)
    copyFileSync(join(DIR, 'index.mjs.map'), join(process.env.DIGEST_RUN_CPU_PROF, 'index.mjs.map'));
  rmSync(DIR, { recursive: true, force: true });
  const lambda = runs.map((r) => r.lambdaMs);
  const worstLambdaMs = Math.max(...lambda);
  const needed = (worstLambdaMs / 1000) * MARGIN;
  const suggestedTimeoutSeconds = Math.min(LAMBDA_MAX_TIMEOUT_S, Math.ceil(needed / 60) * 60);
  return {
    digests: DIGESTS,
    recipientsPerDigest: RECIPIENTS,
    timeZone: ZONE,
    products: 2,
    clients: CLIENTS,
    latencyMs: LATENCY_MS,
    memoryMb: FUNCTION_MEMORY_MB.digest,
    nodeOptions: lambdaNodeOptions(FUNCTION_MEMORY_MB.digest).join(' '),
    jsKb,
    lambdaVcpu: LAMBDA_VCPU,
    margin: MARGIN,
    timeoutSeconds: timeout.seconds,
    timeoutSource: timeout.source,
    runs,
    medianWallMs: median(runs.map((r) => r.wallMs)),
    medianCpuMs: median(runs.map((r) => r.cpuMs)),
    medianLambdaMs: median(lambda),
    worstLambdaMs,
    suggestedTimeoutSeconds,
    exceedsLambdaMax: needed > LAMBDA_MAX_TIMEOUT_S,
    targetMs: Math.round((timeout.seconds * 1000) / MARGIN),
  };
}

const [command] = process.argv.slice(2);
if (command === 'peers') await servePeers();
else {
  const r = await orchestrate();
  process.stderr.write(
    `digest run, ${DIGESTS} × ${RECIPIENTS}: Lambda estimate median ${r.medianLambdaMs} ms, worst ${r.worstLambdaMs} ms; ` +
      `suggested timeout ${r.suggestedTimeoutSeconds} s${r.exceedsLambdaMax ? ' (CAPPED: the run needs more than Lambda allows)' : ''}; ` +
      `the stack's ${r.timeoutSeconds} s ÷ ${MARGIN} = ${r.targetMs} ms\n`,
  );
  console.log(JSON.stringify(r));
}
