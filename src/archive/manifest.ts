/**
 * Run manifests: every archive run writes `<prefix>/manifests/<run-id>.json`, listing every file it saw and what
 * happened to it, and naming the previous manifest with its SHA-256. The manifests form a hash chain: deleting or
 * altering any manifest but the latest breaks a link that `verifyManifestChain` reports. Run ids are UTC timestamps
 * in a fixed-width form, so key order is run order.
 */
import { createHash } from 'node:crypto';
import type { ArchiveKind } from '../config/schema.ts';
import { folderUnder, keyUnder } from '../core/archive-key.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { CopyOutcome } from './copy/copy-file.ts';
import type { KindPlan } from './plan.ts';

/** Format 2 added `complete`, `problems`, the `repaired` outcome and `checksumRepaired`; 1 is still read. */
export const MANIFEST_FORMAT = 'pulse-archive-manifest/2';
const READABLE_FORMATS: unknown[] = ['pulse-archive-manifest/1', MANIFEST_FORMAT];

export type FileOutcome = 'archived' | 'skippedSame' | 'republished' | 'repaired' | 'failed' | 'rejected';

export interface ManifestFile {
  productId: string;
  kind: ArchiveKind;
  fileName: string;
  outcome: FileOutcome;
  fileDate?: string;
  stopDate?: string;
  /** Absent for a rejected name: nothing was written for it. */
  key?: string;
  /** An archived file that filled a gap before the newest archived date. */
  backfilled?: boolean;
  size?: number;
  sha256?: string;
  /** Why it failed or was rejected, or why the archived object it replaced failed its check (repaired). */
  reason?: string;
  attempts?: number;
  /** Its checksum file was missing or wrong and was rewritten (the object was kept). */
  checksumRepaired?: boolean;
}

export interface ManifestKind {
  productId: string;
  kind: ArchiveKind;
  status: KindPlan['status'];
  reason?: string;
  openSkipped: number;
}

export interface ManifestLink {
  key: string;
  sha256: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  runId: string;
  startedAt: string;
  finishedAt: string;
  /** The manifest of the run before, by key and SHA-256 of its bytes; null for the first run. */
  previous: ManifestLink | null;
  /** False when the run could not look at everything it was to (sign-in or a listing failed): see `problems`. */
  complete: boolean;
  problems: string[];
  counts: Record<string, number>;
  kinds: ManifestKind[];
  files: ManifestFile[];
  errors: string[];
  /**
   * The channels told of the run (`archive.channels` when it finished; absent before the archive had channels): a
   * later run announces it again to those that have not taken it (announce-run.ts).
   */
  channels?: string[];
}

export const manifestFolder = (prefix: string): string => folderUnder(prefix, 'manifests');
export const manifestKey = (prefix: string, runId: string): string => keyUnder(prefix, 'manifests', `${runId}.json`);

/** `2026-11-20T12-00-00.000Z`: an ISO timestamp with `-` for `:`, fixed width, safe in keys and file names. */
export const runIdOf = (at: Date): string => at.toISOString().replaceAll(':', '-');

const RUN_ID = /^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2}\.\d{3}Z)$/;

export function parseRunId(runId: string): Date | undefined {
  const m = RUN_ID.exec(runId);
  if (!m) return undefined;
  const at = new Date(`${m[1]}:${m[2]}:${m[3]}`);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Manifests under the prefix in run order; other objects in the folder are returned apart. */
async function listManifests(store: ArchiveStore, prefix: string) {
  const folder = manifestFolder(prefix);
  const manifests: { key: string; runId: string }[] = [];
  const foreign: string[] = [];
  for await (const o of store.list(folder)) {
    const name = o.key.slice(folder.length);
    const runId = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
    if (parseRunId(runId)) manifests.push({ key: o.key, runId });
    else foreign.push(o.key);
  }
  manifests.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { manifests, foreign };
}

/**
 * The next run's id (its start time, or just after the latest run when that is not earlier, so ids stay in order
 * even with a clock that stands still) and the link to the latest manifest.
 */
export async function nextManifestSlot(
  store: ArchiveStore,
  prefix: string,
  startedAt: Date,
): Promise<{ runId: string; previous: ManifestLink | null }> {
  const latest = (await listManifests(store, prefix)).manifests.at(-1);
  if (!latest) return { runId: runIdOf(startedAt), previous: null };
  const bytes = await store.get(latest.key);
  const previous = bytes ? { key: latest.key, sha256: sha256Hex(bytes) } : null;
  const after = (parseRunId(latest.runId)?.getTime() ?? 0) + 1;
  return { runId: runIdOf(new Date(Math.max(startedAt.getTime(), after))), previous };
}

/** A manifest by key: undefined when there is none; a named error when it is not one Pulse can read. */
export async function readManifest(store: ArchiveStore, key: string): Promise<Manifest | undefined> {
  const bytes = await store.get(key);
  if (!bytes) return undefined;
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<Manifest>;
  } catch {
    throw new UnreadableManifestError(key, 'the manifest is not valid JSON');
  }
  if (!READABLE_FORMATS.includes(manifest.format))
    throw new UnreadableManifestError(key, `unknown manifest format ${JSON.stringify(manifest.format)}`);
  return manifest as Manifest;
}

