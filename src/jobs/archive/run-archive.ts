/**
 * The export archive job: plan (list every export file of each product and kind, check names, compute keys, see what
 * the archive holds), then copy each file (bounded concurrency, all calls over one session), then write the run's
 * manifest (hash-chained to the previous one) and its coverage report. The same function runs in `pulse archive`,
 * in `pulse start` and in tests; in AWS the copy tasks fan out to a copier function instead.
 */
import { mapWithConcurrency, type ReportingClient } from '../../client/index.ts';
import type { ArchiveConfig, ArchiveKind, PulseConfig } from '../../config/schema.ts';
import type { ArchiveStore } from '../../ports/archive-store.ts';
import type { Clock } from '../../ports/clock.ts';
import type { Logger } from '../../ports/logger.ts';
import type { JobResult } from '../job-result.ts';
import { archiveClientData } from './client-data.ts';
import { type CopyOutcome, copyFile } from './copy-file.ts';
import { buildCoverage, writeCoverage } from './coverage.ts';
import { MANIFEST_FORMAT, manifestFiles, nextManifestSlot, writeManifest } from './manifest.ts';
import {
  type ArchivePlan,
  type KindPlan,
  type PlannedFile,
  type PlanSummary,
  planArchive,
  summarizePlan,
} from './plan.ts';
import { type ArchiveProgress, silentProgress } from './progress.ts';

export interface ArchivePorts {
  client: ReportingClient;
  archive: ArchiveStore;
  clock: Clock;
  logger: Logger;
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

export type ArchiveCounts = {
  /** Files considered: every listed file with a valid name, plus one client data file per product. */
  listed: number;
  /** Newly written (including backfilled ones). */
  archived: number;
  /** Already archived with the same SHA-256. */
  skippedSame: number;
  /** Same name, different content: stored as a new version and flagged. */
  republished: number;
  /** Archived files that filled a gap before the newest archived date. */
  backfilled: number;
  /** Copies that failed, plus listings that failed. */
  failed: number;
  rejected: number;
  /** Kinds the product does not offer (raw events without the raw export feature). */
  notEnabled: number;
  /** Bytes written to the archive. */
  bytes: number;
};

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
  const result: JobResult<Counts> = { job: 'archive', ok: true, counts: emptyCounts(), outputs: [], errors: [] };
  const archive = config.archive;
  if (!archive) return fail(result, 'the config has no "archive" section');
  const known = new Set(config.products.map((p) => p.id));
  for (const id of opts.productIds ?? []) if (!known.has(id)) fail(result, `unknown product ${id}`);
  const productIds = opts.productIds?.filter((id) => known.has(id));
  let plan: ArchivePlan | undefined;
  const outcomes = new Map<string, CopyOutcome>();
  try {
    await ports.client.withSession(async (client) => {
      plan = await planArchive(config, client, ports.archive, { productIds, kinds: opts.kinds, now: startedAt });
      opts.onPlan?.(plan);
      if (!opts.dryRun) await copyAll(plan, archive, { ...ports, client }, opts.progress ?? silentProgress, outcomes);
    });
  } catch (e) {
    fail(result, `${(e as Error).name}: ${(e as Error).message}`);
  }
  if (plan) reportPlanProblems(plan.kinds, result);
  if (opts.dryRun) {
    if (plan) result.counts = summarizePlan(plan.kinds);
    return result;
  }
  const kinds = plan?.kinds ?? [];
  const counts = tally(kinds, outcomes, result);
  result.counts = counts;
  try {
    const { runId, previous } = await nextManifestSlot(ports.archive, archive.prefix, startedAt);
    const manifestKey = await writeManifest(ports.archive, archive.prefix, {
      format: MANIFEST_FORMAT,
      runId,
      startedAt: startedAt.toISOString(),
      finishedAt: ports.clock.now().toISOString(),
      previous,
      counts: { ...counts },
      kinds: kinds.map(({ productId, kind, status, reason, openSkipped }) => ({
        productId,
        kind,
        status,
        ...(reason !== undefined ? { reason } : {}),
        openSkipped,
      })),
      files: manifestFiles(kinds, outcomes),
      errors: result.errors,
    });
    result.outputs.push(manifestKey);
    const coverage = buildCoverage(runId, manifestKey, kinds, outcomes);
    result.outputs.push(await writeCoverage(ports.archive, archive.prefix, coverage));
  } catch (e) {
    fail(result, `manifest not written: ${(e as Error).name}: ${(e as Error).message}`);
  }
  ports.logger.info('archive run finished', { ok: result.ok, ...counts });
  return result;
}

