/**
 * The local archive as the console shows it, read with the archive job's own code over the read-only bucket
 * (s3rver-files.ts): the manifest chain checked as `pulse archive --verify` checks it (verify-chain.ts), every run's
 * manifest and coverage report (manifest.ts, coverage.ts), and the objects no manifest lists (the digests' records,
 * the license reports) by folder with their SHA-256.
 */
import { createHash } from 'node:crypto';
import { type Coverage, coverageKey, type KindCoverage } from '../archive/coverage.ts';
import {
  type Manifest,
  manifestFolder,
  manifestKey,
  parseRunId,
  readManifest,
  UnreadableManifestError,
} from '../archive/manifest.ts';
import { type VerifyChainCounts, verifyArchiveChain } from '../archive/verify-chain.ts';
import type { JobResult } from '../core/job-result.ts';
import type { ArchiveStore, StoredObject } from '../ports/archive-store.ts';
import { bucketsIn, S3rverFiles } from './s3rver-files.ts';

export interface RunSummary {
  runId: string;
  manifestKey: string;
  manifest?: Manifest;
  /** Why the manifest could not be read, when it could not. */
  problem?: string;
}

export interface ArchivedPrefix {
  bucket: string;
  /** `archive.prefix` of the runs that wrote it ('' for none). */
  prefix: string;
  chain: JobResult<VerifyChainCounts>;
  /** Newest first. */
  runs: RunSummary[];
  latestCoverage?: Coverage;
  /** Objects no manifest lists and that are not manifests, coverage reports or checksum files, by folder. */
  others: { folder: string; objects: (StoredObject & { sha256: string })[] }[];
}

export interface ArchiveState {
  buckets: string[];
  prefixes: ArchivedPrefix[];
}

export async function readArchive(s3Dir: string): Promise<ArchiveState> {
  const buckets = await bucketsIn(s3Dir);
  const prefixes: ArchivedPrefix[] = [];
  for (const bucket of buckets) {
    const store = new S3rverFiles(s3Dir, bucket);
    const all: StoredObject[] = [];
    for await (const o of store.list('')) all.push(o);
    for (const prefix of manifestPrefixes(all.map((o) => o.key))) {
      prefixes.push(await readPrefix(store, bucket, prefix, all));
    }
  }
  return { buckets, prefixes };
}

/** The prefixes that have a manifest folder: `<prefix>/manifests/<run id>.json`. */
function manifestPrefixes(keys: string[]): string[] {
  const found = new Set<string>();
  for (const key of keys) {
    const m = /^(?:(.*)\/)?manifests\/([^/]+)\.json$/.exec(key);
    if (m && parseRunId(m[2]!)) found.add(m[1] ?? '');
  }
  return [...found].sort();
}

async function readPrefix(
  store: ArchiveStore,
  bucket: string,
  prefix: string,
  all: StoredObject[],
): Promise<ArchivedPrefix> {
  const chain = await verifyArchiveChain(store, prefix);
  const folder = manifestFolder(prefix);
  const runIds = all
    .map((o) => o.key)
    .filter((k) => k.startsWith(folder) && k.endsWith('.json'))
    .map((k) => k.slice(folder.length, -'.json'.length))
    .filter((id) => parseRunId(id) !== undefined)
    .sort()
    .reverse();
  const runs = await Promise.all(runIds.map((runId) => readRun(store, prefix, runId)));
  const latest = runs[0];
  const latestCoverage = latest ? await readCoverage(store, prefix, latest.runId) : undefined;
  const listed = new Set(runs.flatMap((r) => r.manifest?.files.flatMap((f) => (f.key ? [f.key] : [])) ?? []));
  const own = (key: string) => {
    const base = key.endsWith('.sha256') ? key.slice(0, -'.sha256'.length) : key;
    return listed.has(base) || key.startsWith(folder) || key.startsWith(coverageFolderOf(prefix));
  };
  const others = await groupByFolder(
    store,
    all.filter((o) => (prefix === '' || o.key.startsWith(`${prefix}/`)) && !own(o.key)),
  );
  return { bucket, prefix, chain, runs, ...(latestCoverage ? { latestCoverage } : {}), others };
}

const coverageFolderOf = (prefix: string): string => coverageKey(prefix, 'x').slice(0, -'x.json'.length);

export async function readRun(store: ArchiveStore, prefix: string, runId: string): Promise<RunSummary> {
  const key = manifestKey(prefix, runId);
  try {
    const manifest = await readManifest(store, key);
    if (!manifest) return { runId, manifestKey: key, problem: 'the manifest is missing' };
    return { runId, manifestKey: key, manifest };
  } catch (e) {
    if (!(e instanceof UnreadableManifestError)) throw e;
    return { runId, manifestKey: key, problem: e.problem };
  }
}

export async function readCoverage(store: ArchiveStore, prefix: string, runId: string): Promise<Coverage | undefined> {
  const bytes = await store.get(coverageKey(prefix, runId));
  if (!bytes) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8')) as Coverage;
  } catch {
    return undefined;
  }
}

/** An object's SHA-256, computed once per key and size (archive objects are written once). */
const hashes = new Map<string, string>();

async function sha256Of(store: ArchiveStore, o: StoredObject): Promise<string> {
  if (o.metadata.sha256) return o.metadata.sha256;
  const id = `${o.key}:${o.size}`;
  const known = hashes.get(id);
  if (known) return known;
  const read = await store.read(o.key);
  if (!read) return '';
  const hash = createHash('sha256');
  for await (const chunk of read.body) hash.update(chunk as Buffer);
  const hex = hash.digest('hex');
  hashes.set(id, hex);
  return hex;
}

async function groupByFolder(store: ArchiveStore, objects: StoredObject[]): Promise<ArchivedPrefix['others']> {
  const byFolder = new Map<string, (StoredObject & { sha256: string })[]>();
  for (const o of objects) {
    const folder = o.key.includes('/') ? o.key.slice(0, o.key.lastIndexOf('/')) : '';
    const list = byFolder.get(folder) ?? [];
    list.push({ ...o, sha256: await sha256Of(store, o) });
    byFolder.set(folder, list);
  }
  return [...byFolder.entries()]
    .sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0))
    .map(([folder, list]) => ({ folder, objects: list }));
}

export type DayCoverage = 'archived' | 'missing' | 'failed' | 'none';

/** What a kind's coverage says of one day: a daily file of that date, or a monthly file whose range holds it. */
export function coverageOnDay(k: KindCoverage, day: string): DayCoverage {
  const holds = (label: string) => {
    const [from, to] = label.split('/');
    return to === undefined ? from === day : from! <= day && day <= to;
  };
  if (k.failed.some(holds)) return 'failed';
  if (k.missing.some(holds)) return 'missing';
  if (k.archived.some(holds)) return 'archived';
  return 'none';
}
