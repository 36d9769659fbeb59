/**
 * Repairs what a killed process can leave in s3rver's filesystem store before s3rver starts on it.
 *
 * s3rver keeps an object as up to three files beside each other, written in this order: `<name>._S3rver_object`
 * (the bytes, streamed), `<name>._S3rver_object.md5`, `<name>._S3rver_metadata.json`; multipart parts live in
 * `<bucket>/._S3rver_uploads/<uploadId>/` until the upload completes. A SIGKILL between those writes leaves an
 * entry that s3rver either answers 500 for on every bucket call (an empty or partial metadata file) or serves as
 * if it were whole (bytes without metadata: a write that never returned). Every such entry is moved, whole, into
 * `<quarantineDir>/<bucket>/…` under its own path: nothing is deleted, the bucket looks as if the interrupted write
 * never happened (as in S3, where a PUT commits entirely or not at all), and the next archive run copies the file
 * again from the service as missing.
 *
 * Only run it while holding the work directory's lock: an entry being written by a live process looks broken too.
 */
import { mkdir, readdir, readFile, rename } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { mapWithConcurrency } from '../../client/concurrency.ts';

const OBJECT = '._S3rver_object';
const MD5 = '._S3rver_object.md5';
const METADATA = '._S3rver_metadata.json';
const UPLOADS = '._S3rver_uploads';
/** Files read at once while checking: enough to hide disk latency, few enough to stay far from fd limits. */
const READ_CONCURRENCY = 64;

export interface BrokenEntry {
  /** Bucket and key (`bucket/key`), or for an unfinished multipart upload `bucket/._S3rver_uploads/<id>`. */
  entry: string;
  /** Why it was moved, for people. */
  reason: string;
  /** The entry's files (or upload directory), relative to the s3 directory. */
  files: string[];
}

export interface QuarantinedEntry extends BrokenEntry {
  /** Where its object file (or the first of its files, or its upload directory) is now. */
  movedTo: string;
}

/** Moves every broken entry of the store at `s3Dir` into `quarantineDir`; returns what was moved. */
export async function quarantineBrokenS3rverEntries(s3Dir: string, quarantineDir: string): Promise<QuarantinedEntry[]> {
  const broken = await findBrokenS3rverEntries(s3Dir);
  const moved: QuarantinedEntry[] = [];
  for (const entry of broken) {
    for (const file of entry.files) {
      const target = join(quarantineDir, file);
      await mkdir(dirname(target), { recursive: true });
      await rename(join(s3Dir, file), target);
    }
    moved.push({ ...entry, movedTo: join(quarantineDir, entry.files[0]!) });
  }
  return moved;
}

/** Broken entries of the store at `s3Dir`, without touching them. */
export async function findBrokenS3rverEntries(s3Dir: string): Promise<BrokenEntry[]> {
  const broken: BrokenEntry[] = [];
  const checks: (() => Promise<void>)[] = [];
  for (const bucket of await subdirectories(s3Dir)) {
    for (const upload of await subdirectories(join(s3Dir, bucket, UPLOADS))) {
      // s3rver itself only ever removes a completed upload's directory: any left at start lost its client.
      const dir = join(bucket, UPLOADS, upload);
      checks.push(async () => {
        const key = await readFile(join(s3Dir, dir, 'key'), 'utf8').catch(() => '(unknown key)');
        broken.push({ entry: `${bucket}/${key}`, reason: 'multipart upload never completed', files: [dir] });
      });
    }
    await walk(s3Dir, bucket, (dir, names) => {
      for (const entry of entriesIn(names)) {
        checks.push(async () => {
          const reason = await problemOf(join(s3Dir, dir), entry);
          if (reason === undefined) return;
          const files = [entry.object, entry.md5, entry.metadata]
            .filter((f): f is string => f !== undefined)
            .map((f) => join(dir, f));
          const key = relative(bucket, join(dir, entry.name)).split('\\').join('/');
          broken.push({ entry: `${bucket}/${key}`, reason, files });
        });
      }
    });
  }
  await mapWithConcurrency(checks, READ_CONCURRENCY, (check) => check());
  return broken.sort((a, b) => (a.entry < b.entry ? -1 : a.entry > b.entry ? 1 : 0));
}

/** The files of one object, by the name s3rver embeds them under; any of them may be missing. */
interface Entry {
  name: string;
  object?: string;
  md5?: string;
  metadata?: string;
}

function entriesIn(names: string[]): Entry[] {
  const byName = new Map<string, Entry>();
  const add = (name: string, part: 'object' | 'md5' | 'metadata', file: string) => {
    const e = byName.get(name) ?? { name };
    e[part] = file;
    byName.set(name, e);
  };
  for (const f of names) {
    if (f.endsWith(OBJECT)) add(f.slice(0, -OBJECT.length), 'object', f);
    else if (f.endsWith(MD5)) add(f.slice(0, -MD5.length), 'md5', f);
    else if (f.endsWith(METADATA)) add(f.slice(0, -METADATA.length), 'metadata', f);
  }
  return [...byName.values()];
}

/**
 * Why s3rver cannot serve the entry as a finished write, or undefined when it can. A missing MD5 file is fine:
 * s3rver writes none for a copy and computes it on first read.
 */
async function problemOf(dir: string, e: Entry): Promise<string | undefined> {
  if (e.object === undefined) return 'object file missing (left by an interrupted write or delete)';
  if (e.metadata === undefined) return 'metadata file missing: the write never finished';
  const [metadata, md5] = await Promise.all([
    readFile(join(dir, e.metadata), 'utf8'),
    e.md5 === undefined ? undefined : readFile(join(dir, e.md5), 'utf8'),
  ]);
  if (metadata === '') return 'metadata file is empty: the write never finished';
  if (!isJsonObject(metadata)) return 'metadata file is not valid JSON: the write never finished';
  if (md5 !== undefined && !/^[0-9a-f]{32}$/.test(md5)) return 'MD5 file is damaged: the write never finished';
  return undefined;
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** Calls `visit` with every directory of the bucket (relative to `root`) and the names of the files in it. */
async function walk(root: string, dir: string, visit: (dir: string, files: string[]) => void): Promise<void> {
  const entries = await readdir(join(root, dir), { withFileTypes: true });
  const files = entries.filter((d) => d.isFile()).map((d) => d.name);
  if (files.length > 0) visit(dir, files);
  const subdirs = entries.filter((d) => d.isDirectory() && d.name !== UPLOADS);
  await Promise.all(subdirs.map((d) => walk(root, join(dir, d.name), visit)));
}

async function subdirectories(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
