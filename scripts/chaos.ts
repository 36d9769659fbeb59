/**
 * `npm run chaos`: randomized runs of the digest, the archive, the license alerts and report and the usage alerts
 * (`pulse start` or one job, `--local`) over one work directory kept across runs, each against the in-process emulator with a fault profile
 * drawn from the seed, some SIGKILLed at a drawn delay; the invariants (scripts/chaos/invariants.ts) are checked
 * after every run and, after one fault-free run, at the end of every epoch. Loopback only; bounded by --runs and
 * --minutes; the seed is printed first and the same seed draws the same jobs, profiles and kill delays.
 *
 * Epochs: runs are grouped (--epoch-runs, default 10); each epoch has its own archive prefix, digest id and title,
 * recipients and Slack, Teams and webhook channels and usage alert rules in the same work directory, so every epoch
 * archives, judges, sends and posts from scratch under faults, instead of only the first runs ever doing work.
 *
 * Writes its report to bench/CHAOS.md (or --report FILE); exit 1 when any invariant was violated.
 */
import { createHash, randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dayOfMs } from '../emulator/data/dates.ts';
import { Rng } from '../emulator/data/rng.ts';
import { listing } from '../emulator/families/files/catalog.ts';
import { FAMILIES } from '../emulator/families/files/families.ts';
import { fileBytes } from '../emulator/families/files/file-bytes.ts';
import { startEmulator } from '../emulator/index.ts';
import { LOCAL_CHANNEL_FAULTS_ENV, LOCAL_S3_PART_SIZE_ENV } from '../src/app/local-options.ts';
import { EXAMPLE_CONFIG } from '../src/app/local-runtime.ts';
import { EXIT } from '../src/cli/io.ts';
import { USAGE_ALERTS_SINCE_DAYS } from '../src/cli/start-command.ts';
import { readStateTable } from '../src/console/ledger-snapshot.ts';
import { addDays } from '../src/core/calendar.ts';
import { LICENSE_ALERT_PREFIX, LICENSE_FIRST_RUN_PREFIX } from '../src/core/delivery/ledger-keys.ts';
import type { ChannelKind } from '../src/ports/channels.ts';
import {
  checkArchiveEvents,
  checkChannelLedger,
  checkChannelPosts,
  type EpochChannels,
} from './chaos/channel-invariants.ts';
import { type ChildRun, type JobResult, runChild } from './chaos/child.ts';
import { drawFaults, FAULT_KINDS, type FaultKind, MULTIPART_PART_SIZE, WORK_FAULTS } from './chaos/faults.ts';
import {
  ChaosState,
  checkArchive,
  checkEmails,
  checkSecret,
  INVARIANTS,
  type Invariant,
  manifestsWithChannels,
} from './chaos/invariants.ts';
import { CHANNEL_FAULT_KINDS, PEER_FAULT_KINDS, PEER_FAULTS_ENV } from './chaos/peer-faults.ts';
import {
  checkUsageAlertPosts,
  checkUsageAlertStates,
  checkUsageAlertsTold,
  type JudgedChange,
} from './chaos/usage-alert-invariants.ts';
import { type EpochUsageAlerts, usageAlertRules, usageAlertSeed } from './chaos/usage-alerts.ts';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    minutes: { type: 'string', default: '30' },
    seed: { type: 'string' },
    'work-dir': { type: 'string' },
    report: { type: 'string' },
    'epoch-runs': { type: 'string', default: '10' },
    'kill-share': { type: 'string', default: '0.25' },
    clients: { type: 'string', default: '2000' },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  process.stdout.write(`Usage: npm run chaos -- [--runs 200] [--minutes 30] [--seed S] [--work-dir DIR] [--report FILE]
  [--epoch-runs 10] [--kill-share 0.25] [--clients 2000] [--quiet]
Randomized pulse runs under seeded faults and kills over one work dir; invariants checked after each run.
--minutes stops starting new runs after it; the report goes to bench/CHAOS.md unless --report; exit 1 on a violation.
`);
  process.exit(0);
}

