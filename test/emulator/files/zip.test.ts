import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { csvDocument } from '../../../emulator/files/csv.ts';
import { ZipEntryNameError, zipSingleFile } from '../../../emulator/files/zip.ts';

const mtime = new Date(Date.UTC(2026, 10, 20, 23, 59, 58));
const csvBytes = new TextEncoder().encode(
  csvDocument(
    ['timestamp', 'event.data'],
    Array.from({ length: 500 }, (_, i) => [`2026-11-20T10:00:${String(i % 60).padStart(2, '0')}`, `row ${i}, "ü"`]),
  ),
);

type PythonView = { bad: string | null; names: string[]; dateTime: number[]; flags: number; hex: string };

// An independent reader: CPython's zipfile checks headers and CRCs in testzip().
function readWithPython(archive: Uint8Array): PythonView {
  const script = `
import io, json, sys, zipfile
z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read()))
info = z.infolist()[0]
print(json.dumps({"bad": z.testzip(), "names": z.namelist(), "dateTime": list(info.date_time),
                  "flags": info.flag_bits, "hex": z.read(info).hex()}))`;
  return JSON.parse(execFileSync('python3', ['-c', script], { input: archive }).toString()) as PythonView;
}

describe('zipSingleFile', () => {
  it('produces an archive fflate reads back exactly', () => {
    const entries = unzipSync(zipSingleFile('123_cust_2026-11-20.csv', csvBytes, mtime));
    expect(Object.keys(entries)).toEqual(['123_cust_2026-11-20.csv']);
    expect(Buffer.from(entries['123_cust_2026-11-20.csv']!).equals(csvBytes)).toBe(true);
  });

  it('passes python zipfile testzip with the right name, UTC timestamp and UTF-8 flag', () => {
    const archive = zipSingleFile('dir/Grüße_日本.csv', csvBytes, mtime);
    expect(archive.length).toBeLessThan(csvBytes.length); // deflated
    const view = readWithPython(archive);
    expect(view.bad).toBeNull();
    expect(view.names).toEqual(['dir/Grüße_日本.csv']);
    expect(view.dateTime).toEqual([2026, 11, 20, 23, 59, 58]);
    expect(view.flags & 0x0800).toBe(0x0800);
    expect(view.hex).toBe(Buffer.from(csvBytes).toString('hex'));
  });

  it.each([
    ['empty content', new Uint8Array(0)],
    ['incompressible content', new Uint8Array(randomBytes(4096))],
  ])('handles %s', (_what, content) => {
    const archive = zipSingleFile('x.csv', content, mtime);
    const view = readWithPython(archive);
    expect(view.bad).toBeNull();
    expect(view.hex).toBe(Buffer.from(content).toString('hex'));
    expect(Buffer.from(unzipSync(archive)['x.csv']!).equals(content)).toBe(true);
  });

  it('gives identical bytes for identical input, different bytes for another mtime', () => {
    const a = zipSingleFile('a.csv', csvBytes, mtime);
    const b = zipSingleFile('a.csv', Uint8Array.from(csvBytes), new Date(mtime.getTime()));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const c = zipSingleFile('a.csv', csvBytes, new Date(mtime.getTime() - 60_000));
    expect(Buffer.from(a).equals(Buffer.from(c))).toBe(false);
  });

  it('clamps dates outside the DOS range instead of writing garbage', () => {
    expect(readWithPython(zipSingleFile('old.csv', csvBytes, new Date(0))).dateTime).toEqual([1980, 1, 1, 0, 0, 0]);
  });

  it.each([
    '',
    '/etc/passwd',
    'C:/x.csv',
    '../x.csv',
    'a/../../b.csv',
    'a\\b.csv',
    'a\nb.csv',
    'nul\u0000.csv',
    'del\u007f.csv',
    'dir/',
    'bad\ud800.csv',
  ])('rejects the hostile entry name %j', (name) => {
    expect(() => zipSingleFile(name, csvBytes, mtime)).toThrow(ZipEntryNameError);
  });
});
