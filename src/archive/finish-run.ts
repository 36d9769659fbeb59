/**
 * The end of an archive run, wherever its copies ran: count the outcomes against the plan, write the run's manifest
 * (hash-chained to the previous one) and its coverage report, then tell the archive's channels (announce-run.ts:
 * the runs before it that some channel missed, then this one). `runArchive` calls it once its in-process copies are
 * done; in AWS the copier that records a run's last outcome (or the next plan step, for a run whose copier died)
 * calls it with the stored plan and the recorded outcomes.
 */
import type { ArchiveConfig, PulseConfig } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { ChannelPorts } from '../ports/channels.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { Logger } from '../ports/logger.ts';
import { announceEarlierRuns, announceRun } from './announce-run.ts';
import type { CopyOutcome } from './copy/copy-file.ts';
import { buildCoverage, writeCoverage } from './coverage.ts';
import {
  MANIFEST_FORMAT,
  type Manifest,
  type ManifestLink,
  manifestFiles,
  nextManifestSlot,
  writeManifest,
} from './manifest.ts';
import { type KindPlan, type PlanOptions, type PlanSummary, unlistedPlan } from './plan.ts';

export type ArchiveCounts = {
  /** Files considered: every listed file with a valid name, plus one client data file per product. */
  listed: number;
  /** Newly written (including backfilled ones). */
  archived: number;
  /** Already archived with the same SHA-256. */
  skippedSame: number;
  /** Same name, different content: stored as a new version and flagged. */
  republished: number;
  /** The archived object failed its own check (a crash leftover): a new version written, the old one left. */
  repaired: number;
  /** Checksum files rewritten beside archived objects that were kept (counted in skippedSame). */
  checksumsRepaired: number;
  /** Archived files that filled a gap before the newest archived date. */
  backfilled: number;
  /** Copies that failed, plus listings that failed or never happened. */
  failed: number;
  rejected: number;
  /** Kinds the product does not offer (raw events without the raw export feature). */
  notEnabled: number;
  /** Bytes written to the archive. */
  bytes: number;
};

export type ArchiveJobResult = JobResult<ArchiveCounts | PlanSummary>;

export interface FinishPorts {
  archive: ArchiveStore;
  clock: Clock;
  logger: Logger;
  /** For `archive.channels`: without them each channel the config names fails by name. */
  ledger?: Ledger;
  channels?: ChannelPorts;
}

/** What a finish reads of the config: the archive, and the channels and product names its events use. */
export type FinishConfig = Pick<PulseConfig, 'channels' | 'products'> & { archive: ArchiveConfig };

export interface FinishedRunInput {
  startedAt: Date;
  kinds: KindPlan[];
  /** By archive key; a planned file without one is reported as failed ('not copied'). */
  outcomes: ReadonlyMap<string, CopyOutcome>;
  /** What to say of a planned file that has no outcome. @default 'not copied (the run stopped early)' */
  noOutcomeReason?: string;
  /** What kept the run from looking (e.g. the sign-in failed); failed listings are added from `kinds`. */
  problems?: string[];
}

/**
 * The finish of a run whose sign-in or session failed before any listing (`stopped` says how): every product and
 * kind it was to list shows as `notListed`, so its manifest and coverage report say the run could not look.
 */
export function unlistedRun(
  config: PulseConfig,
  planOptions: PlanOptions,
  stopped: string,
): Pick<FinishedRunInput, 'kinds' | 'problems'> {
  return {
    kinds: unlistedPlan(config, planOptions, `not listed: ${stopped}`).kinds,
    problems: [`nothing was listed: ${stopped}`],
  };
}

export function emptyCounts(): ArchiveCounts {
  return {
    listed: 0,
    archived: 0,
    skippedSame: 0,
    republished: 0,
    repaired: 0,
    checksumsRepaired: 0,
    backfilled: 0,
    failed: 0,
    rejected: 0,
    notEnabled: 0,
    bytes: 0,
  };
}

/** A fresh result of an archive job run: ok until something fails. */
export const archiveResult = <C extends Record<string, number>>(counts: C): JobResult<C> => ({
  job: 'archive',
  ok: true,
  counts,
  outputs: [],
  errors: [],
});

export function failRun<R extends JobResult<Record<string, number>>>(result: R, error: string): R {
  result.ok = false;
  result.errors.push(error);
  return result;
}