export class UnreadableManifestError extends Error {
  override name = 'UnreadableManifestError';
  /** What is wrong with it, without the key. */
  readonly problem: string;

  constructor(key: string, problem: string) {
    super(`${key}: ${problem}`);
    this.problem = problem;
  }
}

export async function writeManifest(store: ArchiveStore, prefix: string, manifest: Manifest): Promise<string> {
  const key = manifestKey(prefix, manifest.runId);
  const body = `${JSON.stringify(manifest, null, 2)}\n`;
  await store.put(key, body, {
    contentType: 'application/json',
    ifNoneMatch: true,
    metadata: { 'run-id': manifest.runId, sha256: sha256Hex(Buffer.from(body)) },
  });
  return key;
}

/** Every file of the plan with its outcome, then every rejected name. */
export function manifestFiles(kinds: KindPlan[], outcomes: ReadonlyMap<string, CopyOutcome>): ManifestFile[] {
  return kinds.flatMap((k) => [
    ...k.files.map((f): ManifestFile => {
      const o = outcomes.get(f.key) ?? { outcome: 'failed', key: f.key, reason: 'not copied', attempts: 0 };
      const dates = { fileDate: f.fileDate, ...(f.stopDate !== undefined ? { stopDate: f.stopDate } : {}) };
      const base = { productId: f.productId, kind: f.kind, fileName: f.fileName, ...dates, key: f.key };
      if (o.outcome === 'failed') return { ...base, outcome: 'failed', reason: o.reason, attempts: o.attempts };
      const extra = {
        ...(o.outcome === 'archived' && f.backfill ? { backfilled: true } : {}),
        ...(o.outcome === 'repaired' ? { reason: o.reason } : {}),
        ...(o.outcome === 'skippedSame' && o.checksumRepaired ? { checksumRepaired: true } : {}),
      };
      return { ...base, outcome: o.outcome, ...extra, size: o.size, sha256: o.sha256, attempts: o.attempts };
    }),
    ...k.rejected.map(
      (r): ManifestFile => ({
        productId: r.productId,
        kind: r.kind,
        fileName: r.fileName,
        outcome: 'rejected',
        reason: r.reason,
      }),
    ),
  ]);
}

export interface ChainBreak {
  /** The manifest whose link is broken (or the unexpected object). */
  key: string;
  problem: string;
}

export interface ChainReport {
  ok: boolean;
  manifests: number;
  latest?: string;
  breaks: ChainBreak[];
}

/**
 * Checks every manifest's link: it must name the manifest just before it (by key) with that manifest's current
 * SHA-256, and only the first may have none. A deleted manifest shows as a link to a missing object, an altered one
 * as a hash mismatch, an inserted one as a link that skips it or as a second chain start.
 */
export async function verifyManifestChain(store: ArchiveStore, prefix: string): Promise<ChainReport> {
  const { manifests, foreign } = await listManifests(store, prefix);
  const breaks: ChainBreak[] = foreign.map((key) => ({ key, problem: 'not a manifest name' }));
  let before: { key: string; bytes: Uint8Array | undefined } | undefined;
  for (const m of manifests) {
    const bytes = await store.get(m.key);
    const link = bytes ? readLink(bytes) : { error: 'vanished while being read' };
    if ('error' in link) breaks.push({ key: m.key, problem: link.error });
    else breaks.push(...checkLink(m.key, link.previous, before, await keysExisting(store, link.previous)));
    before = { key: m.key, bytes };
  }
  return {
    ok: breaks.length === 0,
    manifests: manifests.length,
    ...(manifests.length > 0 ? { latest: manifests.at(-1)!.key } : {}),
    breaks,
  };
}

function readLink(bytes: Uint8Array): { previous: ManifestLink | null } | { error: string } {
  try {
    const m = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<Manifest>;
    if (!READABLE_FORMATS.includes(m.format)) return { error: `unknown format ${JSON.stringify(m.format)}` };
    const p = m.previous;
    if (p === null) return { previous: null };
    if (typeof p?.key !== 'string' || typeof p.sha256 !== 'string') return { error: 'no valid "previous" link' };
    return { previous: { key: p.key, sha256: p.sha256 } };
  } catch {
    return { error: 'not valid JSON' };
  }
}

async function keysExisting(store: ArchiveStore, link: ManifestLink | null): Promise<boolean> {
  return link === null ? false : (await store.head(link.key)) !== undefined;
}

function checkLink(
  key: string,
  link: ManifestLink | null,
  before: { key: string; bytes: Uint8Array | undefined } | undefined,
  linkedExists: boolean,
): ChainBreak[] {
  if (link === null) {
    return before ? [{ key, problem: `starts a new chain although ${before.key} comes before it` }] : [];
  }
  if (!linkedExists) return [{ key, problem: `previous manifest ${link.key} is missing` }];
  if (before?.key !== link.key) {
    const skipped = before ? `; ${before.key} is not in the chain` : '';
    return [{ key, problem: `links to ${link.key}, not to the manifest just before it${skipped}` }];
  }
  if (!before.bytes || sha256Hex(before.bytes) !== link.sha256) {
    return [{ key, problem: `previous manifest ${link.key} was altered (SHA-256 differs from the recorded one)` }];
  }
  return [];
}
