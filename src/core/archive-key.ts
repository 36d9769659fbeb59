/**
 * The one rule for archive object keys, and the one way to build them. Every key Pulse writes is built from the
 * config (`archive.prefix`, `archive.keyTemplate`, product and digest ids) plus its own parts; locally s3rver stores
 * a key as a file path under the work directory, so a `..` segment would write outside it, and in S3 such keys break
 * every tool that maps keys to paths. The rule is checked twice: at config load (a named field error) and where a
 * key is built or written (`keyUnder`, `checkedKey`, the S3 store), so a new key builder cannot forget it.
 *
 * It lives in ports because it is part of the ArchiveStore contract and has no dependencies: the config may import
 * ports but never jobs, and the jobs and adapters already depend on ports.
 */

/** S3's limit on a key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

/** The placeholders of `archive.keyTemplate`. */
export const KEY_PLACEHOLDERS = ['prefix', 'product', 'kind', 'yyyy', 'mm', 'dd', 'fileName'] as const;
const PLACEHOLDER = /<([^<>]*)>/g;

export class ArchiveKeyError extends Error {
  override name = 'ArchiveKeyError';
}

/**
 * Why a part of a key is unsafe (a prefix, an id, a template with its placeholders filled), or undefined. Parts may
 * be empty and may end in `/`; everything in them must be printable ASCII.
 */
export function unsafeKeyPartReason(part: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(part)) return 'contains a control character';
  if (/[^\x20-\x7e]/.test(part)) return 'contains a non-ASCII character';
  if (/[<>]/.test(part)) return 'contains "<" or ">" (a placeholder left unfilled?)';
  if (part.startsWith('/')) return 'starts with "/" (an absolute path)';
  if (part.split('/').some((s) => s === '..' || s === '.')) return 'has a "." or ".." segment';
  if (part.includes('\\')) return 'contains a backslash';
  return undefined;
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

/**
 * Why a key template is unsafe, or undefined: only known placeholders, and with them filled, a safe part that does
 * not end in `/`. (`archiveKey` checks the filled-in key again with the real values.)
 */
export function unsafeTemplateReason(template: string): string | undefined {
  const unknown = [...template.matchAll(PLACEHOLDER)].find(
    (m) => !(KEY_PLACEHOLDERS as readonly string[]).includes(m[1] ?? ''),
  );
  if (unknown)
    return `has an unknown placeholder ${unknown[0]} (known: ${KEY_PLACEHOLDERS.map((p) => `<${p}>`).join(' ')})`;
  const filled = template.replace(PLACEHOLDER, 'x');
  return unsafeKeyPartReason(filled) ?? (filled.endsWith('/') ? 'ends with "/"' : undefined);
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
