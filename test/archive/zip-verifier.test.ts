/**
 * The streaming ZIP check, on archives written by Python's zipfile (deflated, stored, with data descriptors) and by
 * the emulator, fed in chunks of every size; then on the same archives broken in each way a download or a bad
 * writer can break them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { zipSingleFile } from '../../emulator/files/zip.ts';
import { ZipVerificationError, ZipVerifier } from '../../src/core/zip/zip-verifier.ts';
import { type PythonZipSpec, pythonZipInfos, pythonZips } from './python-zip.ts';

async function verify(zip: Uint8Array, chunkSize = 64 * 1024) {
  const v = new ZipVerifier();
  for (let i = 0; i < zip.length; i += chunkSize) await v.write(zip.subarray(i, i + chunkSize));
  const ended = await v.end();
  expect(await v.result()).toEqual(ended);
  return ended;
}

/** The message of the ZipVerificationError the archive is rejected with (whole or in chunks). */
async function rejection(zip: Uint8Array, chunkSize?: number): Promise<string> {
  const error = await verify(zip, chunkSize).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ZipVerificationError);
  return (error as Error).message;
}

const MIXED: PythonZipSpec = {
  entries: [
    {
      name: 'events.csv',
      method: 'deflated',
      text: 'timestamp,clientId,event\r\n2026-11-19T10:00:00,AB12,start\r\n',
      repeat: 4000,
    },
    { name: 'noise.bin', method: 'stored', randomBytes: 150_000, seed: 2 },
    { name: 'nested/dir/random.bin', method: 'deflated', randomBytes: 90_000, seed: 3 },
    { name: 'empty-stored.txt', method: 'stored', text: '' },
    { name: 'empty-deflated.txt', method: 'deflated', text: '' },
    { name: 'ünïcödé.csv', method: 'deflated', text: 'ä,ö\r\n', repeat: 10 },
  ],
  comment: 'made by zipfile',
};
const SMALL: PythonZipSpec = { entries: [{ name: 'day.csv', method: 'deflated', text: 'a,b\r\n1,2\r\n', repeat: 20 }] };

const HOSTILE_NAMES = ['../evil.csv', 'a/../../evil.csv', '/etc/passwd', 'C:/x.csv', 'a\\b.csv', 'bell\u0007.csv'];
// Every archive from one Python process (each start costs ~100 ms).
const [seekable, streamed, small, smallStreamed, stored, zip64, empty, ...hostile] = pythonZips([
  MIXED,
  { ...MIXED, streaming: true },
  SMALL,
  { ...SMALL, streaming: true },
  { entries: [{ name: 'x.bin', method: 'stored', randomBytes: 5000 }] },
  { entries: [{ name: 'a.csv', method: 'deflated', text: 'x', zip64: true }] },
  { entries: [] },
  ...HOSTILE_NAMES.map((name): PythonZipSpec => ({ entries: [{ name, method: 'deflated', text: 'x' }] })),
]) as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, Buffer, ...Buffer[]];
const [seekableInfo, streamedInfo, smallInfo, smallStreamedInfo] = pythonZipInfos([
  seekable,
  streamed,
  small,
  smallStreamed,
]);

/** Offsets of the records of a one-entry archive without a comment. */
function layout(zip: Buffer) {
  const central = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  return { central, end, dataStart: 30 + zip.readUInt16LE(26) + zip.readUInt16LE(28) };
}

function patched(zip: Buffer, edit: (copy: Buffer) => void): Buffer {
  const copy = Buffer.from(zip);
  edit(copy);
  return copy;
}

