/**
 * The checksum file beside every archived export: `<key>.sha256`, in `sha256sum` format (`sha256sum -c` verifies
 * it), for people, and for later runs the only place that records the SHA-256 of an object uploaded in parts (a
 * multipart upload fixes its metadata at CreateMultipartUpload, before the hash is known; S3's only full-object
 * checksums for multipart uploads are CRCs, a multipart SHA-256 is a checksum of the part checksums).
 *
 * So the checksum file is written before the object is committed (in the upload's `verify` hook), which leaves no
 * committed object without one, but may leave one whose object never came (the process died before
 * CompleteMultipartUpload, or a concurrent copier's conditional write won). A random token, set in the object's
 * metadata when the upload starts and in the checksum file's metadata, binds the file to the one object version it
 * was written for; a later run trusts a checksum file only when the tokens agree (or, as earlier versions wrote
 * them, neither has one).
 */

import { randomBytes } from 'node:crypto';
import { checkedKey } from '../../core/archive-key.ts';
import type { ArchiveStore, StoredObject } from '../../ports/archive-store.ts';

export const checksumKey = (key: string): string => checkedKey(`${key}.sha256`);

/** Metadata key of the token, on the object and on its checksum file. */
export const CHECKSUM_TOKEN = 'checksum-token';

export const newChecksumToken = (): string => randomBytes(16).toString('hex');

export const isSha256Hex = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);

/** More than any checksum line: a larger object at the checksum key is read no further. */
const MAX_CHECKSUM_FILE = 1024;

export interface ChecksumFile {
  /** Absent when the file is empty or does not start with a hex SHA-256. */
  sha256?: string;
  token?: string;
}

export async function readChecksumFile(store: ArchiveStore, key: string): Promise<ChecksumFile | undefined> {
  const read = await store.read(checksumKey(key));
  if (!read) return undefined;
  let text = '';
  try {
    for await (const chunk of read.body) {
      text += String(chunk);
      if (text.length > MAX_CHECKSUM_FILE) break;
    }
  } finally {
    read.body.destroy();
  }
  const sha256 = /^([0-9a-f]{64})(?:\s|$)/.exec(text)?.[1];
  const token = read.metadata[CHECKSUM_TOKEN];
  return { ...(sha256 !== undefined ? { sha256 } : {}), ...(token !== undefined ? { token } : {}) };
}

/** Whether the checksum file was written for this version of the object (see the note at the top). */
export const boundTo = (file: ChecksumFile, object: StoredObject): boolean =>
  file.token === object.metadata[CHECKSUM_TOKEN];

/** Writes (or replaces) the checksum file of the object at `key`, bound by `token` when the object has one. */
export async function writeChecksumFile(
  store: ArchiveStore,
  key: string,
  fileName: string,
  sha256: string,
  token: string | undefined,
): Promise<void> {
  await store.put(checksumKey(key), `${sha256}  ${fileName}\n`, {
    contentType: 'text/plain; charset=utf-8',
    ...(token !== undefined ? { metadata: { [CHECKSUM_TOKEN]: token } } : {}),
  });
}
