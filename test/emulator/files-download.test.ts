import { unzipSync } from 'fflate';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, parseDay } from '../../emulator/data/dates.ts';
import { resolveStorageKey } from '../../emulator/families/files/storage-keys.ts';
import { parseCsv } from '../../emulator/files/csv.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
});
afterEach(() => emu.faults.clear());
afterAll(() => emu.close());

const CUST = '/v3/customEventTracking';
const EXC = '/v3/exceptionTracking';
const RAW = '/v3/rawEvents/download';
const TODAY = parseDay(TEST_TODAY)!;
const YESTERDAY = formatDay(TODAY - 1);
const custName = (date: string, pid = s.productId) => `${pid}_cust_${date}.zip`;

async function urlFor(session: TestSession, api: string, fileName: string, productId = session.productId) {
  const r = await session.post(`${api}/getDownloadUrl`, { fileName }, productId);
  expect(r.status, r.text).toBe(200);
  expect(Object.keys(r.json)).toEqual(['downloadUrl']);
  return r.json.downloadUrl as string;
}

/** A bare GET, as docs/interface.md "Download addresses" requires: no cookies, no Origin, no service headers. */
async function fetchZip(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

function csvRows(zip: Uint8Array): string[][] {
  const entries = Object.values(unzipSync(zip));
  expect(entries).toHaveLength(1);
  return parseCsv(new TextDecoder().decode(entries[0]!));
}

describe('customEventsDownloadUrl', () => {
  it('signs an absolute storage URL that serves the ZIP to a bare GET', async () => {
    const url = await urlFor(s, CUST, custName(YESTERDAY));
    expect(url.startsWith(`${emu.storageUrl}/`)).toBe(true);
    const { res, bytes } = await fetchZip(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(Object.keys(unzipSync(bytes))).toEqual([custName(YESTERDAY).replace('.zip', '.csv')]);
    const [header, ...rows] = csvRows(bytes);
    expect(header![0]).toBe('timestamp');
    expect(rows.every((r) => r[0]!.startsWith(YESTERDAY))).toBe(true);
    // The storage refuses what a browser fetch would add.
    expect((await fetchZip(url, { Origin: emu.origin })).res.status).toBe(403);
  });

  it('gives the same bytes for the same seed and day in another emulator', async () => {
    const other = await startTestEmulator();
    try {
      const s2 = await signedIn(other);
      const name = custName(formatDay(TODAY - 30));
      const a = await fetchZip(await urlFor(s, CUST, name));
      const b = await fetchZip(await urlFor(s2, CUST, name));
      expect(a.bytes.length).toBeGreaterThan(500);
      expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
      const listA = await s.get(`${EXC}/listFiles`);
      const listB = await s2.get(`${EXC}/listFiles`);
      expect(listB.json.dailyFiles).toEqual(listA.json.dailyFiles);
    } finally {
      await other.close();
    }
  });

  it("serves the open file as a snapshot of today's lines so far", async () => {
    const today = async () =>
      ((await s.post(`${CUST}/getLastLines`, { lineCount: 1000 })).json.result as Record<string, string>[])
        .filter((l) => l.timestamp!.startsWith(TEST_TODAY))
        .map((l) => Object.values(l));
    const before = await today();
    const { res, bytes } = await fetchZip(await urlFor(s, CUST, custName(TEST_TODAY)));
    expect(res.status).toBe(200);
    const rows = csvRows(bytes).slice(1);
    const after = await today();
    expect(rows.length).toBeGreaterThanOrEqual(before.length);
    expect(rows).toEqual(after.slice(0, rows.length));
  });

  it('answers 400 for a missing or non-string fileName', async () => {
    for (const [body, message] of [
      [{}, 'fileName: required'],
      [{ fileName: 42 }, 'fileName: must be a string'],
      [{ fileName: null }, 'fileName: required'],
    ] as const) {
      const r = await s.post(`${CUST}/getDownloadUrl`, body);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: 'Bad Request', message });
    }
  });

  it('answers 404 for names that are not in this family and product listing', async () => {
    const pid = s.productId;
    const other = emu.products[1]!.productId;
    const names = [
      custName(formatDay(TODAY - 91)), // beyond retention
      custName(formatDay(TODAY + 1)), // future
      custName(YESTERDAY, other), // another product's name
      `${pid}_exc_${YESTERDAY}.zip`, // another family
      `${pid}_${YESTERDAY}.zip`, // raw naming
      `${pid}_cust_2026-11-01_to_2026-11-30.zip`, // current month past yesterday
      `${pid}_cust_2025-11-01_to_2025-11-30.zip`, // 13 months back
      `${pid}_cust_2026-02-30.zip`,
      `../${custName(YESTERDAY)}`,
      `${custName(YESTERDAY)}/../x`,
      `${pid}/customEvents/${custName(YESTERDAY)}`,
      `${pid}_cust_${YESTERDAY}.ZIP`,
      '',
      'x'.repeat(5000),
    ];
    for (const fileName of names) {
      const r = await s.post(`${CUST}/getDownloadUrl`, { fileName });
      expect(r.status, fileName).toBe(404);
      expect(r.json.error).toBe('Not Found');
    }
    expect((await s.post(`${CUST}/getDownloadUrl`, { fileName: custName(YESTERDAY, other) }, other)).status).toBe(200);
    expect((await s.post(`${CUST}/getDownloadUrl`, { fileName: custName(YESTERDAY) }, '99999999999')).status).toBe(404);
  });

  it('refuses the open file while it is unavailable, only for the matching rule', async () => {
    emu.faults.set({ rules: [{ path: '/customEvents/', openFilesUnavailable: true }] });
    const list = await s.get(`${CUST}/listFiles`);
    expect(list.json.openDailyFiles[0].isAvailable).toBe(false);
    const r = await s.post(`${CUST}/getDownloadUrl`, { fileName: custName(TEST_TODAY) });
    expect(r.status).toBe(404);
    // Finished files are unaffected, and so is the other family's open file.
    expect((await s.post(`${CUST}/getDownloadUrl`, { fileName: custName(YESTERDAY) })).status).toBe(200);
    const exc = await s.get(`${EXC}/listFiles`, emu.products[1]!.productId);
    for (const f of exc.json.openDailyFiles) expect(f.isAvailable).toBe(true);
    emu.faults.clear();
    expect((await s.get(`${CUST}/listFiles`)).json.openDailyFiles[0].isAvailable).toBe(true);
    expect((await s.post(`${CUST}/getDownloadUrl`, { fileName: custName(TEST_TODAY) })).status).toBe(200);
  });

  it('serves byte ranges of the file', async () => {
    const url = await urlFor(s, CUST, custName(formatDay(TODAY - 2)));
    const full = await fetchZip(url);
    const part = await fetchZip(url, { Range: 'bytes=100-299' });
    expect(part.res.status).toBe(206);
    expect(part.res.headers.get('content-range')).toBe(`bytes 100-299/${full.bytes.length}`);
    expect(Buffer.from(part.bytes).equals(Buffer.from(full.bytes.subarray(100, 300)))).toBe(true);
    const tail = await fetchZip(url, { Range: `bytes=${full.bytes.length - 22}-` });
    expect(new DataView(tail.bytes.buffer).getUint32(0, true)).toBe(0x06054b50); // end of central directory
  });

  it('truncates downloads under a download fault', async () => {
    emu.faults.set({ rules: [{ path: `_cust_${formatDay(TODAY - 3)}`, truncateDownloadRate: 1 }] });
    const res = await fetch(await urlFor(s, CUST, custName(formatDay(TODAY - 3))));
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
    const ok = await fetchZip(await urlFor(s, CUST, custName(formatDay(TODAY - 4))));
    expect(csvRows(ok.bytes).length).toBeGreaterThan(1);
  });

  it('stalls downloads under a stall fault: half the body, then nothing while the connection stays open', async () => {
    const date = formatDay(TODAY - 5);
    const full = await fetchZip(await urlFor(s, CUST, custName(date)));
    emu.faults.set({ rules: [{ path: `_cust_${date}`, stallDownloadRate: 1 }] });
    const res = await fetch(await urlFor(s, CUST, custName(date)));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(full.bytes.length));
    const reader = res.body!.getReader();
    let received = 0;
    while (received < Math.floor(full.bytes.length / 2)) received += (await reader.read()).value!.byteLength;
    expect(received).toBe(Math.floor(full.bytes.length / 2));
    const next = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r('stalled'), 300))]);
    expect(next).toBe('stalled');
    await reader.cancel();
  });
  it('corrupts downloads under a corrupt fault: every byte arrives, the middle one altered, the file intact', async () => {
    const date = formatDay(TODAY - 6);
    const full = await fetchZip(await urlFor(s, CUST, custName(date)));
    emu.faults.set({ rules: [{ path: `_cust_${date}`, corruptDownloadRate: 1 }] });
    const bad = Buffer.from(await (await fetch(await urlFor(s, CUST, custName(date)))).arrayBuffer());
    emu.faults.clear();
    const good = Buffer.from(full.bytes);
    expect(bad.length).toBe(good.length);
    const differing = [...bad.keys()].filter((i) => bad[i] !== good[i]);
    expect(differing).toEqual([good.length >> 1]);
    expect(Buffer.from((await fetchZip(await urlFor(s, CUST, custName(date)))).bytes).equals(good)).toBe(true);
  });
});