describe('ZipVerifier on valid archives', () => {
  it.each([
    ['a seekable zipfile archive', seekable, seekableInfo, 0],
    ['a streamed zipfile archive with data descriptors', streamed, streamedInfo, 0x08],
  ])('reads %s, whatever the chunk size, and agrees with Python', async (_label, zip, expected, descriptorFlag) => {
    expect(zip.readUInt16LE(6) & 0x08).toBe(descriptorFlag);
    for (const size of [7, 4096, 65_536, zip.length]) expect(await verify(zip, size)).toEqual(expected);
  });

  it('takes one byte at a time (every header and descriptor split across chunks)', async () => {
    expect(await verify(small, 1)).toEqual(smallInfo);
    expect(await verify(smallStreamed, 1)).toEqual(smallStreamedInfo);
  });

  it('reads the emulator export ZIPs, deflated and stored', async () => {
    const csv = new TextEncoder().encode('timestamp,clientId\r\n2026-11-19T00:00:01,0123456789ABCDEF\r\n'.repeat(500));
    const incompressible = randomBytes(50_000);
    const zips = [csv, incompressible].map((content) =>
      zipSingleFile('12345678901_cust_2026-11-19.csv', content, new Date('2026-11-20T00:00:00Z')),
    );
    // The CSV is deflated, the random content stored.
    expect(zips.map((z) => Buffer.from(z).readUInt16LE(8))).toEqual([8, 0]);
    const python = pythonZipInfos(zips);
    for (const [i, zip] of zips.entries()) expect(await verify(zip, 1000)).toEqual(python[i]);
  });

  it('hands each entry its uncompressed bytes, in order, and fails with what the reader throws', async () => {
    const csv = new TextEncoder().encode(
      'timestamp,exception.type\r\n2026-11-19T00:00:01,TimeoutError\r\n'.repeat(800),
    );
    const noise = randomBytes(20_000);
    for (const [content, method] of [
      [csv, 8],
      [noise, 0],
    ] as const) {
      const zip = zipSingleFile('entry.csv', content, new Date('2026-11-20T00:00:00Z'));
      expect(Buffer.from(zip).readUInt16LE(8)).toBe(method);
      const got: Buffer[] = [];
      const v = new ZipVerifier({ onData: (name, bytes) => got.push(Buffer.from(`${name}:`), Buffer.from(bytes)) });
      for (let i = 0; i < zip.length; i += 333) await v.write(zip.subarray(i, i + 333));
      await v.end();
      const joined = Buffer.concat(got.filter((b) => b.toString() !== 'entry.csv:'));
      expect(joined.equals(Buffer.from(content))).toBe(true);
      const refused = new Error('the reader refuses this entry');
      const failing = new ZipVerifier({
        onData: () => {
          throw refused;
        },
      });
      const error = await (async () => {
        for (let i = 0; i < zip.length; i += 333) await failing.write(zip.subarray(i, i + 333));
        await failing.end();
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBe(refused);
      await expect(failing.result()).rejects.toBe(refused);
    }
  });
});

describe('ZipVerifier on broken archives', () => {
  it('rejects every truncation of the archive', async () => {
    for (const zip of [small, smallStreamed]) {
      for (let cut = 0; cut < zip.length; cut++) {
        const message = await rejection(zip.subarray(0, cut));
        expect(message).toMatch(/ends early|not a ZIP|deflate stream|end record|CRC|size/);
      }
    }
  });

  it('rejects bytes after the end record', async () => {
    const zip = small;
    expect(await rejection(Buffer.concat([zip, Buffer.from([0])]))).toMatch(/after the end of central directory/);
    expect(await rejection(Buffer.concat([zip, zip]))).toMatch(/after the end of central directory/);
  });

  it('rejects entry data whose CRC does not match (stored and deflated)', async () => {
    const { dataStart } = layout(stored);
    const flipped = patched(stored, (b) => {
      b[dataStart + 2500]! ^= 0x01;
    });
    expect(await rejection(flipped)).toMatch(/entry "x.bin": CRC-32 is 0x[0-9a-f]{8}, the local header says/);

    const d = layout(small);
    const broken = patched(small, (b) => {
      b[Math.floor((d.dataStart + d.central) / 2)]! ^= 0xff;
    });
    expect(await rejection(broken)).toMatch(
      /entry "day.csv": (compressed data is corrupt|CRC-32 is|size is|the deflate)/,
    );
  });

  it('rejects a CRC or size the local header, data descriptor or central directory gets wrong', async () => {
    const zip = small;
    const { central } = layout(zip);
    const localCrc = patched(zip, (b) => b.writeUInt32LE(0x12345678, 14));
    expect(await rejection(localCrc)).toMatch(/CRC-32 is .*, the local header says 0x12345678/);
    const centralCrc = patched(zip, (b) => b.writeUInt32LE(0x12345678, central + 16));
    expect(await rejection(centralCrc)).toMatch(/CRC-32 is .*, the central directory says 0x12345678/);
    const localSize = patched(zip, (b) => b.writeUInt32LE(10, 22));
    expect(await rejection(localSize)).toMatch(/entry "day.csv": inflates to more than the announced 10 bytes/);
    const centralSize = patched(zip, (b) => b.writeUInt32LE(b.readUInt32LE(central + 24) + 1, central + 24));
    expect(await rejection(centralSize)).toMatch(/entry "day.csv": size is \d+, the central directory says \d+/);

    const descriptor = layout(smallStreamed).central - 16;
    expect(smallStreamed.readUInt32LE(descriptor)).toBe(0x08074b50);
    const descriptorCrc = patched(smallStreamed, (b) => b.writeUInt32LE(0xdeadbeef, descriptor + 4));
    expect(await rejection(descriptorCrc)).toMatch(/the data descriptor says 0xdeadbeef/);
    const descriptorSize = patched(smallStreamed, (b) =>
      b.writeUInt32LE(b.readUInt32LE(descriptor + 12) - 1, descriptor + 12),
    );
    expect(await rejection(descriptorSize)).toMatch(/size is \d+, the data descriptor says \d+/);
  });

  it('rejects a central directory or end record that does not describe the entries', async () => {
    const zip = small;
    const { central, end } = layout(zip);
    const cases: [string, (b: Buffer) => void, RegExp][] = [
      ['entry offset', (b) => b.writeUInt32LE(7, central + 42), /points to offset 7: no entry there/],
      [
        'entry name',
        (b) => b.write('DAY', central + 46, 'latin1'),
        /names the entry at offset 0 "DAY.csv", not "day.csv"/,
      ],
      ['method', (b) => b.writeUInt16LE(0, central + 10), /central directory says method 0/],
      ['entry count', (b) => b.writeUInt16LE(2, end + 10), /the end record counts 2, not 1 entries/],
      ['directory offset', (b) => b.writeUInt32LE(central - 1, end + 16), /puts the central directory at/],
      ['directory size', (b) => b.writeUInt32LE(99, end + 12), /says 99 central directory bytes/],
      ['comment length', (b) => b.writeUInt16LE(5, end + 20), /ends early/],
      ['signature', (b) => b.writeUInt32LE(0x01010101, central), /no ZIP record at offset \d+ \(found 0x01010101\)/],
    ];
    for (const [, edit, message] of cases) expect(await rejection(patched(zip, edit))).toMatch(message);
  });

  it('rejects compressed data longer than its deflate stream', async () => {
    const zip = Buffer.from(zipSingleFile('a.csv', new TextEncoder().encode('x,y\r\n'.repeat(100)), new Date(0)));
    const { central, end } = layout(zip);
    // One byte more in the entry: both headers' compressed sizes and the directory's offset follow.
    const longer = Buffer.concat([zip.subarray(0, central), Buffer.from([0]), zip.subarray(central)]);
    longer.writeUInt32LE(zip.readUInt32LE(18) + 1, 18);
    longer.writeUInt32LE(zip.readUInt32LE(central + 20) + 1, central + 1 + 20);
    longer.writeUInt32LE(central + 1, end + 1 + 16);
    expect(await rejection(longer)).toMatch(/the deflate stream ends after \d+ of \d+ bytes/);
  });

  it('refuses unsafe entry names', async () => {
    for (const [i, name] of HOSTILE_NAMES.entries()) {
      expect(await rejection(hostile[i]!)).toContain(`entry name ${JSON.stringify(name)}`);
    }
  });

  it('refuses what it does not support, by name', async () => {
    expect(await rejection(zip64)).toMatch(/Zip64/);
    const encrypted = patched(small, (b) => b.writeUInt16LE(b.readUInt16LE(6) | 1, 6));
    expect(await rejection(encrypted)).toMatch(/encrypted entries are not supported/);
    const bzip2 = patched(small, (b) => b.writeUInt16LE(12, 8));
    expect(await rejection(bzip2)).toMatch(/compression method 12 is not supported/);
    expect(await rejection(empty)).toMatch(/no entries/);
    expect(await rejection(Buffer.from('<Error><Code>AccessDenied</Code></Error>'))).toMatch(/not a ZIP file/);
  });

  it('fails write() at the first bad byte, and result() with the same error', async () => {
    const v = new ZipVerifier();
    const error = await v.write(Buffer.from('not a zip at all')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZipVerificationError);
    await expect(v.result()).rejects.toBe(error);
    await expect(v.write(small)).rejects.toBe(error);
  });

  it('abort() rejects result() with the reason the bytes stopped', async () => {
    const v = new ZipVerifier();
    await v.write(small.subarray(0, 40));
    const reason = new Error('connection lost');
    v.abort(reason);
    await expect(v.result()).rejects.toBe(reason);
  });
});
