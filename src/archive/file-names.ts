/**
 * Export file names from the service are untrusted input: they become object keys. Only the documented patterns
 * (docs/interface.md "File listings and names") pass, for the product and family they were listed under:
 *
 * | kind         | daily / open day                   | monthly                                     |
 * | ------------ | ---------------------------------- | ------------------------------------------- |
 * | customEvents | `<product_id>_cust_<YYYY-MM-DD>.zip` | `<product_id>_cust_<start>_to_<stop>.zip` |
 * | exceptions   | `<product_id>_exc_<YYYY-MM-DD>.zip`  | `<product_id>_exc_<start>_to_<stop>.zip`  |
 * | rawEvents    | `<product_id>_<YYYY-MM-DD>.zip`      | none                                      |
 *
 * Everything else (path separators, `..`, control or non-ASCII characters, over-long names, another product's or
 * family's names, impossible dates) is refused with a reason that quotes the name safely.
 */
import { printableJson } from '../core/archive-key.ts';

export type FileNameKind = 'customEvents' | 'exceptions' | 'rawEvents';

export type FileNameCheck = { ok: true; fileDate: string; stopDate?: string } | { ok: false; reason: string };

/** Longer names are refused outright (and most file systems and tools could not hold them either). */
export const MAX_FILE_NAME_LENGTH = 255;
const QUOTED_MAX = 80;

const TAGS: Record<FileNameKind, string> = { customEvents: 'cust_', exceptions: 'exc_', rawEvents: '' };
const DATE = String.raw`\d{4}-\d{2}-\d{2}`;
/** Any family's shape, to tell "another product" or "another family" apart from plain garbage. */
const ANY_EXPORT = new RegExp(`^(\\d+)_(cust_|exc_)?(${DATE})(?:_to_(${DATE}))?\\.zip$`);

/** True for a real calendar day written `YYYY-MM-DD` (no 2026-02-30, no month 13). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/**
 * A name for messages and logs: JSON-quoted (control characters escaped), non-ASCII escaped as `\uXXXX` (no bidi
 * tricks in a terminal), and cut to a readable length.
 */
export function quoteFileName(name: string): string {
  const quoted = printableJson(name.slice(0, QUOTED_MAX));
  return name.length > QUOTED_MAX ? `${quoted}… (${name.length} characters)` : quoted;
}

export function checkFileName(productId: string, kind: FileNameKind, name: unknown): FileNameCheck {
  if (typeof name !== 'string') return refuse(`file name is not a string (${name === null ? 'null' : typeof name})`);
  const shown = quoteFileName(name);
  const problem = unsafeReason(name);
  if (problem) return refuse(`file name ${shown} ${problem}`);

  const m = ANY_EXPORT.exec(name);
  if (!m) return refuse(`file name ${shown} does not follow the documented export file name patterns`);
  const [, owner = '', tag = '', start = '', stop] = m;
  if (owner !== productId) return refuse(`file name ${shown} belongs to product ${owner}, not ${productId}`);
  if (tag !== TAGS[kind]) return refuse(`file name ${shown} is ${familyOfTag(tag)} file, not ${kind}`);
  if (stop !== undefined && kind === 'rawEvents') return refuse(`file name ${shown}: raw event files are daily only`);
  for (const d of stop === undefined ? [start] : [start, stop]) {
    if (!isCalendarDate(d)) return refuse(`file name ${shown} has an impossible date ${d}`);
  }
  if (stop === undefined) return { ok: true, fileDate: start };
  if (stop < start) return refuse(`file name ${shown} ends (${stop}) before it starts (${start})`);
  return { ok: true, fileDate: start, stopDate: stop };
}

function refuse(reason: string): FileNameCheck {
  return { ok: false, reason };
}

/** The dangerous shapes get their own reason, so a report says why a name is hostile, not just "no match". */
function unsafeReason(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name.length > MAX_FILE_NAME_LENGTH) return `is longer than ${MAX_FILE_NAME_LENGTH} characters (${name.length})`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'contains a control character';
  if (/[^\x20-\x7e]/.test(name)) return 'contains a non-ASCII character';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('/') || name.includes('\\')) return 'contains a path separator';
  return undefined;
}

function familyOfTag(tag: string): string {
  return tag === 'cust_' ? 'a customEvents' : tag === 'exc_' ? 'an exceptions' : 'a rawEvents';
}
