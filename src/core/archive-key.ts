/**
 * The one rule for archive object keys, and the one way to build them. Every key Pulse writes is built from the
 * config (`archive.prefix`, `archive.keyTemplate`, product and digest ids) plus its own parts; locally s3rver stores
 * a key as a file path under the work directory, so a `..` segment would write outside it, and in S3 such keys break
 * every tool that maps keys to paths. The rule is checked twice: at config load (a named field error) and where a
 * key is built or written (`keyUnder`, `checkedKey`, the S3 store), so a new key builder cannot forget it.
 *
 * Which characters a part may hold is src/config/archive-key-parts.ts: the config checks its fields with it at load,
 * and the config imports nothing of the jobs' shared room.
 */
import { unsafeKeyPartReason } from '../config/archive-key-parts.ts';

/** S3's limit on a key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

export class ArchiveKeyError extends Error {
  override name = 'ArchiveKeyError';
}

/** Why `key` is not a safe object key, or undefined: a safe part that is not empty, no folder, and fits S3. */
export function unsafeKeyReason(key: string): string | undefined {
  if (key === '') return 'is empty';
  const problem = unsafeKeyPartReason(key);
  if (problem) return problem;
  if (key.endsWith('/')) return 'ends with "/"';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return `is longer than ${MAX_KEY_BYTES} bytes`;
  return undefined;
}

/** `key` if it is safe, else an ArchiveKeyError naming it (cut, JSON-quoted) and the problem. */
export function checkedKey(key: string): string {
  const problem = unsafeKeyReason(key);
  if (problem) throw new ArchiveKeyError(`archive key ${quoted(key)} ${problem}`);
  return key;
}

/**
 * The checked-key builder every key of Pulse's own goes through: `<prefix>/<part>/<part>…`. The prefix loses its
 * outer slashes (an empty prefix leaves no leading `/`); each part must be safe and not empty, and so must the key.
 */
export function keyUnder(prefix: string, ...parts: string[]): string {
  const trimmed = trimPrefix(prefix);
  for (const [name, value] of [['prefix', trimmed] as const, ...parts.map((p) => ['part', p] as const)]) {
    const problem = value === '' && name === 'part' ? 'is empty' : unsafeKeyPartReason(value);
    if (problem) throw new ArchiveKeyError(`archive key ${name} ${quoted(value)} ${problem}`);
  }
  return checkedKey([trimmed, ...parts].filter((p) => p !== '').join('/'));
}

/** A "folder" (`<prefix>/<part>…/`) to list or to build keys under, checked like a key. */
export const folderUnder = (prefix: string, ...parts: string[]): string => `${keyUnder(prefix, ...parts)}/`;

/** The prefix without outer slashes: `/org/pulse/` and `org/pulse` name the same place. */
export const trimPrefix = (prefix: string): string => prefix.replace(/^\/+|\/+$/g, '');

const quoted = (s: string): string => printableJson(s.slice(0, 200));

/** JSON-quoted (control characters escaped) with non-ASCII as `\uXXXX`: no bidi tricks when printed in a terminal. */
export const printableJson = (s: string): string =>
  JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
