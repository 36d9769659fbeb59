/**
 * The plan step of the export archive: list every export file of each product and kind, check each name, compute
 * its archive key and decide what the copy step does with it. Plain data out, so `--dry-run` can print it and the
 * stack can fan the copy tasks out. Nothing is written here; the archive is only read (one listing per product/kind).
 */
import { FeatureNotEnabledError, type ReportingClient } from '../client/index.ts';
import type { ArchiveConfig, ArchiveKind, PulseConfig } from '../config/schema.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { PlannedFile } from '../ports/copy-queue.ts';
import { clientDataFileName } from './client-data.ts';
import type { CopyKind } from './copy/copy-file.ts';
import { checkFileName, quoteFileName } from './file-names.ts';
import { archiveKey } from './key-layout.ts';

export type { PlannedFile };

export interface RejectedFile {
  productId: string;
  kind: ArchiveKind;
  /** The name as listed, JSON-quoted when it is not a plain printable string. */
  fileName: string;
  reason: string;
}

export interface KindPlan {
  productId: string;
  kind: ArchiveKind;
  /**
   * `notEnabled`: the product lacks the raw export feature (not a failure); `failed`: the listing failed;
   * `notListed`: the run could not look at all (sign-in or session failed before this listing), `reason` says why.
   */
  status: 'listed' | 'notEnabled' | 'failed' | 'notListed';
  reason?: string;
  files: PlannedFile[];
  rejected: RejectedFile[];
  /** Open daily files left for a later run (not final yet). */
  openSkipped: number;
}

export interface ArchivePlan {
  /** UTC date of the run: the client data file's date. */
  runDate: string;
  kinds: KindPlan[];
}

export interface PlanOptions {
  productIds?: string[] | undefined;
  kinds?: ArchiveKind[] | undefined;
  now: Date;
}

/** One listed file before its name is trusted. */
interface ListedEntry {
  name: unknown;
  date: string;
  stopDate?: string;
}

export async function planArchive(
  config: PulseConfig,
  client: ReportingClient,
  store: ArchiveStore,
  opts: PlanOptions,
): Promise<ArchivePlan> {
  const archive = config.archive;
  if (!archive) throw new TypeError('the config has no "archive" section');
  const runDate = opts.now.toISOString().slice(0, 10);
  const plans: KindPlan[] = [];
  for (const { productId, kind } of kindsToPlan(config, opts)) {
    const base: KindPlan = { productId, kind, status: 'listed', files: [], rejected: [], openSkipped: 0 };
    try {
      plans.push(
        kind === 'clientData'
          ? await planClientData(archive, store, base, runDate)
          : await planListed(archive, client, store, base, kind),
      );
    } catch (e) {
      if (kind === 'rawEvents' && e instanceof FeatureNotEnabledError) {
        plans.push({ ...base, status: 'notEnabled', reason: 'the product has no raw data export feature' });
      } else plans.push({ ...base, status: 'failed', reason: `${(e as Error).name}: ${(e as Error).message}` });
    }
  }
  return { runDate, kinds: plans };
}

/** Every product and kind a run with these options looks at. */
function kindsToPlan(config: PulseConfig, opts: Pick<PlanOptions, 'productIds' | 'kinds'>) {
  const kinds = opts.kinds ?? config.archive?.kinds ?? [];
  return (opts.productIds ?? config.products.map((p) => p.id)).flatMap((productId) =>
    kinds.map((kind) => ({ productId, kind })),
  );
}

/**
 * The plan of a run that could not look (sign-in or the session failed before the listings): every product and kind
 * it was to list, `notListed` with the reason, so the manifest and coverage report show what was not checked
 * instead of an empty, clean-looking run.
 */
export function unlistedPlan(config: PulseConfig, opts: PlanOptions, reason: string): ArchivePlan {
  return {
    runDate: opts.now.toISOString().slice(0, 10),
    kinds: kindsToPlan(config, opts).map(({ productId, kind }) => ({
      productId,
      kind,
      status: 'notListed',
      reason,
      files: [],
      rejected: [],
      openSkipped: 0,
    })),
  };
}

async function planListed(
  archive: ArchiveConfig,
  client: ReportingClient,
  store: ArchiveStore,
  plan: KindPlan,
  kind: CopyKind,
): Promise<KindPlan> {
  const { entries, openSkipped } = await listKind(client, plan.productId, kind);
  plan.openSkipped = openSkipped;
  const accepted: Accepted[] = [];
  for (const entry of entries) {
    const checked = acceptEntry(archive, plan.productId, kind, entry);
    if ('reason' in checked) {
      plan.rejected.push({ productId: plan.productId, kind, fileName: shownName(entry.name), reason: checked.reason });
    } else accepted.push(checked);
  }
  const existing = await existingKeys(
    store,
    accepted.map((f) => f.key),
  );
  const lastDay = (f: { fileDate: string; stopDate?: string }) => f.stopDate ?? f.fileDate;
  const newestArchived = accepted
    .filter((f) => existing.has(f.key))
    .reduce((newest, f) => (lastDay(f) > newest ? lastDay(f) : newest), '');
  plan.files = accepted.map((f) => {
    const present = existing.has(f.key);
    return { ...f, state: present ? 'present' : 'missing', backfill: !present && lastDay(f) < newestArchived };
  });
  return plan;
}