function emptyCounts(): ArchiveCounts {
  return {
    listed: 0,
    archived: 0,
    skippedSame: 0,
    republished: 0,
    backfilled: 0,
    failed: 0,
    rejected: 0,
    notEnabled: 0,
    bytes: 0,
  };
}

function fail<R extends JobResult<Counts>>(result: R, error: string): R {
  result.ok = false;
  result.errors.push(error);
  return result;
}

async function copyAll(
  plan: ArchivePlan,
  archive: ArchiveConfig,
  ports: ArchivePorts,
  progress: ArchiveProgress,
  outcomes: Map<string, CopyOutcome>,
): Promise<void> {
  // Client data files take longest (every client, page by page): start them first so they overlap the rest.
  const files = plan.kinds.flatMap((k) => k.files);
  const tasks = [...files.filter((f) => f.kind === 'clientData'), ...files.filter((f) => f.kind !== 'clientData')];
  progress.start(tasks.length);
  try {
    await mapWithConcurrency(tasks, archive.concurrency, async (file) => {
      outcomes.set(file.key, await copyOne(file, archive, ports, progress));
      progress.fileDone();
    });
  } finally {
    progress.finish();
  }
}

/** One file, never throwing: whatever goes wrong becomes a failed outcome, so the other copies go on. */
async function copyOne(
  file: PlannedFile,
  archive: ArchiveConfig,
  ports: ArchivePorts,
  progress: ArchiveProgress,
): Promise<CopyOutcome> {
  const deps = { client: ports.client, store: ports.archive, clock: ports.clock, logger: ports.logger };
  const onBytes = (n: number) => progress.bytes(n);
  const { productId, fileName, fileDate, key } = file;
  try {
    if (file.kind === 'clientData') {
      const task = { productId, fileName, fileDate, key, properties: archive.clientProperties };
      return await archiveClientData(task, { ...deps, onBytes });
    }
    return await copyFile({ productId, kind: file.kind, fileName, fileDate, key }, { ...deps, onBytes });
  } catch (e) {
    return { outcome: 'failed', key, reason: `${(e as Error).name}: ${(e as Error).message}`, attempts: 0 };
  }
}

function reportPlanProblems(kinds: KindPlan[], result: JobResult<Counts>): void {
  for (const k of kinds) {
    if (k.status === 'failed') fail(result, `${k.productId} ${k.kind}: listing failed: ${k.reason ?? ''}`);
    for (const r of k.rejected) fail(result, `${k.productId} ${k.kind}: rejected: ${r.reason}`);
  }
}

function tally(kinds: KindPlan[], outcomes: ReadonlyMap<string, CopyOutcome>, result: JobResult<Counts>) {
  const c = emptyCounts();
  for (const k of kinds) {
    c.rejected += k.rejected.length;
    if (k.status === 'notEnabled') c.notEnabled++;
    if (k.status === 'failed') c.failed++;
    for (const f of k.files) {
      c.listed++;
      const o = outcomes.get(f.key);
      if (o === undefined || o.outcome === 'failed') {
        c.failed++;
        fail(result, `${f.key}: ${o?.reason ?? 'not copied (the run stopped early)'}`);
        continue;
      }
      c[o.outcome]++;
      if (o.outcome !== 'skippedSame') c.bytes += o.size;
      if (o.outcome === 'archived' && f.backfill) c.backfilled++;
    }
  }
  return c;
}