const positive = (name: string, text: string | undefined): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0) {
    process.stderr.write(`chaos: --${name} must be a number ≥ 0\n`);
    process.exit(2);
  }
  return n;
};
const RUNS = positive('runs', flags.runs);
const MINUTES = positive('minutes', flags.minutes);
const SEED = flags.seed === undefined ? randomInt(1, 2 ** 31 - 1) : Math.trunc(positive('seed', flags.seed));
const EPOCH_RUNS = Math.max(1, positive('epoch-runs', flags['epoch-runs']));
const KILL_SHARE = positive('kill-share', flags['kill-share']);
const CLIENTS = positive('clients', flags.clients);
const REPORT = resolve(flags.report ?? new URL('../bench/CHAOS.md', import.meta.url).pathname);
const WORK_DIR = resolve(flags['work-dir'] ?? mkdtempSync(join(tmpdir(), 'pulse-chaos-')));
/** A run that outlives this is SIGKILLed and counted as hung. */
const RUN_LIMIT_MS = 180_000;
const BUCKET = 'pulse-archive';
const PEER_FAULTS = fileURLToPath(new URL('./chaos/peer-faults.ts', import.meta.url));
const CHAOS_PRODUCT = '9876543210';

const say = (line: string) => {
  if (!flags.quiet) process.stdout.write(`${line}\n`);
};
process.stdout.write(`chaos seed ${SEED}\nchaos work dir ${WORK_DIR}\n`);

const rng = new Rng(SEED);
const started = Date.now();
const deadline = started + MINUTES * 60_000;
const today = new Date().toISOString().slice(0, 10);
// A data set whose planted episodes are in the chaos product (chaos/usage-alerts.ts), for the usage alert rules.
const emulatorOptions = { seed: usageAlertSeed(rng.int(1, 1000), today, CHAOS_PRODUCT), clients: CLIENTS, today };
/** `--since` of the usage alert runs, as `pulse start` passes it: a first run tells the planted episodes. */
const USAGE_ALERTS_SINCE = addDays(today, -USAGE_ALERTS_SINCE_DAYS);
const CHAOS_DIR = join(WORK_DIR, '..', `${WORK_DIR.split('/').pop()}-chaos`);
mkdirSync(CHAOS_DIR, { recursive: true });
mkdirSync(join(CHAOS_DIR, 'spool'), { recursive: true });

// What the service lists, and the SHA-256 of its bytes, from an emulator with the same data set; and its password.
const { expected, secret, episodes } = await (async () => {
  const emu = await startEmulator(emulatorOptions);
  try {
    const now = emu.clock.now();
    const out = new Map<string, string>();
    for (const pd of emu.state.products.values()) {
      for (const fam of Object.values(FAMILIES)) {
        const l = listing(pd, fam, dayOfMs(now), now);
        for (const f of [...l.daily, ...l.monthly]) {
          out.set(
            f.fileName,
            createHash('sha256')
              .update(fileBytes(pd, f, now))
              .digest('hex'),
          );
        }
      }
    }
    return { expected: out, secret: emu.credentials.password, episodes: emu.episodes };
  } finally {
    await emu.close();
  }
})();

interface Epoch {
  n: number;
  config: string;
  prefix: string;
  digestId: string;
  digestRecipients: string[];
  alertRecipients: string[];
  /** Its channels and the weekly subjects due in them (channel-invariants.ts). */
  channels: EpochChannels;
  /** The titles of its digest and license report (one chat post per title and week). */
  weeklyTitles: string[];
  /** Its usage alert rules and their recipients (chaos/usage-alerts.ts). */
  usageAlerts: EpochUsageAlerts;
}

/**
 * The bundled example config, with this epoch's prefix, digest id and title, recipients (`+e<n>` addresses) and
 * channels (`<id>-e<n>`: a channel delivery's ledger key is per subject and channel, and the license report's subject
 * is only its week, so new channels make every epoch post everything anew).
 */
