/**
 * The header side of the streaming ZIP check (zip-verifier.ts): the fixed layouts of the local file header, the
 * central directory header and the end record (PKWARE APPNOTE 4.3), and the checks of each against what the data
 * turned out to be. Every problem is a ZipVerificationError that names the entry and the record.
 */
import { METHOD_DEFLATED, METHOD_STORED, ZipVerificationError } from './zip-entry-data.ts';

export const SIG_LOCAL = 0x04034b50;
export const SIG_CENTRAL = 0x02014b50;
export const SIG_END = 0x06054b50;
export const ZIP64_SIGNATURES = new Set([0x06064b50, 0x07064b50]);
/** Fixed parts after the 4-byte signature. */
export const LOCAL_FIXED = 26;
export const CENTRAL_FIXED = 42;
export const END_FIXED = 18;
const FLAG_ENCRYPTED = 0x0001;
export const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const ZIP64_MARK = 0xffffffff;
const ZIP64_EXTRA_ID = 0x0001;

/** What a header or descriptor claims about an entry's data, and what the data turned out to be. */
export interface Sums {
  crc32: number;
  compressedSize: number;
  size: number;
}

export interface LocalHeader extends Sums {
  flags: number;
  method: number;
  nameLength: number;
  extraLength: number;
}

export interface CentralHeader extends Sums {
  flags: number;
  method: number;
  nameLength: number;
  /** Extra field plus comment: read and skipped. */
  restLength: number;
  diskStart: number;
  localOffset: number;
}

/** An entry as read: its local header, then (once its data has passed) its actual sums. */
export interface ReadEntry extends Sums {
  offset: number;
  rawName: Buffer;
  name: string;
  method: number;
  matched: boolean;
}

export const fail = (message: string): never => {
  throw new ZipVerificationError(message);
};

export function parseLocalHeader(h: Buffer): LocalHeader {
  return {
    flags: h.readUInt16LE(2),
    method: h.readUInt16LE(4),
    crc32: h.readUInt32LE(10),
    compressedSize: h.readUInt32LE(14),
    size: h.readUInt32LE(18),
    nameLength: h.readUInt16LE(22),
    extraLength: h.readUInt16LE(24),
  };
}

/** The entry's name, once the local header shows nothing this check cannot read or should not trust. */
export function checkLocalHeader(h: LocalHeader, rawName: Buffer, extra: Buffer, at: number): string {
  const name = entryName(rawName, h.flags, at);
  const entry = `entry ${show(name)}`;
  if (h.flags & FLAG_ENCRYPTED) fail(`${entry}: encrypted entries are not supported`);
  if (h.method !== METHOD_STORED && h.method !== METHOD_DEFLATED) {
    fail(`${entry}: compression method ${h.method} is not supported (only stored and deflate)`);
  }
  if (h.compressedSize === ZIP64_MARK || h.size === ZIP64_MARK || hasZip64Extra(extra)) {
    fail(`${entry}: Zip64 entries are not supported`);
  }
  if (!(h.flags & FLAG_DESCRIPTOR) && h.method === METHOD_STORED && h.compressedSize !== h.size) {
    fail(`${entry}: stored, but its sizes differ (${h.compressedSize} and ${h.size})`);
  }
  return name;
}

export function parseCentralHeader(h: Buffer): CentralHeader {
  return {
    flags: h.readUInt16LE(4),
    method: h.readUInt16LE(6),
    crc32: h.readUInt32LE(12),
    compressedSize: h.readUInt32LE(16),
    size: h.readUInt32LE(20),
    nameLength: h.readUInt16LE(24),
    restLength: h.readUInt16LE(26) + h.readUInt16LE(28),
    diskStart: h.readUInt16LE(30),
    localOffset: h.readUInt32LE(38),
  };
}

