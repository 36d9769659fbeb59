import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, formatDay, parseDay } from '../../emulator/data/dates.ts';
import { parseCsv } from '../../emulator/files/csv.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TEST_TODAY, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let s: TestSession;
beforeAll(async () => {
  emu = await startTestEmulator();
  s = await signedIn(emu);
});
afterAll(() => emu.close());

const CUST = '/v3/customEventTracking';
const EXC = '/v3/exceptionTracking';
const RAW = '/v3/rawEvents/download';
const TODAY = parseDay(TEST_TODAY)!;
const DATE = String.raw`\d{4}-\d{2}-\d{2}`;
const kb = (bytes: number) => Math.round((bytes / 1024) * 1000) / 1000;
const sorted = (xs: string[]) => [...xs].sort();

async function download(api: string, fileName: string, productId = s.productId) {
  const r = await s.post(`${api}/getDownloadUrl`, { fileName }, productId);
  expect(r.status).toBe(200);
  const res = await fetch(r.json.downloadUrl);
  expect(res.status).toBe(200);
  const zip = new Uint8Array(await res.arrayBuffer());
  const entries = unzipSync(zip);
  expect(Object.keys(entries)).toEqual([fileName.replace(/\.zip$/, '.csv')]);
  const csv = Object.values(entries)[0]!;
  const text = new TextDecoder().decode(csv);
  const [header, ...rows] = parseCsv(text);
  return { zip, csv, text, header: header!, rows };
}

/** Lines of getLastLines as rows in column order, and the first day they fully cover. */
async function lastLineRows(api: string, productId = s.productId) {
  const r = await s.post(`${api}/getLastLines`, { lineCount: 1000 }, productId);
  expect(r.status).toBe(200);
  const keys = Object.keys(r.json.fieldNames);
  const rows = (r.json.result as Record<string, string>[]).map((l) => keys.map((k) => l[k]!));
  return { keys, rows, firstFullDay: parseDay(rows[0]![0]!.slice(0, 10))! + 1 };
}

describe('customEventsListFiles', () => {
  it('lists the open file, 90 finished days and 12 months, ascending, with the documented names', async () => {
    const r = await s.get(`${CUST}/listFiles`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['openDailyFiles', 'dailyFiles', 'monthlyFiles']);
    const pid = s.productId;
    expect(r.json.openDailyFiles).toEqual([
      {
        fileName: `${pid}_cust_${TEST_TODAY}.zip`,
        fileDate: TEST_TODAY,
        uncompressedSizeKB: expect.any(Number),
        isAvailable: true,
      },
    ]);
    const daily = r.json.dailyFiles as { fileName: string; fileDate: string }[];
    // Every day of the test data has custom events, so retention alone decides the daily list.
    expect(daily.map((f) => f.fileDate)).toEqual(Array.from({ length: 90 }, (_, k) => formatDay(TODAY - 90 + k)));
    for (const f of daily) expect(f.fileName).toBe(`${pid}_cust_${f.fileDate}.zip`);
    const monthly = r.json.monthlyFiles as { fileName: string; fileStartDate: string; fileStopDate: string }[];
    const starts = Array.from({ length: 12 }, (_, k) => addMonths(parseDay('2025-12-01')!, k));
    expect(monthly.map((f) => f.fileStartDate)).toEqual(starts.map(formatDay));
    expect(monthly.map((f) => f.fileStopDate)).toEqual(
      starts.map((m, k) => formatDay(k === 11 ? TODAY - 1 : addMonths(m, 1) - 1)),
    );
    for (const f of monthly) expect(f.fileName).toBe(`${pid}_cust_${f.fileStartDate}_to_${f.fileStopDate}.zip`);
  });

  it('reports sizes of the actual CSV and ZIP bytes', async () => {
    const r = await s.get(`${CUST}/listFiles`);
    for (const f of [r.json.dailyFiles[0], r.json.dailyFiles.at(-1), r.json.monthlyFiles[3]]) {
      const file = await download(CUST, f.fileName);
      expect(f.compressedSizeKB).toBe(kb(file.zip.length));
      expect(f.uncompressedSizeKB).toBe(kb(file.csv.length));
      expect(f.uncompressedSizeKB).toBeGreaterThan(f.compressedSizeKB);
    }
  });

  it("holds in a daily file exactly the day's lines that getLastLines returns", async () => {
    const lines = await lastLineRows(CUST);
    const yesterday = formatDay(TODAY - 1);
    expect(lines.firstFullDay).toBeLessThan(TODAY - 1);
    const file = await download(CUST, `${s.productId}_cust_${yesterday}.zip`);
    expect(file.header).toEqual(lines.keys);
    expect(file.text.endsWith('\r\n')).toBe(true);
    expect(file.rows).toEqual(lines.rows.filter((row) => row[0]!.startsWith(yesterday)));
    expect(file.rows.length).toBeGreaterThan(10);
  });

  it('builds a monthly file as the concatenation of its daily files', async () => {
    const r = await s.get(`${CUST}/listFiles`);
    const month = r.json.monthlyFiles.at(-1);
    const whole = await download(CUST, month.fileName);
    const days = (r.json.dailyFiles as { fileName: string; fileDate: string }[]).filter(
      (f) => f.fileDate >= month.fileStartDate && f.fileDate <= month.fileStopDate,
    );
    expect(days).toHaveLength(19);
    const parts = [];
    for (const d of days) parts.push(...(await download(CUST, d.fileName)).rows);
    expect(whole.rows).toEqual(parts);
    expect(sorted(whole.rows.map((row) => row[0]!))).toEqual(whole.rows.map((row) => row[0]!));
  });
});