function epochConfig(n: number): Epoch {
  const c = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
  delete c.$schema;
  const tag = (address: string) => address.replace('@', `+e${n}@`);
  const channel = (id: string) => `${id}-e${n}`;
  const prefix = `chaos-e${n}`;
  c.archive.prefix = prefix;
  // Shorter than the `timeout` fault's latency (faults.ts), so the client times out and retries.
  c.service.timeoutMs = 2000;
  // One product (the one with all three export kinds): half the files of the example's two, so runs stay short.
  c.products = [{ id: CHAOS_PRODUCT, name: 'Example Server' }];
  const d = c.digests[0];
  d.productIds = [CHAOS_PRODUCT];
  d.id = `exec-weekly-e${n}`;
  d.schedule.timeZone = 'UTC'; // the week that just ended is the service's too, whatever the hour
  for (const r of d.recipients) r.address = tag(r.address);
  d.owner = tag(d.owner);
  c.licenses.owner.address = tag(c.licenses.owner.address);
  for (const route of c.licenses.routing) for (const r of route.recipients) r.address = tag(r.address);
  // The CSV attachment (every alert, read back by the invariants) whenever an email holds more than one alert.
  c.licenses.maxKeysInEmail = 1;
  d.title = `Chaos digest e${n}`;
  const report = c.licenses.report;
  report.title = `Chaos license report e${n}`;
  report.schedule.timeZone = 'UTC';
  // Short posts: a `timeout` fault holds the answer back until the client gives up. Webhooks retry with backoff
  // (1 s base, doubling): 3 attempts of at most 1 s each keep a run under faults within seconds, not minutes.
  for (const ch of c.channels) {
    ch.id = channel(ch.id);
    ch.timeoutMs = ch.kind === 'webhook' ? 1000 : 2000;
    if (ch.kind === 'webhook') ch.maxAttempts = 3;
  }
  d.channels = d.channels.map(channel);
  for (const route of c.licenses.routing) if (route.channels) route.channels = route.channels.map(channel);
  report.channels = report.channels.map(channel);
  c.notices.channels = c.notices.channels.map(channel);
  // The example's usage rules name its other product: the epoch's own rules fire on the chaos product's episodes.
  const usage = usageAlertRules(n, episodes, {
    productId: CHAOS_PRODUCT,
    owner: c.licenses.owner.address,
    emails: [tag('product-ops@example.com'), tag('analyst@example.com')],
    channels: c.channels,
  });
  c.usageAlerts = { rules: usage.rules };
  // Every channel is told of each archive run here (the example tells its webhook only): chat under kills too.
  c.archive.channels = c.channels.map((ch: { id: string }) => ch.id);
  const config = join(CHAOS_DIR, `config-e${n}.json`);
  writeFileSync(config, JSON.stringify(c, null, 2));
  const owner = c.licenses.owner.address.toLowerCase();
  const digestRecipients = d.recipients.map((r: { address: string }) => r.address.toLowerCase());
  return {
    n,
    config,
    prefix,
    digestId: d.id,
    digestRecipients,
    alertRecipients: [
      owner,
      ...c.licenses.routing.flatMap((r: { recipients: { address: string }[] }) => r.recipients.map((x) => x.address)),
    ].map((a: string) => a.toLowerCase()),
    channels: {
      channels: new Map(c.channels.map((ch: { id: string; kind: ChannelKind }) => [ch.id, ch.kind])),
      weekly: [
        {
          prefix: `digest#${d.id}#`,
          emails: digestRecipients,
          channels: d.channels,
          webhookSubject: (week) => `digest.sent#${d.id}#${week}`,
        },
        {
          prefix: 'license-report#',
          emails: [owner],
          channels: report.channels,
          webhookSubject: (week) => `license.report#${week}`,
        },
      ],
    },
    weeklyTitles: [d.title, report.title],
    usageAlerts: usage.targets,
  };
}

const JOBS = ['start', 'digest', 'archive', 'licenses', 'report', 'usage-alerts'] as const;
type Job = (typeof JOBS)[number];
const jobArgs = (job: Job, epoch: Epoch): string[] => {
  const common = ['--config', epoch.config, '--work-dir', WORK_DIR, '--json'];
  if (job === 'start') return ['start', ...common];
  if (job === 'licenses') return ['licenses', 'alerts', '--local', ...common];
  if (job === 'report') return ['licenses', 'report', '--local', ...common];
  if (job === 'usage-alerts') return ['usage-alerts', '--local', '--since', USAGE_ALERTS_SINCE, ...common];
  return [job, '--local', ...common];
};
const childEnv = {
  PULSE_LOCAL_EMULATOR: JSON.stringify(emulatorOptions),
  TMPDIR: join(CHAOS_DIR, 'spool'),
};