/** Adds the plan's problems to `result`, tallies the counts and writes the manifest and coverage report. */
export async function finishArchiveRun(
  config: FinishConfig,
  run: FinishedRunInput,
  ports: FinishPorts,
  result: JobResult<ArchiveCounts | PlanSummary>,
): Promise<JobResult<ArchiveCounts>> {
  const { archive } = config;
  reportPlanProblems(run.kinds, result);
  const noOutcome = run.noOutcomeReason ?? 'not copied (the run stopped early)';
  const outcomes = new Map(run.outcomes);
  for (const f of run.kinds.flatMap((k) => k.files)) {
    if (!outcomes.has(f.key)) outcomes.set(f.key, { outcome: 'failed', key: f.key, reason: noOutcome, attempts: 0 });
  }
  const counts = tally(run.kinds, outcomes, result);
  let manifest:
    | { written: Manifest; manifestKey: string; coverageKey: string; previous: ManifestLink | null }
    | undefined;
  const finished: JobResult<ArchiveCounts> = Object.assign(result, { counts });
  const problems = [
    ...(run.problems ?? []),
    ...run.kinds.filter((k) => k.status === 'failed').map((k) => `${k.productId} ${k.kind}: ${listingFailed(k)}`),
  ];
  try {
    const { runId, previous } = await nextManifestSlot(ports.archive, archive.prefix, run.startedAt);
    const written: Manifest = {
      format: MANIFEST_FORMAT,
      runId,
      startedAt: run.startedAt.toISOString(),
      finishedAt: ports.clock.now().toISOString(),
      previous,
      complete: problems.length === 0,
      problems,
      counts: { ...counts },
      kinds: run.kinds.map(({ productId, kind, status, reason, openSkipped }) => ({
        productId,
        kind,
        status,
        ...(reason !== undefined ? { reason } : {}),
        openSkipped,
      })),
      files: manifestFiles(run.kinds, outcomes),
      errors: [...finished.errors],
      ...(archive.channels.length > 0 ? { channels: archive.channels } : {}),
    };
    const manifestKey = await writeManifest(ports.archive, archive.prefix, written);
    finished.outputs.push(manifestKey);
    const coverage = buildCoverage({ runId, manifestKey, problems }, run.kinds, outcomes);
    const coverageKey = await writeCoverage(ports.archive, archive.prefix, coverage);
    finished.outputs.push(coverageKey);
    manifest = { written, manifestKey, coverageKey, previous };
  } catch (e) {
    failRun(finished, `manifest not written: ${(e as Error).name}: ${(e as Error).message}`);
  }
  // Told only of a run whose manifest is written: the event says what the manifest says, and a later run can tell
  // it again. A run without one is finished again later (AWS) or fails its job (exit code, JobFailed alarm).
  // No channels: nothing to tell, and no earlier manifest to read.
  if (manifest && archive.channels.length > 0) {
    const told = [
      ...(await announceEarlierRuns(config, ports, manifest.previous)),
      ...(await announceRun(config, ports, { ...manifest, manifest: manifest.written })),
    ];
    for (const problem of told) failRun(finished, `${EVENT_NOT_DELIVERED}: ${problem}`);
  }
  ports.logger.info('archive run finished', { ok: finished.ok, ...counts });
  return finished;
}

/** How a run's errors name an event a channel did not take (announce-run.ts). */
export const EVENT_NOT_DELIVERED = 'archive event not delivered';
export const isEventProblem = (error: string): boolean => error.startsWith(`${EVENT_NOT_DELIVERED}: `);

export function reportPlanProblems(kinds: KindPlan[], result: JobResult<Record<string, number>>): void {
  for (const k of kinds) {
    if (k.status === 'failed') failRun(result, `${k.productId} ${k.kind}: ${listingFailed(k)}`);
    for (const r of k.rejected) failRun(result, `${k.productId} ${k.kind}: rejected: ${r.reason}`);
  }
}

const listingFailed = (k: KindPlan): string => `listing failed: ${k.reason ?? ''}`;

function tally(
  kinds: KindPlan[],
  outcomes: ReadonlyMap<string, CopyOutcome>,
  result: JobResult<Record<string, number>>,
) {
  const c = emptyCounts();
  for (const k of kinds) {
    c.rejected += k.rejected.length;
    if (k.status === 'notEnabled') c.notEnabled++;
    // A kind never listed (the run could not sign in) is a failure too: nothing of it was checked.
    if (k.status === 'failed' || k.status === 'notListed') c.failed++;
    for (const f of k.files) {
      c.listed++;
      const o = outcomes.get(f.key);
      if (o === undefined || o.outcome === 'failed') {
        c.failed++;
        failRun(result, `${f.key}: ${o?.reason ?? 'not copied'}`);
        continue;
      }
      c[o.outcome]++;
      if (o.outcome === 'skippedSame' && o.checksumRepaired) c.checksumsRepaired++;
      if (o.outcome !== 'skippedSame') c.bytes += o.size;
      if (o.outcome === 'archived' && f.backfill) c.backfilled++;
    }
  }
  return c;
}
