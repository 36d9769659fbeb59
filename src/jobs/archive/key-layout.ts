/**
 * Object keys of archived exports from the configured template (`archive.keyTemplate`, default
 * `<prefix>/<product>/<kind>/<yyyy>/<mm>/<fileName>`). Placeholders: `<prefix> <product> <kind> <yyyy> <mm> <dd>
 * <fileName>`. Duplicate slashes are folded and the prefix loses its outer slashes (an empty prefix leaves no
 * leading `/`). Refused: an unknown placeholder, and a key that could be read as a path outside the archive (`..` or
 * `.` segments, a leading `/`), holds control characters, ends in `/` or exceeds S3's 1024 bytes. File names are
 * checked before this (file-names.ts); the checks here keep the key safe whatever the template and values.
 */
import { isCalendarDate } from './file-names.ts';

export interface KeyParts {
  prefix: string;
  product: string;
  /** An export kind (`customEvents`, …) or another archived kind (`clientData`). */
  kind: string;
  /** `YYYY-MM-DD`; for a monthly file its first day. */
  fileDate: string;
  fileName: string;
}

export class ArchiveKeyError extends Error {
  override name = 'ArchiveKeyError';
}

/** S3's limit on a key, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;
const PLACEHOLDER = /<([^<>]*)>/g;

export function archiveKey(template: string, parts: KeyParts): string {
  if (!isCalendarDate(parts.fileDate)) {
    throw new ArchiveKeyError(`file date ${JSON.stringify(parts.fileDate)} is not a YYYY-MM-DD calendar date`);
  }
  if (template.startsWith('/')) throw new ArchiveKeyError(`key template ${JSON.stringify(template)} starts with "/"`);
  const [yyyy, mm, dd] = parts.fileDate.split('-') as [string, string, string];
  const values: Record<string, string> = {
    prefix: parts.prefix.replace(/^\/+|\/+$/g, ''),
    product: parts.product,
    kind: parts.kind,
    yyyy,
    mm,
    dd,
    fileName: parts.fileName,
  };
  const fill = (whole: string, name: string): string => {
    const value = values[name];
    if (value === undefined) {
      throw new ArchiveKeyError(`unknown placeholder ${whole} in key template ${JSON.stringify(template)}`);
    }
    return value;
  };
  // Segments left empty (an empty prefix, `//` in the template) are dropped rather than leaving `//` or a leading `/`.
  const segments = template.split('/').map((segment) => segment.replace(PLACEHOLDER, fill));
  const key = segments
    .filter((s) => s !== '')
    .join('/')
    .replace(/\/{2,}/g, '/');
  const problem = unsafeKeyReason(key);
  if (problem) throw new ArchiveKeyError(`archive key ${JSON.stringify(key.slice(0, 200))} ${problem}`);
  return key;
}

function unsafeKeyReason(key: string): string | undefined {
  if (key === '') return 'is empty';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'contains a control character';
  if (/[<>]/.test(key)) return 'contains "<" or ">" (a placeholder left unfilled?)';
  if (key.startsWith('/')) return 'starts with "/"';
  if (key.endsWith('/')) return 'ends with "/"';
  if (key.split('/').some((s) => s === '..' || s === '.')) return 'has a "." or ".." segment';
  if (key.includes('\\')) return 'contains a backslash';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return `is longer than ${MAX_KEY_BYTES} bytes`;
  return undefined;
}