const state = new ChaosState();
const stats = {
  runs: 0,
  closingRuns: 0,
  jobs: Object.fromEntries(JOBS.map((j) => [j, 0])) as Record<Job, number>,
  faults: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
  /** Peer and channel faults that fired, as the runs that exited by themselves reported them (peer-faults.ts). */
  fired: Object.fromEntries([...PEER_FAULT_KINDS, ...CHANNEL_FAULT_KINDS].map((k) => [k, 0])) as Record<string, number>,
  faultFree: 0,
  multipart: 0,
  kills: 0,
  killsDrawn: 0,
  hung: 0,
  exitCodes: {} as Record<string, number>,
  crashes: 0,
  counts: {} as Record<string, Record<string, number>>,
  /** Summed over the epochs' closing checks (channel-invariants.ts ChannelLedgerTally). */
  chatUnknownRecords: 0,
  chatUnknownPosted: 0,
  webhookPending: 0,
  /** Archive runs whose manifest names channels, checked told at the epochs' ends (checkArchiveEvents). */
  archiveRunsTold: 0,
  /** Usage alert changes judged and their deliveries by state, checked at the epochs' ends (checkUsageAlertsTold). */
  usageAlerts: { changes: 0, done: 0, unknown: 0, pending: 0 },
};
const STACK_FRAME = /^\s+at .+[:(]/m;
const ANSWERS = new Set<number>([EXIT.ok, EXIT.failure, EXIT.auth, EXIT.service, EXIT.network]);

/** Runs one child and checks what every run must keep; `closing` = the epoch's fault-free run. */
async function oneRun(epoch: Epoch, job: Job, faults: ReturnType<typeof drawFaults>, killAfterMs?: number) {
  const before = state.violations.length;
  const profile = join(CHAOS_DIR, 'faults.json');
  writeFileSync(profile, JSON.stringify(faults.profile));
  const args = [...jobArgs(job, epoch), ...(faults.profile.rules.length > 0 ? ['--faults', profile] : [])];
  const env = {
    ...childEnv,
    ...(faults.peer ? { [PEER_FAULTS_ENV]: JSON.stringify(faults.peer) } : {}),
    ...(faults.channel ? { [LOCAL_CHANNEL_FAULTS_ENV]: JSON.stringify(faults.channel) } : {}),
    ...(faults.multipart ? { [LOCAL_S3_PART_SIZE_ENV]: String(MULTIPART_PART_SIZE) } : {}),
  };
  // The preload plays the peers' faults and counts the channel sink's.
  const nodeArgs = faults.peer || faults.channel ? ['--import', PEER_FAULTS] : [];
  const run: ChildRun = await runChild(args, env, { killAfterMs, limitMs: RUN_LIMIT_MS, nodeArgs });
  if (run.killed) stats.kills++;
  if (run.hung) {
    stats.hung++;
    state.violate('no crash', `${job} hung: killed after ${RUN_LIMIT_MS} ms`);
  }
  const exit = run.killed || run.hung ? 'SIGKILL' : String(run.code ?? run.signal);
  stats.exitCodes[exit] = (stats.exitCodes[exit] ?? 0) + 1;
  // 0 ok, 1 a job failed or held something, 3–5 a named failure (auth incl. the session limit, service, network):
  // every one an answer. 2 (usage: the chaos config is valid), a signal or any other code is a crash.
  const badExit = !run.killed && !run.hung && !ANSWERS.has(run.code ?? -1);
  if (badExit) {
    const last = run.stderr.trim().split('\n').slice(-2).join(' | ');
    state.violate('no crash', `${job} exited ${run.code ?? run.signal}: ${last.slice(0, 400)}`);
  }
  for (const [k, n] of Object.entries(run.fired)) stats.fired[k] = (stats.fired[k] ?? 0) + n;
  const stack = STACK_FRAME.exec(run.stderr);
  if (stack) state.violate('no crash', `${job}: a stack trace on stderr: ${stack[0]}`);
  if (badExit || stack) stats.crashes++;
  for (const r of run.results) {
    const sum = stats.counts[r.job] ?? {};
    stats.counts[r.job] = sum;
    for (const [k, v] of Object.entries(r.counts)) if (typeof v === 'number') sum[k] = (sum[k] ?? 0) + v;
    if (r.job === 'digest') {
      for (const e of r.errors) {
        if (!/unknown|unconfirmed/i.test(e)) continue;
        for (const a of e.match(/[\w.+-]+@[\w.-]+\w/g) ?? []) state.digestsReported.add(a.toLowerCase());
      }
    }
  }
  await checkInvariants(epoch, [run.stdout, run.stderr]);
  if (job === 'start' || job === 'usage-alerts') await checkUsageAlerts(epoch);
  if (state.violations.length > before) {
    // What the run printed, beside the profile, for whoever looks into the violation.
    writeFileSync(join(CHAOS_DIR, `run-${state.run}.stdout`), run.stdout);
    writeFileSync(join(CHAOS_DIR, `run-${state.run}.stderr`), run.stderr);
    writeFileSync(join(CHAOS_DIR, `run-${state.run}.faults.json`), JSON.stringify(faults));
  }
  return run;
}

async function checkInvariants(epoch: Epoch, outputs: string[]): Promise<Set<string>> {
  await checkEmails(state, join(WORK_DIR, 'outbox'));
  await checkChannelPosts(state, join(WORK_DIR, 'outbox'));
  await checkSecret(state, secret, WORK_DIR, outputs);
  return checkArchive(state, join(WORK_DIR, 's3', BUCKET), epoch.prefix, expected);
}

/** After a run that judged the usage alerts: the stored states against the ledger, the chat posts against both. */
async function checkUsageAlerts(epoch: Epoch) {
  const table = await readStateTable(join(WORK_DIR, 'dynamodb'));
  checkUsageAlertStates(state, table.ledger, table.usageAlertStates, epoch.usageAlerts);
  checkUsageAlertPosts(state, table.ledger, epoch.usageAlerts);
  return table;
}

/** The changes a backtest of the epoch's rules finds from USAGE_ALERTS_SINCE on (what the live runs should tell). */
async function backtestUsageAlerts(epoch: Epoch): Promise<JudgedChange[] | undefined> {
  const args = ['usage-alerts', 'backtest', '--local', '--from', USAGE_ALERTS_SINCE];
  const run = await runChild([...args, '--config', epoch.config, '--work-dir', WORK_DIR, '--json'], childEnv, {
    limitMs: RUN_LIMIT_MS,
  });
  const result = run.results.find((r) => r.job === 'usage-alerts') as
    | (JobResult & { changes?: JudgedChange[] })
    | undefined;
  if (run.code !== EXIT.ok || !result?.changes) {
    const why = run.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 400);
    state.violate(
      'usage alerts: every judged change told or unknown',
      `e${epoch.n}: the backtest exited ${run.code}: ${why}`,
    );
    return undefined;
  }
  return result.changes;
}

