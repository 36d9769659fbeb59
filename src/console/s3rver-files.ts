/**
 * The local archive bucket read straight from s3rver's files (`<workDir>/s3/<bucket>/<key>._S3rver_object` beside
 * `…._S3rver_metadata.json`: src/adapters/local/s3rver-recovery.ts describes the layout), as a read-only
 * ArchiveStore, so the archive job's own code (manifest chain, coverage) runs over it unchanged. Not through s3rver
 * itself: s3rver writes a missing `.md5` file on its first read of an object, and the console writes nothing.
 * An entry s3rver could not serve as a finished write (a write under way, or one a killed run left) is left out,
 * as S3 shows an object only once its write has committed. The local S3 keeps no versions: `versionId` is absent.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { findBrokenS3rverEntries } from '../adapters/local/s3rver-recovery.ts';
import type { ArchiveStore, ObjectStream, StoredObject } from '../ports/archive-store.ts';

const OBJECT = '._S3rver_object';
const METADATA = '._S3rver_metadata.json';
const USER_METADATA = 'x-amz-meta-';

export class ReadOnlyStoreError extends Error {
  override name = 'ReadOnlyStoreError';
}

/** The buckets under an s3rver directory. */
export async function bucketsIn(s3Dir: string): Promise<string[]> {
  const entries = await readdir(s3Dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

export class S3rverFiles implements ArchiveStore {
  readonly #bucketDir: string;
  readonly #s3Dir: string;
  readonly #bucket: string;

  constructor(s3Dir: string, bucket: string) {
    this.#s3Dir = s3Dir;
    this.#bucket = bucket;
    this.#bucketDir = join(s3Dir, bucket);
  }

  put(key: string): Promise<StoredObject> {
    return Promise.reject(new ReadOnlyStoreError(`the console reads the archive only; it does not write ${key}`));
  }

  async head(key: string): Promise<StoredObject | undefined> {
    const path = this.#pathOf(key);
    if (path === undefined) return undefined;
    const [s, metadataText] = await Promise.all([
      stat(`${path}${OBJECT}`).catch(() => undefined),
      readFile(`${path}${METADATA}`, 'utf8').catch(() => undefined),
    ]);
    const metadata = metadataText === undefined ? undefined : userMetadata(metadataText);
    if (!s?.isFile() || metadata === undefined) return undefined;
    return { key, size: s.size, metadata };
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    if ((await this.head(key)) === undefined) return undefined;
    return readFile(`${this.#pathOf(key)}${OBJECT}`).catch(() => undefined);
  }

  async read(key: string): Promise<ObjectStream | undefined> {
    const head = await this.head(key);
    if (head === undefined) return undefined;
    return { ...head, body: createReadStream(`${this.#pathOf(key)}${OBJECT}`) };
  }

  async *list(prefix: string): AsyncIterable<StoredObject> {
    const broken = new Set(
      findBrokenS3rverEntries(this.#s3Dir)
        .filter((b) => b.entry.startsWith(`${this.#bucket}/`))
        .map((b) => b.entry.slice(this.#bucket.length + 1)),
    );
    const keys: string[] = [];
    await walk(this.#bucketDir, '', prefix, keys);
    keys.sort();
    for (const key of keys) {
      if (broken.has(key)) continue;
      const head = await this.head(key);
      if (head) yield head;
    }
  }

  linkTo(key: string): Promise<string> {
    return Promise.resolve(`s3://${this.#bucket}/${key}`);
  }

  /** The path of a key's files (without s3rver's suffix), or undefined for a key that is not a plain path below. */
  #pathOf(key: string): string | undefined {
    const parts = key.split('/');
    if (key === '' || parts.some((p) => p === '' || p === '.' || p === '..' || p.includes(sep))) return undefined;
    return join(this.#bucketDir, ...parts);
  }
}

/** Collects the keys below `dir` (relative `rel`) that start with `prefix`, skipping folders that cannot. */
async function walk(dir: string, rel: string, prefix: string, into: string[]): Promise<void> {
  const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    const path = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name === '._S3rver_uploads') continue;
      const folder = `${path}/`;
      if (folder.startsWith(prefix) || prefix.startsWith(folder)) await walk(dir, path, prefix, into);
    } else if (e.name.endsWith(OBJECT)) {
      const key = path.slice(0, -OBJECT.length);
      if (key.startsWith(prefix)) into.push(key);
    }
  }
}

/** S3's user metadata (`x-amz-meta-…`, lower-cased, as the S3 store reports it), or undefined for a broken file. */
function userMetadata(text: string): Record<string, string> | undefined {
  try {
    const json: unknown = JSON.parse(text);
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
    return Object.fromEntries(
      Object.entries(json)
        .filter(([k, v]) => k.toLowerCase().startsWith(USER_METADATA) && typeof v === 'string')
        .map(([k, v]) => [k.toLowerCase().slice(USER_METADATA.length), v as string]),
    );
  } catch {
    return undefined;
  }
}