describe('exceptionsDownloadUrl and rawEventsDownloadUrl', () => {
  it('serves listed exception and raw files, and 404s the other family names', async () => {
    const pid = emu.products[1]!.productId;
    const exc = (await s.get(`${EXC}/listFiles`, pid)).json;
    const monthly = exc.monthlyFiles.at(-1).fileName as string;
    const m = await fetchZip(await urlFor(s, EXC, monthly, pid));
    expect(csvRows(m.bytes)[0]!.slice(-3)).toEqual(['exception.type', 'exception.message', 'exception.stackTrace']);
    const raw = (await s.get(`${RAW}/listFiles`, pid)).json.fileList;
    const r = await fetchZip(await urlFor(s, RAW, raw[0].fileName, pid));
    expect(csvRows(r.bytes)[0]!.slice(-3)).toEqual(['event.category', 'event.name', 'event.data']);
    expect((await s.post(`${RAW}/getDownloadUrl`, { fileName: monthly }, pid)).status).toBe(404);
    expect((await s.post(`${EXC}/getDownloadUrl`, { fileName: raw[0].fileName }, pid)).status).toBe(404);
    expect((await s.post(`${RAW}/getDownloadUrl`, { fileName: 7 }, pid)).json.message).toBe(
      'fileName: must be a string',
    );
  });
});