/** The epoch's fault-free closing run, then the completeness invariants. */
async function closeEpoch(epoch: Epoch): Promise<void> {
  const before = state.violations.length;
  state.run++;
  stats.closingRuns++;
  const run = await oneRun(epoch, 'start', { kinds: [], multipart: false, profile: { rules: [] } });
  const archived = await checkInvariants(epoch, []);
  const table = await checkUsageAlerts(epoch);
  const ledger = table.ledger;
  const result = (job: string): JobResult | undefined => run.results.find((r) => r.job === job);

  // Archive: the closing run failed nothing, and every file its manifest lists is archived.
  const archive = result('archive');
  if (!archive)
    state.violate('archive: every listed file archived', `e${epoch.n}: the closing run has no archive result`);
  else {
    if (archive.counts.failed || archive.counts.rejected) {
      state.violate(
        'archive: every listed file archived',
        `e${epoch.n}: closing run ${JSON.stringify(archive.counts)}`,
      );
    }
    const manifestKey = archive.outputs.find((o) => o.includes('/manifests/'));
    if (manifestKey) {
      const path = join(WORK_DIR, 's3', BUCKET, `${manifestKey}._S3rver_object`);
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as { files: { fileName: string; outcome: string }[] };
      const listed = manifest.files.filter((f) => f.fileName.endsWith('.zip'));
      if (listed.length === 0) state.violate('archive: every listed file archived', `e${epoch.n}: nothing listed`);
      for (const f of listed) {
        if (!archived.has(f.fileName)) {
          state.violate('archive: every listed file archived', `e${epoch.n}: ${f.fileName} (${f.outcome})`);
        }
      }
    } else state.violate('archive: every listed file archived', `e${epoch.n}: the closing run wrote no manifest`);
    // And against the service itself: every file the emulator lists for the product (all its kinds are enabled).
    for (const name of expected.keys()) {
      if (name.startsWith(`${CHAOS_PRODUCT}_`) && !archived.has(name)) {
        state.violate('archive: every listed file archived', `e${epoch.n}: ${name} (listed by the service)`);
      }
    }
  }

  // Digest: every recipient has it in the outbox, or a run reported its delivery unknown / sent unconfirmed.
  const emails = [...state.emails.values()];
  for (const to of epoch.digestRecipients) {
    const sent = emails.some((e) => e.digest === epoch.digestId && !e.notice && e.to === to);
    if (!sent && !state.digestsReported.has(to)) {
      state.violate('email: every due digest sent or reported', `${epoch.digestId} to ${to}`);
    }
  }
  const digest = result('digest');
  if (digest && (digest.counts.failed || digest.counts.held)) {
    state.violate('email: every due digest sent or reported', `closing run ${JSON.stringify(digest.counts)}`);
  }

  // Alerts: the closing run failed none, and every alert the ledger records as emailed is in the outbox (the
  // closing run's counts also hold the alerts posted to channels: channel-invariants.ts checks those).
  const alerts = result('license-alerts');
  if (!alerts) state.violate('email: no missed alert', `e${epoch.n}: the closing run has no license alerts result`);
  else {
    const c = alerts.counts;
    const inOutbox = new Set(
      emails.flatMap((e) => e.alerts).filter((a) => epoch.alertRecipients.includes(a.slice(0, a.indexOf('#')))),
    );
    const done = (c.alertsSent ?? 0) + (c.alertsSkippedAlreadySent ?? 0);
    const emailed = ledger.filter(
      (i) =>
        i.state === 'done' &&
        i.key.startsWith(LICENSE_ALERT_PREFIX) &&
        !i.key.startsWith(LICENSE_FIRST_RUN_PREFIX) &&
        epoch.alertRecipients.includes(i.key.slice(i.key.lastIndexOf('#') + 1)),
    ).length;
    if (c.failed || c.alertsInProgressElsewhere) {
      state.violate('email: no missed alert', `e${epoch.n}: closing run ${JSON.stringify(c)}`);
    }
    if (inOutbox.size < emailed) {
      state.violate(
        'email: no missed alert',
        `e${epoch.n}: ${emailed} alerts recorded emailed, ${inOutbox.size} in the outbox`,
      );
    }
    if ((c.keysScanned ?? 0) > 0 && done + (c.alertsUnknown ?? 0) + (c.alertsConfirmed ?? 0) === 0) {
      state.violate('email: no missed alert', `e${epoch.n}: no alert sent at all`);
    }
  }
  // Usage alerts: the closing run failed none, and every change judged was told to every recipient (or is unknown).
  const usage = result('usage-alerts');
  if (!usage || usage.counts.failed) {
    state.violate(
      'usage alerts: every judged change told or unknown',
      `e${epoch.n}: closing run ${usage ? JSON.stringify(usage.counts) : 'has no usage alerts result'}`,
    );
  }
  const judged = await backtestUsageAlerts(epoch);
  if (judged) {
    const told = checkUsageAlertsTold(state, ledger, table.usageAlertStates, judged, epoch.usageAlerts);
    if (told.changes === 0)
      state.violate('usage alerts: every judged change told or unknown', `e${epoch.n}: no change judged`);
    for (const k of ['changes', 'done', 'unknown', 'pending'] as const) stats.usageAlerts[k] += told[k];
  }
  const tally = checkChannelLedger(state, ledger, epoch.channels);
  const manifests = await manifestsWithChannels(join(WORK_DIR, 's3', BUCKET), epoch.prefix);
  stats.archiveRunsTold += checkArchiveEvents(state, manifests, ledger, epoch.channels);
  stats.chatUnknownRecords += tally.chatUnknownRecords;
  stats.chatUnknownPosted += tally.chatUnknownPosted;
  stats.webhookPending += tally.webhookPending;
  say(`epoch ${epoch.n} closed: exit ${run.code}, ${state.violations.length} violations so far`);
  for (const v of state.violations.slice(before)) say(`  ${v.invariant}: ${v.detail}`);
}

