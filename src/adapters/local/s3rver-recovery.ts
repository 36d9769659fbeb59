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
 *
 * The check reads every metadata file and stats every MD5 file, synchronously: it runs once at start, before any
 * peer serves, and most of the cost of thousands of tiny reads is the thread pool's round trips (5000 objects:
 * about 50 ms synchronously, 350 ms through fs/promises; 20 000 objects: about 0.2 s).
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const OBJECT = '._S3rver_object';
const MD5 = '._S3rver_object.md5';
const METADATA = '._S3rver_metadata.json';
const UPLOADS = '._S3rver_uploads';
const MD5_SIZE = 32;
/** s3rver's metadata of an object is a few hundred bytes; a larger file is read whole. */
const READ_BUFFER_SIZE = 16 * 1024;

export interface BrokenEntry {
  /** Bucket and key (`bucket/key`); for an unfinished multipart upload, the key it was for. */
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
export function quarantineBrokenS3rverEntries(s3Dir: string, quarantineDir: string): QuarantinedEntry[] {
  return findBrokenS3rverEntries(s3Dir).map((entry) => {
    for (const file of entry.files) {
      const target = join(quarantineDir, file);
      mkdirSync(dirname(target), { recursive: true });
      renameSync(join(s3Dir, file), target);
    }
    return { ...entry, movedTo: join(quarantineDir, entry.files[0]!) };
  });
}

/** Broken entries of the store at `s3Dir`, by entry name, without touching them. */
export function findBrokenS3rverEntries(s3Dir: string): BrokenEntry[] {
  const broken: BrokenEntry[] = [];
  const reader = new SmallFileReader();
  for (const bucket of subdirectories(s3Dir)) {
    for (const upload of subdirectories(join(s3Dir, bucket, UPLOADS))) {
      // s3rver itself only ever removes a completed upload's directory: any left at start lost its client.
      const dir = join(bucket, UPLOADS, upload);
      const key = reader.read(join(s3Dir, dir, 'key')) ?? '(unknown key)';
      broken.push({ entry: `${bucket}/${key}`, reason: 'multipart upload never completed', files: [dir] });
    }
    walk(s3Dir, bucket, (dir, names) => {
      for (const entry of entriesIn(names)) {
        const reason = problemOf(join(s3Dir, dir), entry, reader);
        if (reason === undefined) continue;
        const files = [entry.object, entry.md5, entry.metadata]
          .filter((f): f is string => f !== undefined)
          .map((f) => join(dir, f));
        const key = relative(bucket, join(dir, entry.name)).split('\\').join('/');
        broken.push({ entry: `${bucket}/${key}`, reason, files });
      }
    });
  }
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
function problemOf(dir: string, e: Entry, reader: SmallFileReader): string | undefined {
  if (e.object === undefined) return 'object file missing (left by an interrupted write or delete)';
  if (e.metadata === undefined) return 'metadata file missing: the write never finished';
  const metadata = reader.read(join(dir, e.metadata));
  if (metadata === '') return 'metadata file is empty: the write never finished';
  if (metadata === undefined || !isJsonObject(metadata)) {
    return 'metadata file is not valid JSON: the write never finished';
  }
  // 32 hex digits, written at once: its size tells a damaged one (a stat costs less than a read).
  if (e.md5 !== undefined && statSync(join(dir, e.md5), { throwIfNoEntry: false })?.size !== MD5_SIZE) {
    return 'MD5 file is damaged: the write never finished';
  }
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

/** Reads files, small ones into one reused buffer; undefined for a file that cannot be read. */
class SmallFileReader {
  readonly #buffer = Buffer.allocUnsafe(READ_BUFFER_SIZE);

  read(path: string): string | undefined {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return undefined;
    }
    try {
      const n = readSync(fd, this.#buffer, 0, READ_BUFFER_SIZE, 0);
      return n < READ_BUFFER_SIZE ? this.#buffer.toString('utf8', 0, n) : readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  }
}

/** Calls `visit` with every directory of the bucket (relative to `root`) and the names of the files in it. */
function walk(root: string, dir: string, visit: (dir: string, files: string[]) => void): void {
  const entries = readdirSync(join(root, dir), { withFileTypes: true });
  const files = entries.filter((d) => d.isFile()).map((d) => d.name);
  if (files.length > 0) visit(dir, files);
  for (const d of entries) if (d.isDirectory() && d.name !== UPLOADS) walk(root, join(dir, d.name), visit);
}

function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}