describe('exceptionsListFiles', () => {
  it('lists exactly the days that have exception lines', async () => {
    const r = await s.get(`${EXC}/listFiles`);
    expect(r.status).toBe(200);
    const pid = s.productId;
    const daily = r.json.dailyFiles as { fileName: string; fileDate: string }[];
    for (const f of daily) expect(f.fileName).toBe(`${pid}_exc_${f.fileDate}.zip`);
    expect(sorted(daily.map((f) => f.fileDate))).toEqual(daily.map((f) => f.fileDate));
    for (const f of r.json.monthlyFiles) {
      expect(f.fileName).toMatch(new RegExp(`^${pid}_exc_${DATE}_to_${DATE}\\.zip$`));
      expect(f.fileName).toBe(`${pid}_exc_${f.fileStartDate}_to_${f.fileStopDate}.zip`);
    }
    const lines = await lastLineRows(EXC);
    const daysWithLines = new Set(lines.rows.map((row) => row[0]!.slice(0, 10)));
    const from = Math.max(lines.firstFullDay, TODAY - 90);
    const covered = daily.filter((f) => parseDay(f.fileDate)! >= from).map((f) => f.fileDate);
    const expected = [...daysWithLines].filter((d) => parseDay(d)! >= from && d < TEST_TODAY).sort();
    expect(expected.length).toBeGreaterThan(30);
    expect(covered).toEqual(expected);
    // Some days have no exceptions: they get no file and no download address.
    const gap = Array.from({ length: TODAY - from }, (_, k) => formatDay(from + k)).find((d) => !daysWithLines.has(d));
    expect(gap).toBeDefined();
    const missing = await s.post(`${EXC}/getDownloadUrl`, { fileName: `${pid}_exc_${gap}.zip` });
    expect(missing.status).toBe(404);
  });

  it('puts the multi-line, quoted stack traces into valid CSV', async () => {
    const lines = await lastLineRows(EXC);
    const r = await s.get(`${EXC}/listFiles`);
    const last = r.json.dailyFiles.at(-1);
    const file = await download(EXC, last.fileName);
    expect(file.header).toEqual(lines.keys);
    expect(file.rows).toEqual(lines.rows.filter((row) => row[0]!.startsWith(last.fileDate)));
    expect(file.rows.every((row) => row.length === lines.keys.length)).toBe(true);
    expect(file.text).toMatch(/"[^"]*\n\s+at /);
  });
});

describe('rawEventsListFiles', () => {
  it('lists finished days only, as fileList, with the tracked events in the customEventsLastLines columns', async () => {
    const pid = emu.products[1]!.productId;
    const r = await s.get(`${RAW}/listFiles`, pid);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(['fileList']);
    const list = r.json.fileList as { fileName: string; fileDate: string; compressedSizeKB: number }[];
    expect(list.map((f) => f.fileDate)).toEqual(Array.from({ length: 90 }, (_, k) => formatDay(TODAY - 90 + k)));
    for (const f of list) expect(Object.keys(f)).toEqual(['fileName', 'fileDate', 'compressedSizeKB']);
    expect(list[5]!.fileName).toBe(`${pid}_${list[5]!.fileDate}.zip`);
    const file = await download(RAW, list.at(-1)!.fileName, pid);
    expect(list.at(-1)!.compressedSizeKB).toBe(kb(file.zip.length));
    const cust = await s.post(`${CUST}/getLastLines`, { lineCount: 1 }, pid);
    expect(file.header).toEqual(Object.keys(cust.json.fieldNames));
    const pd = emu.state.products.get(pid)!;
    const [cat, name] = [file.header.indexOf('event.category'), file.header.indexOf('event.name')];
    for (const row of file.rows) {
      const e = pd.events.findIndex((ev) => (ev.category ?? '') === row[cat] && ev.name === row[name]);
      expect(e).toBeGreaterThanOrEqual(0);
      const i = pd.clientIds.indexOf(row[1]!);
      expect(pd.eventPerDay[i * pd.events.length + e]).toBeGreaterThan(0);
    }
  });

  it('answers 403 Feature Not Enabled on a product without raw data export', async () => {
    expect(emu.products[0]!.rawDataExport).toBe(false);
    for (const r of [
      await s.get(`${RAW}/listFiles`),
      await s.post(`${RAW}/getDownloadUrl`, { fileName: `${s.productId}_${formatDay(TODAY - 1)}.zip` }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.json.error).toBe('Feature Not Enabled');
    }
  });
});

describe('listings without data', () => {
  it('are empty once the data set lies beyond every retention window', async () => {
    emu.clock.advance(800 * 86_400_000);
    try {
      const late = await signedIn(emu);
      const pid = emu.products[1]!.productId;
      for (const api of [CUST, EXC])
        expect((await late.get(`${api}/listFiles`, pid)).json).toEqual({
          openDailyFiles: [],
          dailyFiles: [],
          monthlyFiles: [],
        });
      expect((await late.get(`${RAW}/listFiles`, pid)).json).toEqual({ fileList: [] });
      // The lines themselves are history and stay readable.
      expect((await late.post(`${CUST}/getLastLines`, { lineCount: 5 }, pid)).json.result).toHaveLength(5);
    } finally {
      emu.clock.advance(-800 * 86_400_000);
    }
  });
});