type Accepted = Omit<PlannedFile, 'state' | 'backfill'>;

/** A listed file whose name is safe, agrees with the listed dates and makes a valid key; else why not. */
function acceptEntry(
  archive: ArchiveConfig,
  productId: string,
  kind: CopyKind,
  entry: ListedEntry,
): Accepted | { reason: string } {
  const checked = checkFileName(productId, kind, entry.name);
  if (!checked.ok) return { reason: checked.reason };
  const fileName = entry.name as string;
  // The name decides the key, so it must agree with the dates the listing gives for it.
  if (checked.fileDate !== entry.date || checked.stopDate !== entry.stopDate) {
    const listed = `${entry.date}${entry.stopDate ? ` to ${entry.stopDate}` : ''}`;
    return { reason: `file name ${quoteFileName(fileName)} does not match the listed dates ${listed}` };
  }
  const { fileDate, stopDate } = checked;
  let key: string;
  try {
    key = archiveKey(archive.keyTemplate, { prefix: archive.prefix, product: productId, kind, fileDate, fileName });
  } catch (e) {
    return { reason: (e as Error).message };
  }
  return {
    productId,
    kind,
    fileName,
    fileDate,
    ...(stopDate !== undefined ? { stopDate } : {}),
    key,
  };
}

async function planClientData(
  archive: ArchiveConfig,
  store: ArchiveStore,
  plan: KindPlan,
  runDate: string,
): Promise<KindPlan> {
  const fileName = clientDataFileName(plan.productId, runDate);
  const parts = { prefix: archive.prefix, product: plan.productId, kind: 'clientData', fileDate: runDate, fileName };
  const key = archiveKey(archive.keyTemplate, parts);
  const present = (await store.head(key)) !== undefined;
  const file: PlannedFile = {
    productId: plan.productId,
    kind: 'clientData',
    fileName,
    fileDate: runDate,
    key,
    state: present ? 'present' : 'missing',
    backfill: false,
  };
  return { ...plan, files: [file] };
}

/** Daily and monthly files (open daily files wait until they are final), or the raw export files. */
async function listKind(
  client: ReportingClient,
  productId: string,
  kind: CopyKind,
): Promise<{ entries: ListedEntry[]; openSkipped: number }> {
  if (kind === 'rawEvents') {
    const l = await client.rawEventsListFiles(productId);
    return {
      entries: l.fileList.map((f) => ({ name: f.fileName, date: f.fileDate })),
      openSkipped: 0,
    };
  }
  const l =
    kind === 'customEvents'
      ? await client.customEventsListFiles(productId)
      : await client.exceptionsListFiles(productId);
  return {
    entries: [
      ...l.dailyFiles.map((f) => ({ name: f.fileName, date: f.fileDate })),
      ...l.monthlyFiles.map((f) => ({
        name: f.fileName,
        date: f.fileStartDate,
        stopDate: f.fileStopDate,
      })),
    ],
    openSkipped: l.openDailyFiles.length,
  };
}

/**
 * Which of `keys` exist, from one listing of their longest common folder rather than a HEAD per file: whatever the
 * key template, that folder holds them all.
 */
async function existingKeys(store: ArchiveStore, keys: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const first = keys[0];
  if (first === undefined) return found;
  let common = first;
  for (const k of keys) while (!k.startsWith(common)) common = common.slice(0, -1);
  const folder = common.slice(0, common.lastIndexOf('/') + 1);
  const wanted = new Set(keys);
  for await (const o of store.list(folder)) if (wanted.has(o.key)) found.add(o.key);
  return found;
}

/** A listed name fit for reports and logs: plain printable text as is, anything else quoted and escaped. */
function shownName(name: unknown): string {
  if (typeof name === 'string') return /^[\x20-\x7e]{1,255}$/.test(name) ? name : quoteFileName(name);
  return String(JSON.stringify(name)).slice(0, 80);
}

export type PlanSummary = {
  listed: number;
  missing: number;
  present: number;
  backfill: number;
  rejected: number;
  notEnabled: number;
  failed: number;
};

export function summarizePlan(plans: KindPlan[]): PlanSummary {
  const s: PlanSummary = { listed: 0, missing: 0, present: 0, backfill: 0, rejected: 0, notEnabled: 0, failed: 0 };
  for (const p of plans) {
    s.listed += p.files.length;
    s.rejected += p.rejected.length;
    if (p.status === 'notEnabled') s.notEnabled++;
    if (p.status === 'failed' || p.status === 'notListed') s.failed++;
    for (const f of p.files) {
      s[f.state]++;
      if (f.backfill) s.backfill++;
    }
  }
  return s;
}