/** The central directory entry must describe exactly one entry that was read, as it was read; returns that entry. */
export function checkCentralEntry(
  h: CentralHeader,
  rawName: Buffer,
  local: ReadEntry | undefined,
  at: number,
): ReadEntry {
  const name = show(entryName(rawName, h.flags, at));
  if (h.localOffset === ZIP64_MARK || h.size === ZIP64_MARK || h.compressedSize === ZIP64_MARK) {
    fail(`central directory entry ${name}: Zip64 entries are not supported`);
  }
  if (h.diskStart !== 0) fail('split (multi-disk) archives are not supported');
  if (!local) return fail(`central directory entry ${name} points to offset ${h.localOffset}: no entry there`);
  if (local.matched) fail(`entry ${name} is listed twice in the central directory`);
  if (!local.rawName.equals(rawName)) {
    fail(`central directory names the entry at offset ${h.localOffset} ${name}, not ${show(local.name)}`);
  }
  if (h.method !== local.method) fail(`entry ${name}: central directory says method ${h.method}`);
  compareSums(name, 'central directory', h, local);
  return local;
}

/**
 * The end record must agree with what was read: the number of entries, where the central directory starts (`start`)
 * and how long it is (up to `at`, the end record's offset). Returns the comment length.
 */
export function checkEndRecord(h: Buffer, read: { entries: number; listed: number; start: number; at: number }) {
  const { entries, listed, start, at } = read;
  const [onThisDisk, total] = [h.readUInt16LE(4), h.readUInt16LE(6)];
  const [centralSize, centralOffset] = [h.readUInt32LE(8), h.readUInt32LE(12)];
  if (h.readUInt16LE(0) !== 0 || h.readUInt16LE(2) !== 0) fail('split (multi-disk) archives are not supported');
  if (entries === 0) fail('the ZIP has no entries');
  if (total === 0xffff || centralOffset === ZIP64_MARK) fail('Zip64 archives are not supported');
  const problems = [
    listed !== entries ? `the central directory lists ${listed} of ${entries} entries` : '',
    onThisDisk !== listed || total !== listed ? `the end record counts ${total}, not ${listed} entries` : '',
    centralOffset !== start ? `the end record puts the central directory at ${centralOffset}, not ${start}` : '',
    centralSize !== at - start ? `the end record says ${centralSize} central directory bytes, not ${at - start}` : '',
  ].filter(Boolean);
  if (problems.length > 0) fail(problems.join('; '));
  return { commentLength: h.readUInt16LE(16) };
}

/** `name` is already quoted for messages. */
export function compareSums(name: string, source: string, claim: Sums, actual: Sums): void {
  if (claim.crc32 !== actual.crc32) {
    fail(`entry ${name}: CRC-32 is ${hex(actual.crc32)}, the ${source} says ${hex(claim.crc32)}`);
  }
  if (claim.size !== actual.size) fail(`entry ${name}: size is ${actual.size}, the ${source} says ${claim.size}`);
  if (claim.compressedSize !== actual.compressedSize) {
    fail(`entry ${name}: compressed size is ${actual.compressedSize}, the ${source} says ${claim.compressedSize}`);
  }
}

/** The decoded entry name, if it is safe to extract. */
function entryName(raw: Buffer, flags: number, at: number): string {
  let name = '';
  try {
    name = flags & FLAG_UTF8 ? new TextDecoder('utf-8', { fatal: true }).decode(raw) : raw.toString('latin1');
  } catch {
    fail(`the entry name at offset ${at} is not valid UTF-8`);
  }
  const unsafe = unsafeEntryName(name);
  if (unsafe) fail(`entry name ${show(name)} ${unsafe}`);
  return name;
}

/** Why an entry name is unsafe to extract, if it is: nothing that could leave an extraction directory. */
function unsafeEntryName(name: string): string | undefined {
  if (name === '') return 'is empty';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'contains a control character';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is an absolute path';
  if (name.includes('\\')) return 'contains a backslash';
  if (name.split('/').includes('..')) return 'has a ".." segment';
  return undefined;
}

function hasZip64Extra(extra: Buffer): boolean {
  for (let i = 0; i + 4 <= extra.length; i += 4 + extra.readUInt16LE(i + 2)) {
    if (extra.readUInt16LE(i) === ZIP64_EXTRA_ID) return true;
  }
  return false;
}

/** A name for messages: quoted with control characters escaped, and not endless. */
export const show = (name: string): string => JSON.stringify(name.length > 120 ? `${name.slice(0, 120)}…` : name);
const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;
