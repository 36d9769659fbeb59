/**
 * A peer for bench/archive-copy.ts: the emulator's storage listener (`startStorageServer`, signed URLs) serving large
 * custom-event ZIP files, each built once in memory here, so the copying process never holds a file.
 * `node bench/zip-storage.ts <MiB>…` prints one JSON line (`StorageInfo`) when it is ready and serves until killed.
 *
 * Each file is a valid single-entry ZIP whose one entry is stored (method 0, uncompressed), so the file is exactly
 * the requested size: local header, a CSV of repeated deterministic rows, central directory, end record. The
 * emulator's zip.ts deflates, which would shrink the repeated rows to almost nothing.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { startStorageServer } from '../emulator/files/storage-server.ts';
import { exitWithParent } from './processes.ts';

export interface StoredZip {
  fileName: string;
  fileDate: string;
  bytes: number;
  sha256Hex: string;
  /** Signed for an hour. */
  url: string;
}
export interface StorageInfo {
  url: string;
  files: StoredZip[];
}

const PRODUCT = '12345678901';
const MIB = 1024 * 1024;
const DOS_TIME = 0; // 00:00:00
const DOS_DATE = ((2026 - 1980) << 9) | (11 << 5) | 19; // 2026-11-19

/** 1 MiB of CSV rows from a fixed linear congruential sequence: the same bytes on every run. */
function rowBlock(): Buffer {
  const rows: string[] = ['timestamp,clientId,eventCategory,eventName,count\r\n'];
  let x = 7;
  let size = rows[0]!.length;
  while (size < MIB) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const row = `2026-11-19T${String(x % 24).padStart(2, '0')}:00:00Z,c${x.toString(16).padStart(8, '0')},ui,click-${x % 97},${x % 13}\r\n`;
    rows.push(row);
    size += row.length;
  }
  return Buffer.from(rows.join('')).subarray(0, MIB);
}

/** A stored single-entry ZIP of exactly `total` bytes. */
function storedZip(entryName: string, total: number): Buffer {
  const name = Buffer.from(entryName);
  const dataStart = 30 + name.length;
  const centralSize = 46 + name.length;
  const dataSize = total - dataStart - centralSize - 22;
  const out = Buffer.allocUnsafe(total);
  const block = rowBlock();
  for (let at = dataStart; at < dataStart + dataSize; at += block.length) {
    out.set(block.subarray(0, Math.min(block.length, dataStart + dataSize - at)), at);
  }
  const crc = crc32(out.subarray(dataStart, dataStart + dataSize));
  let at = 0;
  const u16 = (v: number) => {
    at = out.writeUInt16LE(v, at);
  };
  const u32 = (v: number) => {
    at = out.writeUInt32LE(v >>> 0, at);
  };
  const common = () => {
    [20, 0x0800, 0, DOS_TIME, DOS_DATE].forEach(u16); // version needed, UTF-8 names, stored, time, date
    [crc, dataSize, dataSize].forEach(u32);
    [name.length, 0].forEach(u16); // name length, extra length
  };
  u32(0x04034b50);
  common();
  at += name.copy(out, at);
  at = dataStart + dataSize;
  u32(0x02014b50);
  u16((3 << 8) | 20);
  common();
  [0, 0, 0].forEach(u16); // comment length, disk, internal attributes
  [0o100644 << 16, 0].forEach(u32); // external attributes, local header offset
  at += name.copy(out, at);
  [0x06054b50].forEach(u32);
  [0, 0, 1, 1].forEach(u16);
  [centralSize, dataStart + dataSize].forEach(u32);
  u16(0);
  if (at !== total) throw new Error(`ZIP layout is off: wrote ${at} of ${total} bytes`);
  return out;
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number);
  const files = new Map<string, Buffer>();
  const listed: Omit<StoredZip, 'url'>[] = sizes.map((mib, i) => {
    // One day per file, counting back from 2026-11-19, so the names follow the service's pattern.
    const fileDate = `2026-11-${String(19 - i).padStart(2, '0')}`;
    const fileName = `${PRODUCT}_cust_${fileDate}.zip`;
    const zip = storedZip(`${PRODUCT}_cust_${fileDate}.csv`, mib * MIB);
    files.set(fileName, zip);
    return { fileName, fileDate, bytes: zip.length, sha256Hex: createHash('sha256').update(zip).digest('hex') };
  });
  const storage = await startStorageServer({
    secret: 'bench-storage-secret',
    now: () => Date.now(),
    ttlMs: 60 * 60_000,
    resolve: async (key) => files.get(key),
  });
  process.on('SIGTERM', () => void storage.close().then(() => process.exit(0)));
  exitWithParent();
  const info: StorageInfo = { url: storage.url, files: listed.map((f) => ({ ...f, url: storage.sign(f.fileName) })) };
  console.log(JSON.stringify(info));
}

await main();