let epoch: Epoch | undefined;
/** The jobs that ran to their end in this epoch (not killed, not stopped at sign-in): later runs find them done. */
let finished = new Set<Job>();
for (let i = 0; i < RUNS && Date.now() < deadline; i++) {
  const n = Math.floor(i / EPOCH_RUNS);
  if (!epoch || epoch.n !== n) {
    if (epoch) await closeEpoch(epoch);
    epoch = epochConfig(n);
    for (const t of epoch.weeklyTitles) state.weeklyTitles.add(t);
    finished = new Set();
  }
  const job = rng.weighted(JOBS, [4, 1, 2, 1, 1, 1]);
  // A run with work to do (its job, or one of start's, has not run to its end in this epoch yet) draws faults that
  // fire only where there is work (faults.ts).
  const atWork = job === 'start' ? JOBS.some((j) => j !== 'start' && !finished.has(j)) : !finished.has(job);
  const faults = drawFaults(rng, 0.1, atWork ? WORK_FAULTS[job] : []);
  const kill = rng.chance(KILL_SHARE) ? rng.int(300, 8000) : undefined;
  state.run++;
  stats.runs++;
  stats.jobs[job]++;
  if (faults.kinds.length === 0) stats.faultFree++;
  if (faults.multipart) stats.multipart++;
  for (const k of faults.kinds) stats.faults[k]++;
  if (kill !== undefined) stats.killsDrawn++;
  const before = state.violations.length;
  const run = await oneRun(epoch, job, faults, kill);
  const outcome = run.killed ? `killed at ${kill} ms` : run.hung ? 'hung' : `exit ${run.code}`;
  if (!run.killed && !run.hung && (run.code === EXIT.ok || run.code === EXIT.failure)) {
    for (const j of job === 'start' ? JOBS : [job]) finished.add(j);
  }
  say(
    `run ${state.run} e${n} ${job} [${faults.kinds.join(',') || 'no faults'}]${faults.multipart ? ' multipart' : ''} ` +
      `${outcome} in ${run.ms} ms` +
      Object.entries(run.fired)
        .map(([k, v], i) => `${i === 0 ? ', fired ' : ' '}${k}×${v}`)
        .join('') +
      (state.violations.length > before ? `, ${state.violations.length - before} VIOLATIONS` : ''),
  );
  for (const v of state.violations.slice(before)) say(`  ${v.invariant}: ${v.detail}`);
}
if (epoch) await closeEpoch(epoch);

