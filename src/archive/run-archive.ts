/**
 * The export archive job, in one process: plan (list every export file of each product and kind, check names,
 * compute keys, see what the archive holds), then copy each file (bounded concurrency, all calls over one session),
 * then write the run's manifest and coverage report (finish-run.ts). The same function runs in `pulse archive`, in
 * `pulse start` and in tests; in AWS the same plan, copy and finish steps run split across functions (plan-step.ts, copy-step.ts).
 */
import { mapWithConcurrency, type ReportingClient } from '../client/index.ts';
import type { ArchiveConfig, ArchiveKind, PulseConfig } from '../config/schema.ts';
import type { JobResult } from '../core/job-result.ts';
import type { CopyOutcome } from './copy/copy-file.ts';
import { copyPlannedFile } from './copy-planned-file.ts';
import {
  type ArchiveCounts,
  archiveResult,
  emptyCounts,
  type FinishPorts,
  failRun,
  finishArchiveRun,
  reportPlanProblems,
  unlistedRun,
} from './finish-run.ts';
import { type ArchivePlan, type PlanSummary, planArchive, summarizePlan } from './plan.ts';
import { type ArchiveProgress, silentProgress } from './progress.ts';

export type { ArchiveCounts } from './finish-run.ts';

export interface ArchivePorts extends FinishPorts {
  client: ReportingClient;
}

export interface ArchiveRunOptions {
  /** Only these products (`--product`); each must be in the config. */
  productIds?: string[] | undefined;
  /** Only these kinds (`--kind`); default: the config's `archive.kinds`. */
  kinds?: ArchiveKind[] | undefined;
  /** Plan only: nothing is copied and no manifest is written; counts are the plan's. */
  dryRun?: boolean | undefined;
  progress?: ArchiveProgress | undefined;
  /** Receives the plan before the copy step (`--dry-run` prints it). */
  onPlan?: ((plan: ArchivePlan) => void) | undefined;
}

type Counts = ArchiveCounts | PlanSummary;

/** Counts are the run's (`ArchiveCounts`), or the plan's (`PlanSummary`) for a dry run. */
export function runArchive(
  config: PulseConfig,
  ports: ArchivePorts,
  opts?: ArchiveRunOptions & { dryRun?: false | undefined },
): Promise<JobResult<ArchiveCounts>>;
export function runArchive(
  config: PulseConfig,
  ports: ArchivePorts,
  opts: ArchiveRunOptions,
): Promise<JobResult<ArchiveCounts | PlanSummary>>;
export async function runArchive(
  config: PulseConfig,
  ports: ArchivePorts,
  opts: ArchiveRunOptions = {},
): Promise<JobResult<Counts>> {
  const startedAt = ports.clock.now();
  const result: JobResult<Counts> = archiveResult(emptyCounts());
  const archive = config.archive;
  if (!archive) return failRun(result, 'the config has no "archive" section');
  const productIds = knownProducts(config, opts.productIds, result);
  const planOptions = { productIds, kinds: opts.kinds, now: startedAt };
  let plan: ArchivePlan | undefined;
  const outcomes = new Map<string, CopyOutcome>();
  let stopped: string | undefined;
  try {
    await ports.client.withSession(async (client) => {
      plan = await planArchive(config, client, ports.archive, planOptions);
      opts.onPlan?.(plan);
      if (!opts.dryRun) await copyAll(plan, archive, { ...ports, client }, opts.progress ?? silentProgress, outcomes);
    });
  } catch (e) {
    stopped = `${(e as Error).name}: ${(e as Error).message}`;
    failRun(result, stopped);
  }
  if (opts.dryRun) {
    if (plan) result.counts = summarizePlan(plan.kinds);
    reportPlanProblems(plan?.kinds ?? [], result);
    return result;
  }
  // A run that could not look still writes its manifest, saying what it did not check (not an empty, clean run).
  const looked = plan
    ? { kinds: plan.kinds, problems: stopped === undefined ? [] : [`the run stopped: ${stopped}`] }
    : unlistedRun(config, planOptions, stopped ?? 'the run stopped before its plan');
  return finishArchiveRun({ ...config, archive }, { startedAt, outcomes, ...looked }, ports, result);
}

/** `--product` ids that are in the config; an unknown one fails the run (and is left out). */
export function knownProducts(
  config: PulseConfig,
  productIds: string[] | undefined,
  result: JobResult<Record<string, number>>,
): string[] | undefined {
  const known = new Set(config.products.map((p) => p.id));
  for (const id of productIds ?? []) if (!known.has(id)) failRun(result, `unknown product ${id}`);
  return productIds?.filter((id) => known.has(id));
}

async function copyAll(
  plan: ArchivePlan,
  archive: ArchiveConfig,
  ports: ArchivePorts,
  progress: ArchiveProgress,
  outcomes: Map<string, CopyOutcome>,
): Promise<void> {
  const tasks = copyOrder(plan);
  progress.start(tasks.length);
  try {
    await mapWithConcurrency(tasks, archive.concurrency, async (file) => {
      outcomes.set(file.key, await copyPlannedFile(file, archive, ports, (n) => progress.bytes(n)));
      progress.fileDone();
    });
  } finally {
    progress.finish();
  }
}

/** Client data files take longest (every client, page by page): they go first so they overlap the rest. */
export function copyOrder(plan: ArchivePlan) {
  const files = plan.kinds.flatMap((k) => k.files);
  return [...files.filter((f) => f.kind === 'clientData'), ...files.filter((f) => f.kind !== 'clientData')];
}