describe('storage keys', () => {
  it('resolve only well-formed keys of listed files', async () => {
    const pid = s.productId;
    const raw = emu.products[2]!.productId;
    const good = `${pid}/customEvents/${custName(YESTERDAY)}`;
    expect((await resolveStorageKey(emu.state, good))?.length).toBeGreaterThan(0);
    const bad = [
      `${pid}/customEvents`,
      `${good}/x`,
      `/${good}`,
      `${pid}/bogus/${custName(YESTERDAY)}`,
      `${pid}/__proto__/${custName(YESTERDAY)}`,
      `${pid}/exceptions/${custName(YESTERDAY)}`,
      `99999999999/customEvents/${custName(YESTERDAY, '99999999999')}`,
      `${pid}/rawEvents/${pid}_${YESTERDAY}.zip`, // raw export not enabled on this product
      `${pid}/customEvents/${custName(formatDay(TODAY - 400))}`,
    ];
    for (const key of bad) expect(await resolveStorageKey(emu.state, key), key).toBeUndefined();
    expect(await resolveStorageKey(emu.state, `${raw}/rawEvents/${raw}_${YESTERDAY}.zip`)).toBeInstanceOf(Uint8Array);
  });

  it('stop working 15 minutes after they were signed', async () => {
    const url = await urlFor(s, CUST, custName(YESTERDAY));
    expect((await fetchZip(url)).res.status).toBe(200);
    emu.clock.advance(16 * 60_000);
    const late = await fetchZip(url);
    expect(late.res.status).toBe(403);
    expect(new TextDecoder().decode(late.bytes)).toContain('<Code>AccessDenied</Code>');
    const tampered = await fetchZip(url.replace(YESTERDAY, formatDay(TODAY - 2)));
    expect(tampered.res.status).toBe(403);
  });
});