const minutes = (Date.now() - started) / 60_000;
const posts = [...state.channelPosts.values()].filter((p) => !p.broken);
const postsOf = (kind: ChannelKind) => posts.filter((p) => p.kind === kind).length;
const webhookIds = new Set(posts.filter((p) => p.kind === 'webhook').map((p) => `${p.channel}#${p.id}`));
const byInvariant = new Map<Invariant, number>(INVARIANTS.map((i) => [i, 0]));
for (const v of state.violations) byInvariant.set(v.invariant, (byInvariant.get(v.invariant) ?? 0) + 1);
const table = (rows: [string, string | number][]) => rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n');
const report = `# Chaos

\`npm run chaos\` (scripts/chaos.ts): randomized runs of the digest, the archive, the license alerts, the license
report and the usage alerts against the in-process emulator with fault profiles drawn from the seed, some SIGKILLed at
a drawn delay, over one work directory kept across runs; the invariants are checked after every run and, after one
fault-free run, at the end of every epoch of ${EPOCH_RUNS} runs (each epoch its own archive prefix, digest id and
title, recipients, Slack, Teams and webhook channels and usage alert rules in the same work directory).

- Date: ${new Date().toISOString()}
- Seed: **${SEED}** (emulator data set ${JSON.stringify(emulatorOptions)})
- Runs: **${stats.runs}** randomized + ${stats.closingRuns} fault-free closing runs, in ${minutes.toFixed(1)} minutes
  (${(stats.runs / Math.max(minutes, 1e-9)).toFixed(1)} runs/minute; limits: --runs ${RUNS}, --minutes ${MINUTES})
- Jobs: ${JOBS.map((j) => `${j} ${stats.jobs[j]}`).join(', ')}
- Kills (SIGKILL): **${stats.kills}** (${stats.killsDrawn} drawn; a drawn kill after the process ended by itself is none)
- Crashes (exit 2, a signal or an unknown code, a stack trace, or hung; 0, 1 and the named failures 3–5 are
  answers): **${stats.crashes + stats.hung}**
- Archive uploads in ${MULTIPART_PART_SIZE / 1024} KiB parts (multipart, \`$${LOCAL_S3_PART_SIZE_ENV}\`): ${stats.multipart} runs
- Exit codes: ${Object.entries(stats.exitCodes)
  .map(([k, v]) => `${k}: ${v}`)
  .join(', ')}
- Channel posts the sinks took: ${postsOf('slack')} Slack, ${postsOf('teams')} Teams, ${postsOf('webhook')} webhook
  (${webhookIds.size} distinct webhook events: ${postsOf('webhook') - webhookIds.size} redeliveries under the same id)
- Chat posts taken but unknown to Pulse: **${stats.chatUnknownPosted}**, none posted again (a \`timeout\` or \`drop\`:
  the channel took the post and never answered; the ledger holds it as unknown); chat ledger records left unknown at
  the epochs' ends: ${stats.chatUnknownRecords} (a license alert batch counts one per alert); webhook deliveries still
  claimed by a killed run at an epoch's end (lease not over, taken over after it): ${stats.webhookPending}
- Archive runs told to every channel their manifest names (checked at the epochs' ends): ${stats.archiveRunsTold}
- Usage alert changes judged (a backtest of each epoch's rules, checked at its end): ${stats.usageAlerts.changes}, their
  deliveries (change × recipient) ${stats.usageAlerts.done} done, ${stats.usageAlerts.unknown} unknown, ${stats.usageAlerts.pending} still claimed by a killed run
- Invariant violations: **${state.violations.length}**

## Faults injected

Runs whose profile held the kind; for the peers' kinds also how often the fault fired (counted by the runs that exited
by themselves: a SIGKILLed run reports nothing).

| kind | runs | fired |
| --- | --- | --- |
${FAULT_KINDS.map((k) => `| ${k} | ${stats.faults[k]} | ${k in stats.fired ? stats.fired[k] : '—'} |`).join('\n')}
| (none: a fault-free run) | ${stats.faultFree} | |

Service and download faults go through the emulator's fault profile (\`--faults\`; \`sessionLimit\` is its
\`heldSessions\` rule: another tool holds all 5 of the user's sessions, from the start or from a drawn request on,
with the run's own session expiring); the peers' faults (\`s3*\`, \`dynamo*\`, \`smtp*\`) through
scripts/chaos/peer-faults.ts, loaded into the run with \`node --import\`; the channel faults (\`channel*\`) through
the local channel sink's random profile (\`$${LOCAL_CHANNEL_FAULTS_ENV}\`: a drawn seed, a share of 0.3–0.6 of every
channel's posts, the drawn kinds: 429, 503, a refusal for good, and \`timeout\` / \`drop\`, which take the message
and never answer), counted by the same preload. The chaos channels answer within 2 s (Slack, Teams) and 1 s
(webhook, 3 attempts), so a held answer costs seconds. \`s3Part\` and \`s3Complete\` (5xx on a
multipart part or its completion) fire in the runs that upload in parts: the chaos files are 1–50 KiB, so those runs
set the local archive's part size to ${MULTIPART_PART_SIZE / 1024} KiB (the local S3 takes parts below S3's 5 MiB minimum).

## Invariant violations

The channel invariants read the sink's outbox (\`outbox/channels/<channel>/*.json\`) after every run and the ledger
at every epoch's end: Slack and Teams at most once — one post per \`x-pulse-delivery\` id and channel, one per
digest or report title and week and channel, and every post's delivery in the ledger, not released and not done
under another message, so a chat message whose outcome is unknown was never posted again; webhooks at least once
under one id — one \`webhook-id\` per event subject (digest and week, report week, each license alert shown) and
channel, each signature verified with the \`standardwebhooks\` package, every delivery recorded done posted, none left
unknown, and every week due by email delivered to each channel the digest and the report name.

The usage alerts (scripts/chaos/usage-alert-invariants.ts) run \`pulse usage-alerts --since ${USAGE_ALERTS_SINCE}\` (and
within \`pulse start\`) with each epoch's three rules on the chaos product's planted episodes (a tracked event's
surge against the day before and against its median, a version's weekly share of active clients), to two email
recipients and every channel kind. At most once per (change, recipient): no change in two emails (each email lists
the ledger keys it tells in \`X-Pulse-Usage-Alert-Keys\`); no change in two chat posts (a post tells the key of its
\`x-pulse-delivery\` id and the keys recorded done under it, never fewer than its summary counts, and a channel's
posts no more changes than it has keys); each change in a webhook's \`data.changes\` under one \`webhook-id\`. The
stored states (\`usage-alert-state#…\`) agree with the ledger after every run that judged: no \`resolved\` claimed
for a recipient without a \`firing\` before it, and a state's last change is the last one claimed for each
recipient. At each epoch's end a backtest of its rules from the same day finds the changes judged: each has a ledger
record for every recipient (done — in the outbox, or posted to the webhook — unknown, or claimed by a killed run)
and no record names a change it does not find.

| invariant | violations |
| --- | --- |
${table([...byInvariant])}
${
  state.violations.length === 0
    ? ''
    : `\n${state.violations
        .slice(0, 50)
        .map((v) => `- run ${v.run}: ${v.invariant}: ${v.detail}`)
        .join('\n')}\n`
}
## What the jobs reported (sums over all runs)

${Object.entries(stats.counts)
  .map(
    ([job, c]) =>
      `- ${job}: ${Object.entries(c)
        .filter(([k, v]) => v !== 0 && !/^(stage|label):/.test(k))
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
  )
  .join('\n')}

## Replay

\`npm run chaos -- --seed ${SEED} --runs ${stats.runs}\` draws the same jobs, fault profiles and kill delays (and the
emulator replays the same faults for the same request sequence); where a kill lands depends on the machine's speed.
`;
mkdirSync(join(REPORT, '..'), { recursive: true });
writeFileSync(REPORT, report);
process.stdout.write(
  `chaos: ${stats.runs} runs (+${stats.closingRuns} closing), ${stats.kills} kills, ` +
    `${state.violations.length} invariant violations, ${minutes.toFixed(1)} min; report ${REPORT}\n`,
);
process.exit(state.violations.length > 0 ? 1 : 0);
