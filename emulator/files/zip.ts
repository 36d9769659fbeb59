// A one-entry ZIP writer for the export files (docs/interface.md "File listings and names"). Deterministic: the
// timestamp comes from the caller in UTC and no extra fields are written, so equal input gives equal bytes.
import { crc32, deflateRawSync } from 'node:zlib';

export class ZipEntryNameError extends Error {
  override name = 'ZipEntryNameError';
  readonly entryName: string;

  constructor(entryName: string, reason: string) {
    super(`unsafe ZIP entry name ${JSON.stringify(entryName)}: ${reason}`);
    this.entryName = entryName;
  }
}

const VERSION_NEEDED = 20; // 2.0: deflate
const VERSION_MADE_BY = (3 << 8) | VERSION_NEEDED; // Unix, so the mode below is honoured
const FLAG_UTF8_NAME = 0x0800;
const METHOD_STORED = 0;
const METHOD_DEFLATED = 8;
const UNIX_FILE_MODE = 0o100644;
const MAX_32BIT = 0xffffffff; // sizes and offsets at this value would need Zip64, which we do not write

// Names that could escape an extraction directory or confuse tools are refused outright.
export function assertSafeEntryName(name: string): void {
  if (name === '') throw new ZipEntryNameError(name, 'empty');
  if (!name.isWellFormed()) throw new ZipEntryNameError(name, 'lone surrogate');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new ZipEntryNameError(name, 'absolute path');
  if (name.includes('..')) throw new ZipEntryNameError(name, 'contains ".."');
  if (name.includes('\\')) throw new ZipEntryNameError(name, 'contains a backslash');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw new ZipEntryNameError(name, 'contains a control character');
  if (name.endsWith('/')) throw new ZipEntryNameError(name, 'names a directory');
}

// MS-DOS date/time in UTC (not local time, which would make the bytes depend on the machine),
// clamped to the range the format can hold; seconds have 2 s resolution.
function dosDateTime(mtime: Date): { time: number; date: number } {
  if (Number.isNaN(mtime.getTime())) throw new RangeError('invalid mtime');
  const year = mtime.getUTCFullYear();
  if (year < 1980) return { time: 0, date: (1 << 5) | 1 };
  if (year > 2107) return { time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31 };
  const time = (mtime.getUTCHours() << 11) | (mtime.getUTCMinutes() << 5) | (mtime.getUTCSeconds() >> 1);
  const date = ((year - 1980) << 9) | ((mtime.getUTCMonth() + 1) << 5) | mtime.getUTCDate();
  return { time, date };
}

export function zipSingleFile(entryName: string, content: Uint8Array, mtime: Date): Uint8Array {
  assertSafeEntryName(entryName);
  const name = Buffer.from(entryName, 'utf8');
  if (name.length > 0xffff) throw new ZipEntryNameError(entryName, 'longer than 65535 bytes');

  const deflated = deflateRawSync(content);
  // Incompressible data is stored as is, so the archive never grows beyond the input plus headers.
  const useDeflate = deflated.length < content.length;
  const data = useDeflate ? deflated : content;
  const method = useDeflate ? METHOD_DEFLATED : METHOD_STORED;
  const crc = crc32(content);
  const { time, date } = dosDateTime(mtime);

  const localHeaderSize = 30 + name.length;
  const centralOffset = localHeaderSize + data.length;
  const centralSize = 46 + name.length;
  if (content.length >= MAX_32BIT || centralOffset >= MAX_32BIT) throw new RangeError('content too large for ZIP32');

  const out = Buffer.alloc(centralOffset + centralSize + 22);
  let at = 0;
  const u16 = (v: number): void => {
    at = out.writeUInt16LE(v, at);
  };
  const u32 = (v: number): void => {
    at = out.writeUInt32LE(v >>> 0, at);
  };
  const bytes = (b: Uint8Array): void => {
    out.set(b, at);
    at += b.length;
  };
  // Fields shared by the local header and the central directory entry, from "version needed" to "extra length".
  const commonFields = (): void => {
    u16(VERSION_NEEDED);
    u16(FLAG_UTF8_NAME);
    u16(method);
    u16(time);
    u16(date);
    u32(crc);
    u32(data.length);
    u32(content.length);
    u16(name.length);
    u16(0); // extra field length
  };

  u32(0x04034b50); // local file header
  commonFields();
  bytes(name);
  bytes(data);

  u32(0x02014b50); // central directory file header
  u16(VERSION_MADE_BY);
  commonFields();
  u16(0); // comment length
  u16(0); // disk number start
  u16(0); // internal attributes
  u32(UNIX_FILE_MODE << 16);
  u32(0); // offset of the local header
  bytes(name);

  u32(0x06054b50); // end of central directory
  u16(0); // this disk
  u16(0); // disk with the central directory
  u16(1); // entries on this disk
  u16(1); // entries in total
  u32(centralSize);
  u32(centralOffset);
  u16(0); // comment length

  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}
