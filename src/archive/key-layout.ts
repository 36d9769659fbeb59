/**
 * Object keys of archived exports from the configured template (`archive.keyTemplate`, default
 * `<prefix>/<product>/<kind>/<yyyy>/<mm>/<fileName>`). Placeholders: `<prefix> <product> <kind> <yyyy> <mm> <dd>
 * <fileName>`. Duplicate slashes are folded and the prefix loses its outer slashes (an empty prefix leaves no
 * leading `/`). Refused: an unknown placeholder, an unsafe value, and a key that breaks the archive key rule
 * (src/core/archive-key.ts: no `.`/`..` segments, no leading `/`, backslash, control or non-ASCII character, no
 * trailing `/`, at most 1024 bytes). File names are checked before this (file-names.ts); the checks here keep the
 * key safe whatever the template and values.
 */
import { unsafeKeyPartReason } from '../config/archive-key-parts.ts';
import { ArchiveKeyError, checkedKey, printableJson, trimPrefix } from '../core/archive-key.ts';
import { isCalendarDate } from './file-names.ts';

export { ArchiveKeyError } from '../core/archive-key.ts';

export interface KeyParts {
  prefix: string;
  product: string;
  /** An export kind (`customEvents`, …) or another archived kind (`clientData`). */
  kind: string;
  /** `YYYY-MM-DD`; for a monthly file its first day. */
  fileDate: string;
  fileName: string;
}

const PLACEHOLDER = /<([^<>]*)>/g;

export function archiveKey(template: string, parts: KeyParts): string {
  if (!isCalendarDate(parts.fileDate)) {
    throw new ArchiveKeyError(`file date ${JSON.stringify(parts.fileDate)} is not a YYYY-MM-DD calendar date`);
  }
  if (template.startsWith('/')) throw new ArchiveKeyError(`key template ${JSON.stringify(template)} starts with "/"`);
  const [yyyy, mm, dd] = parts.fileDate.split('-') as [string, string, string];
  const values: Record<string, string> = {
    prefix: trimPrefix(parts.prefix),
    product: parts.product,
    kind: parts.kind,
    yyyy,
    mm,
    dd,
    fileName: parts.fileName,
  };
  for (const [name, value] of Object.entries(values)) {
    const problem = unsafeKeyPartReason(value);
    if (problem)
      throw new ArchiveKeyError(`archive key part <${name}> ${printableJson(value.slice(0, 200))} ${problem}`);
  }
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
  return checkedKey(key);
}
